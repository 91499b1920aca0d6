#!/usr/bin/env bash
# tests/scenario.sh BUILD_DIR — golden scenarios.
#
# Each tests/scenario/NAME.yaml is a whole snapshot (cluster + queues +
# jobs); NAME.json beside it is the expected plan from `fairway plan
# --json`.  Comments at the top of each YAML file say what the plan must
# show and why; the goldens were checked by hand against them.  A test
# passes when the plan matches byte for byte.  FW_UPDATE_GOLDEN=1
# rewrites the goldens (then review the diff!).
set -uo pipefail
B=${1:-build-asan}
FW=$B/tools/fairway
pass=0
fail=0
for y in tests/scenario/*.yaml; do
	name=$(basename "$y" .yaml)
	want=${y%.yaml}.json
	got=$(mktemp)
	err=$(mktemp) # notes on stderr (e.g. a run past a limit) are not the plan
	if ! "$FW" plan --config "$y" --json >"$got" 2>"$err"; then
		echo "FAIL scenario $name: fairway plan failed:"
		cat "$got" "$err"
		fail=$((fail + 1))
	elif [ "${FW_UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "$got" "$want"
		echo "PASS scenario $name (golden rewritten)"
		pass=$((pass + 1))
	elif cmp -s "$got" "$want"; then
		echo "PASS scenario $name"
		pass=$((pass + 1))
	else
		echo "FAIL scenario $name: plan differs from $want"
		diff -u "$want" "$got" | head -40
		fail=$((fail + 1))
	fi
	rm -f "$got" "$err"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
