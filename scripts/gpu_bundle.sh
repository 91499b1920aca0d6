#!/usr/bin/env bash
# scripts/gpu_bundle.sh — pack fairway-agent for a real-GPU check on another
# machine (the device tool's H200, or any NVIDIA host without this repo's
# build dependencies): a release build of the agent and the shared
# libraries it needs beyond the C library, in .gpu/ (git-ignored).
# Then, on the GPU machine, from the repo root:  scripts/gpu_check.sh OUTDIR
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
if [ ! -f build-release/build.ninja ]; then
	meson setup build-release --buildtype=release >/dev/null
fi
ninja -C build-release agent/fairway-agent >/dev/null
rm -rf .gpu
mkdir -p .gpu/lib
cp build-release/agent/fairway-agent .gpu/
# every library ldd resolves, except the C library's own and NVIDIA's
ldd build-release/agent/fairway-agent | awk '$2 == "=>" && $3 ~ /^\// {print $3}' |
	grep -Ev '/(libc|libm|libdl|libpthread|librt|libresolv|ld-linux[^/]*)\.so|libnvidia' |
	while read -r l; do cp -L "$l" .gpu/lib/; done
echo "gpu_bundle: .gpu/ holds fairway-agent and $(ls .gpu/lib | wc -l) libraries ($(du -sh .gpu | cut -f1))"
