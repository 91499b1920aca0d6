#!/usr/bin/env bash
# scripts/test.sh — the README's test command: install what is missing,
# build everything with AddressSanitizer + UndefinedBehaviorSanitizer, and
# run the whole suite (tests/run.sh), which ends with "N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
if [ ! -f build-asan/build.ninja ]; then
	meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false \
		--buildtype=debugoptimized >/dev/null
fi
ninja -C build-asan >/dev/null
exec tests/run.sh build-asan
