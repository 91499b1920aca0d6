#!/usr/bin/env bash
# tests/cli.sh BUILD_DIR — the `fairway` command as a user meets it:
# help, the default main job, JSON validity, determinism, and every
# bad-input case in tests/bad_input/cases.txt (exit 2, message naming the
# file, line and field).
set -uo pipefail
B=${1:-build-asan}
FW=$B/tools/fairway
pass=0
fail=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }
expect() { # name, expected exit, expected substring (in stdout+stderr), cmd...
	local name=$1 code=$2 sub=$3 out rc
	shift 3
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" -ne "$code" ]; then
		bad "$name: exit $rc, want $code"; echo "$out" | head -5
	elif ! grep -qF -- "$sub" <<<"$out"; then
		bad "$name: output lacks '$sub'"; echo "$out" | head -5
	else
		ok "$name"
	fi
}

expect "help" 0 "fairway plan" "$FW" --help
expect "no-args-shows-usage" 2 "usage: fairway" "$FW"
expect "unknown-command" 2 "unknown command 'frobnicate'" "$FW" frobnicate
expect "plan-help" 0 "--config FILE" "$FW" plan --help
expect "plan-unknown-flag" 2 "unknown option '--bogus'" "$FW" plan --bogus
expect "plan-missing-value" 2 "--config needs a value" "$FW" plan --config
expect "plan-unknown-policy" 2 "unknown policy 'nope'" "$FW" plan --policy nope
expect "plan-bad-now" 2 "not a whole number" "$FW" plan --now soon
expect "plan-missing-file" 2 "does-not-exist.yaml" "$FW" plan --config does-not-exist.yaml
expect "plan-default-runs" 0 "STARTED" "$FW" plan
expect "policies" 0 "fifo" "$FW" policies

if "$FW" policies --json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert any(p["default"] for p in d)'; then
	ok "policies-json-valid"
else
	bad "policies-json-valid"
fi
if "$FW" plan --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["decisions"], "no starts"
assert d["pending"], "no pending"
assert all(p["message"] for p in d["pending"])
starts = [x["job"] for x in d["decisions"] if x["kind"] == "start"]
resv = [x["job"] for x in d["decisions"] if x["kind"] == "reserve"]
pend = {x["job"]: x["reason"] for x in d["pending"]}
assert resv, "the example should show a reservation"
assert all(pend.get(j) == "has_reservation" for j in resv)
assert not set(starts) & set(pend), "a job both started and pending"'; then
	ok "plan-json-valid"
else
	bad "plan-json-valid"
fi
a=$("$FW" plan --json | sha256sum)
b=$("$FW" plan --json | sha256sum)
[ "$a" = "$b" ] && ok "plan-is-deterministic" || bad "plan-is-deterministic"

if [ -f tests/bad_input/cases.txt ]; then
	while IFS=$'\t' read -r file sub; do
		[ -z "$file" ] || [ "${file:0:1}" = "#" ] && continue
		expect "bad-input $(basename "$file")" 2 "$sub" "$FW" plan --config "$file"
	done <tests/bad_input/cases.txt
else
	bad "tests/bad_input/cases.txt is missing"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
