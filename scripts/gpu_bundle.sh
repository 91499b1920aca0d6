#!/usr/bin/env bash
# scripts/gpu_bundle.sh — pack fairway-agent for a real-GPU check on another
# machine (the device tool's H200, or any NVIDIA host without this repo's
# build dependencies): release builds of the agent and of `fairway` (the
# daemon the check has it report to) and the shared libraries they need
# beyond the C library, in .gpu/ (git-ignored).
# Then, on the GPU machine, from the repo root:  scripts/gpu_check.sh OUTDIR
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
if [ ! -f build-release/build.ninja ]; then
	meson setup build-release --buildtype=release >/dev/null
fi
ninja -C build-release agent/fairway-agent tools/fairway >/dev/null
rm -rf .gpu
mkdir -p .gpu/lib
# the agent, and the daemon it reports to (the check runs both there)
cp build-release/agent/fairway-agent build-release/tools/fairway .gpu/
# every library ldd resolves, except the C library's own and NVIDIA's
ldd build-release/agent/fairway-agent build-release/tools/fairway | awk '$2 == "=>" && $3 ~ /^\// {print $3}' |
	sort -u | grep -Ev '/(libc|libm|libdl|libpthread|librt|libresolv|ld-linux[^/]*)\.so|libnvidia' |
	while read -r l; do cp -L "$l" .gpu/lib/; done
echo "gpu_bundle: .gpu/ holds fairway-agent, fairway and $(ls .gpu/lib | wc -l) libraries ($(du -sh .gpu | cut -f1))"
