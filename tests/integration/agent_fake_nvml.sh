#!/usr/bin/env bash
# tests/integration/agent_fake_nvml.sh BUILD_DIR — fairway-agent against the
# fake NVML (tests/fake_nvml/fake_nvml.c, built as BUILD/agent/libfake_nvml.so):
# no NVML at all, an --nvml that is not NVML (exit 2), a healthy node, an injected XID that makes the node
# suspect (the report folded again with --assess says so too), a fatal
# XID and ECC errors that exclude GPUs, row remapping (a failed remap
# excludes a GPU, a pending one makes it suspect), an NVLink down, --watch,
# --help.
# Prints PASS/FAIL lines and "N passed, N failed".
set -uo pipefail
B=${1:-build-asan}
AGENT=$B/agent/fairway-agent
FAKE=$B/agent/libfake_nvml.so
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0

ok() { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1: $2"; fail=$((fail + 1)); }
# has NAME FILE STRING...: every STRING occurs in FILE
has() {
	local name=$1 file=$2
	shift 2
	for s in "$@"; do
		if ! grep -qF -- "$s" "$file"; then
			bad "$name" "missing '$s' in: $(head -c 600 "$file")"
			return
		fi
	done
	ok "$name"
}

if [ ! -x "$AGENT" ] || [ ! -f "$FAKE" ]; then
	echo "FAIL agent_build: $AGENT or $FAKE not built"
	echo "0 passed, 1 failed"
	exit 1
fi

# 1. no NVML on the library path (no --nvml): clear message, exit 0 --
# only where this machine has no NVIDIA library of its own
if ! ldconfig -p 2>/dev/null | grep -q 'libnvidia-ml\.so\.1'; then
	"$AGENT" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq 0 ] && ok no_nvml_exit_0 || bad no_nvml_exit_0 "exit $rc"
	has no_nvml_says_so "$T/err" "no NVIDIA GPUs" "libnvidia-ml.so.1"
	has no_nvml_report "$T/out" '"available":false' '"gpus":[]'
fi

# 1b. --nvml PATH that cannot be loaded is the operator's mistake: exit 2,
# one line naming PATH, dlopen's (or the missing symbol's) reason and what
# to do; no report on stdout -- one-shot and --watch alike
NOTNVML=$(ldd "$AGENT" | awk '/libjansson/ {print $3}')
bad_nvml() { # NAME REASON AGENT-ARGS...
	local name=$1 reason=$2
	shift 2
	timeout 20 "$AGENT" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ $rc -eq 2 ] && [ ! -s "$T/out" ] && [ "$(wc -l <"$T/err")" -eq 1 ]; then
		has "$name" "$T/err" "--nvml " "$reason" "drop --nvml"
	else
		bad "$name" "exit $rc, stdout $(head -c 200 "$T/out"), stderr $(cat "$T/err")"
	fi
}
bad_nvml nvml_typo_exit_2 "$T/nope/libnvidia-ml.so.1: cannot open shared object file" --nvml "$T/nope/libnvidia-ml.so.1"
bad_nvml nvml_typo_watch_exit_2 "cannot open shared object file" --nvml "$T/nope/libnvidia-ml.so.1" --watch --count 1
bad_nvml nvml_not_a_library_exit_2 "--nvml /etc/passwd: dlopen: /etc/passwd: invalid ELF header" --nvml /etc/passwd
if [ -n "$NOTNVML" ]; then
	bad_nvml nvml_not_nvml_exit_2 "$NOTNVML has no nvmlInit_v2: not NVIDIA's NVML" --nvml "$NOTNVML"
fi

# 2. driver not loaded (nvmlInit fails): the same, exit 0
FAKE_NVML_INIT_FAIL=1 "$AGENT" --nvml "$FAKE" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && ok init_fail_exit_0 || bad init_fail_exit_0 "exit $rc"
has init_fail_says_why "$T/err" "no NVIDIA GPUs" "Driver Not Loaded"

# 3. a healthy node of 4 GPUs
FAKE_NVML_GPUS=4 FAKE_NVML_TEMP=55 "$AGENT" --nvml "$FAKE" --node n001 >"$T/out" 2>"$T/err"
has healthy_report "$T/out" '"node":"n001"' '"available":true' '"index":3' '"temperature_c":55' \
	'"node_health":"healthy"' '"bad_gpus":[]' '"suspect_gpus":[]'
[ "$(grep -o '"health":"healthy"' "$T/out" | wc -l)" -eq 4 ] && ok healthy_every_gpu ||
	bad healthy_every_gpu "$(cat "$T/out")"

# 4. an injected XID (62, not fatal) on GPU 1: the GPU and the node are suspect
FAKE_NVML_XID=1:62 "$AGENT" --nvml "$FAKE" --node n002 >"$T/xid.json" 2>"$T/err"
has xid_reported "$T/xid.json" '"xid":[{"code":62' '"node_health":"suspect"' '"suspect_gpus":[1]' '"bad_gpus":[]'
# ... and the report, fed into the health model again, makes the node suspect
"$AGENT" --assess "$T/xid.json" >"$T/assess" 2>"$T/err"
has xid_assess_suspect "$T/assess" '"node":"n002"' '"node_health":"suspect"' '"suspect_gpus":[1]'

# ... and the scheduler, given that verdict, keeps a 16-GPU gang off the node
# (a job that may not be preempted: suspect nodes take preemptible work, and
# jobs are preemptible unless they say not)
state=$(sed -n 's/.*"node_health":"\([a-z]*\)".*/\1/p' "$T/assess")
cat >"$T/snap.yaml" <<YAML
now: 100
nodes:
  - {name: n002, gpus: 8, cpu: 64, memory: 512Gi, health: $state}
  - {name: n003, gpus: 8, cpu: 64, memory: 512Gi}
queues:
  - {name: q, resources: {gpu: {quota: 16}}}
jobs:
  - {name: gang, queue: q, submitTime: 1, preemptible: false, tasks: [{count: 2, gpus: 8}]}
  - {name: eval, queue: q, submitTime: 2, tasks: [{count: 1, gpus: 1}]}
YAML
if [ -x "$B/tools/fairway" ]; then
	"$B/tools/fairway" plan --config "$T/snap.yaml" --json >"$T/plan" 2>&1
	has xid_node_gang_waits_health "$T/plan" '"name": "gang"' '"reason": "health"'
fi

# 5. an application XID (13) changes nothing
FAKE_NVML_XID=0:13 "$AGENT" --nvml "$FAKE" >"$T/out" 2>"$T/err"
has app_xid_ignored "$T/out" '"code":13' '"node_health":"healthy"'

# 6. XID 79 (fallen off the bus) on GPU 0: that GPU is excluded, the node keeps GPU 1
FAKE_NVML_XID=0:79 "$AGENT" --nvml "$FAKE" >"$T/out" 2>"$T/err"
has fatal_xid_bad_gpu "$T/out" '"bad_gpus":[0]' '"node_health":"healthy"'

# 7. uncorrectable ECC on GPU 1
FAKE_NVML_ECC=1:3 "$AGENT" --nvml "$FAKE" >"$T/out" 2>"$T/err"
has ecc_bad_gpu "$T/out" '"volatile":3' '"bad_gpus":[1]'

# 7b. row remapping, read from NVML's counters (no XID needed: an agent
# started after the event still sees it).  A failed remap excludes the GPU,
# also for --assess; a pending one makes it suspect; a GPU without the
# counters (before Ampere) reports null and stays healthy
FAKE_NVML_REMAP=1:2 "$AGENT" --nvml "$FAKE" >"$T/remap.json" 2>"$T/err"
has remap_failed_bad_gpu "$T/remap.json" \
	'"row_remap":{"correctable":0,"uncorrectable":1,"pending":false,"failed":true}' '"bad_gpus":[1]' \
	'"node_health":"healthy"'
"$AGENT" --assess "$T/remap.json" >"$T/out" 2>"$T/err"
has remap_failed_assess "$T/out" '"bad_gpus":[1]'
FAKE_NVML_REMAP=0:1 "$AGENT" --nvml "$FAKE" >"$T/remap.json" 2>"$T/err"
has remap_pending_suspect "$T/remap.json" '"pending":true,"failed":false' '"suspect_gpus":[0]' \
	'"node_health":"suspect"' '"bad_gpus":[]'
"$AGENT" --assess "$T/remap.json" >"$T/out" 2>"$T/err"
has remap_pending_assess "$T/out" '"suspect_gpus":[0]'
FAKE_NVML_REMAP=0:3 FAKE_NVML_REMAP_NS=1 "$AGENT" --nvml "$FAKE" >"$T/out" 2>"$T/err"
has remap_not_supported "$T/out" '"row_remap":null' '"node_health":"healthy","bad_gpus":[],"suspect_gpus":[]'
# ... a pending remap is one fault while it stays (probation from the 1st
# report, not restarted), and the reset that applies it (3rd report) leaves
# the GPU on that probation; a failed remap outlasts the reset
FAKE_NVML_REMAP=0:1 FAKE_NVML_FAULTS_UNTIL=2 timeout 30 \
	"$AGENT" --nvml "$FAKE" --watch --interval 1 --count 3 --wait 0 >"$T/out" 2>"$T/err"
python3 - "$T/out" <<'PY' && ok remap_pending_is_one_fault || bad remap_pending_is_one_fault "$(cat "$T/out" "$T/err")"
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
g = [x["gpus"][0] for x in r]
assert len(r) == 3 and [x["row_remap"]["pending"] for x in g] == [True, True, False], g
assert all(x["health"] == "suspect" for x in g), [x["health"] for x in g]
assert all(x["suspect_until"] == r[0]["time"] + 6 * 3600 for x in g), [x["suspect_until"] - r[0]["time"] for x in g]
PY
FAKE_NVML_REMAP=1:3 FAKE_NVML_FAULTS_UNTIL=1 timeout 20 \
	"$AGENT" --nvml "$FAKE" --watch --interval 1 --count 2 --wait 0 >"$T/out" 2>"$T/err"
if [ "$(grep -c '"pending":false,"failed":true.*"bad_gpus":\[1\]' "$T/out")" -eq 1 ] &&
	[ "$(sed -n 1p "$T/out" | grep -c '"pending":true,"failed":true.*"bad_gpus":\[1\]')" -eq 1 ]; then
	ok remap_failed_outlasts_reset
else
	bad remap_failed_outlasts_reset "$(cat "$T/out" "$T/err")"
fi

# 8. every GPU bad: the node is unhealthy
FAKE_NVML_XID=0:79,1:48 "$AGENT" --nvml "$FAKE" >"$T/out" 2>"$T/err"
has all_bad_unhealthy "$T/out" '"bad_gpus":[0,1]' '"node_health":"unhealthy"'

# 9. NVLink link 2 of GPU 0 down: suspect
FAKE_NVML_NVLINK_DOWN=0:2 "$AGENT" --nvml "$FAKE" >"$T/out" 2>"$T/err"
has nvlink_down_suspect "$T/out" '"down":[2]' '"suspect_gpus":[0]' '"node_health":"suspect"'

# 9b. links never up are inactive, not a fault: one GPU with none up (a GPU
# alone in a VM), or every GPU without link 3 (wired alike)
FAKE_NVML_GPUS=1 FAKE_NVML_NVLINK_DOWN=0:0,0:1,0:2,0:3 "$AGENT" --nvml "$FAKE" >"$T/out" 2>"$T/err"
has nvlink_unused_is_inactive "$T/out" '"up":0,"down":[],"inactive":[0,1,2,3]' '"suspect_gpus":[]' '"node_health":"healthy"'
FAKE_NVML_NVLINK_DOWN=0:3,1:3 "$AGENT" --nvml "$FAKE" >"$T/out" 2>"$T/err"
has nvlink_unwired_everywhere_is_inactive "$T/out" '"up":3,"down":[],"inactive":[3]' '"node_health":"healthy"'
# ... unless --nvlinks says each GPU has them up
FAKE_NVML_NVLINK_DOWN=0:3,1:3 "$AGENT" --nvml "$FAKE" --nvlinks 4 >"$T/out" 2>"$T/err"
has nvlink_expected_is_down "$T/out" '"down":[3]' '"suspect_gpus":[0,1]' '"node_health":"suspect"'
"$AGENT" --nvml "$FAKE" --nvlinks 19 >"$T/out" 2>&1
[ $? -eq 2 ] && has nvlinks_range "$T/out" "--nvlinks needs a whole number from 0 to 18" ||
	bad nvlinks_range "not exit 2"
# ... or --watch saw them up before: all links of the only GPU drop at the
# 2nd report (a fabric manager failure), so that report is suspect
FAKE_NVML_GPUS=1 FAKE_NVML_NVLINK_DOWN=0:0,0:1,0:2,0:3 FAKE_NVML_NVLINK_DOWN_FROM=2 timeout 20 \
	"$AGENT" --nvml "$FAKE" --watch --interval 1 --count 2 --wait 0 >"$T/out" 2>"$T/err"
if [ "$(sed -n 1p "$T/out" | grep -c '"up":4,"down":\[\],"inactive":\[\].*"node_health":"healthy"')" -eq 1 ] &&
	[ "$(sed -n 2p "$T/out" | grep -c '"up":0,"down":\[0,1,2,3\].*"node_health":"suspect"')" -eq 1 ]; then
	ok nvlink_seen_up_then_down
else
	bad nvlink_seen_up_then_down "$(cat "$T/out")"
fi

# 9b'. a link down for three reports is one fault: back up at the 4th, the
# GPU is on the 6 h probation from the first, not the 3-day flap hold that
# a fault per report would give (two faults within the flap window)
FAKE_NVML_NVLINK_DOWN=0:2 FAKE_NVML_NVLINK_DOWN_UNTIL=3 timeout 30 \
	"$AGENT" --nvml "$FAKE" --watch --interval 1 --count 4 --wait 0 >"$T/out" 2>"$T/err"
python3 - "$T/out" <<'PY' && ok nvlink_down_for_a_while_is_one_fault || bad nvlink_down_for_a_while_is_one_fault "$(cat "$T/out")"
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
g = [x["gpus"][0] for x in r]
assert len(r) == 4 and [x["nvlink"]["down"] for x in g] == [[2], [2], [2], []], g
assert all(x["health"] == "suspect" for x in g), [x["health"] for x in g]
assert all(x["suspect_until"] == r[0]["time"] + 6 * 3600 for x in g), [x["suspect_until"] - r[0]["time"] for x in g]
PY

# 9b''. the damping is the operator's to set: --probation for one fault,
# --flap-hold once --flap-threshold faults fall within --flap-window
FAKE_NVML_XID=1:62 "$AGENT" --nvml "$FAKE" --probation 600 >"$T/out" 2>"$T/err"
python3 - "$T/out" <<'PY' && ok probation_flag || bad probation_flag "$(cat "$T/out" "$T/err")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["gpus"][1]["suspect_until"] == r["time"] + 600, r["gpus"][1]
PY
FAKE_NVML_XID=1:62,1:62 "$AGENT" --nvml "$FAKE" --flap-hold 900 --flap-window 3600 --flap-threshold 2 >"$T/out" 2>"$T/err"
python3 - "$T/out" <<'PY' && ok flap_hold_flags || bad flap_hold_flags "$(cat "$T/out" "$T/err")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["gpus"][1]["suspect_until"] == r["time"] + 900, r["gpus"][1]
PY
"$AGENT" --nvml "$FAKE" --probation 0 >"$T/out" 2>&1
[ $? -eq 2 ] && has probation_range "$T/out" "--probation needs a whole number from 1 to" || bad probation_range "not exit 2"

# 9c. GPUs NVML cannot open do not end the report: one fallen off the bus
# (GPU_IS_LOST) is bad, also for --assess; one this process may not open
# (another container's) is listed as unread and not judged
FAKE_NVML_HANDLE_ERR=1:15 "$AGENT" --nvml "$FAKE" >"$T/lost.json" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && has gpu_lost_is_bad "$T/lost.json" '"lost":true,"unread":"GPU is lost","health":"unhealthy"' \
	'"bad_gpus":[1]' || bad gpu_lost_is_bad "exit $rc: $(cat "$T/err")"
"$AGENT" --assess "$T/lost.json" >"$T/out" 2>"$T/err"
has gpu_lost_assess "$T/out" '"bad_gpus":[1]'
FAKE_NVML_HANDLE_ERR=0:4 "$AGENT" --nvml "$FAKE" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && has gpu_no_permission_is_unread "$T/out" '"unread":"Insufficient Permissions","health":null' \
	'"temperature_c":40' '"node_health":"healthy","bad_gpus":[]' ||
	bad gpu_no_permission_is_unread "exit $rc: $(cat "$T/err")"

# 9d. repair: a GPU seen reset goes on probation (suspect): its volatile ECC
# count back to 0, or answering again after being lost; SIGUSR1 to a --watch
# agent is the operator's "repaired" for every unhealthy GPU
# watch2 NAME ENV...: two reports; GPU 1 unhealthy in the 1st, suspect in the 2nd
watch2() {
	local name=$1
	shift
	env "$@" FAKE_NVML_FAULTS_UNTIL=1 timeout 20 "$AGENT" --nvml "$FAKE" --watch --interval 1 --count 2 \
		--wait 0 >"$T/out" 2>"$T/err"
	if [ "$(sed -n 1p "$T/out" | grep -c '"node_health":"healthy","bad_gpus":\[1\]')" -eq 1 ] &&
		[ "$(sed -n 2p "$T/out" | grep -c '"bad_gpus":\[\],"suspect_gpus":\[1\]')" -eq 1 ]; then
		ok "$name"
	else
		bad "$name" "$(cat "$T/out" "$T/err")"
	fi
}
watch2 ecc_reset_is_repaired FAKE_NVML_ECC=1:2
watch2 lost_gpu_back_is_repaired FAKE_NVML_HANDLE_ERR=1:15
# (the signal goes to the agent itself, once its first report is out)
FAKE_NVML_XID=1:79 "$AGENT" --nvml "$FAKE" --watch --interval 2 --count 3 --wait 0 >"$T/out" 2>"$T/err" &
apid=$!
(sleep 60 && kill "$apid" 2>/dev/null) &
wd=$!
for _ in $(seq 200); do
	[ -s "$T/out" ] && break
	sleep 0.1
done
kill -USR1 "$apid" 2>/dev/null
wait "$apid"
kill "$wd" 2>/dev/null
wait "$wd" 2>/dev/null
if [ "$(sed -n 1p "$T/out" | grep -c '"bad_gpus":\[1\]')" -eq 1 ] &&
	[ "$(sed -n 3p "$T/out" | grep -c '"bad_gpus":\[\],"suspect_gpus":\[1\]')" -eq 1 ]; then
	ok usr1_is_repaired
else
	bad usr1_is_repaired "$(cat "$T/out" "$T/err")"
fi

# 10. --watch --count 3: three reports, one JSON line each; the XID comes
# once but the GPU stays suspect (probation) in the later reports
FAKE_NVML_XID=1:62 timeout 20 "$AGENT" --nvml "$FAKE" --watch --interval 1 --count 3 --wait 0 >"$T/out" 2>"$T/err"
[ "$(wc -l <"$T/out")" -eq 3 ] && ok watch_three_lines || bad watch_three_lines "$(wc -l <"$T/out") lines"
[ "$(grep -c '"code":62' "$T/out")" -eq 1 ] && [ "$(grep -c '"node_health":"suspect"' "$T/out")" -eq 3 ] &&
	ok watch_probation_persists || bad watch_probation_persists "$(cat "$T/out")"

# 11. --help teaches; a bad option is a usage error
"$AGENT" --help >"$T/out" 2>&1
has help_text "$T/out" "--watch" "--nvml" "--assess" "exits 0" "Examples"
"$AGENT" --bogus >"$T/out" 2>&1
[ $? -eq 2 ] && ok bad_option_exit_2 || bad bad_option_exit_2 "not exit 2"

# 12. --assess on something that is not a report
echo '{"hello":1}' >"$T/junk.json"
"$AGENT" --assess "$T/junk.json" >"$T/out" 2>"$T/err"
[ $? -eq 1 ] && has assess_rejects_junk "$T/err" "not a fairway-agent report" || bad assess_rejects_junk "exit not 1"

# ... on a file that is not JSON: exit 1, the file and line named
echo '{bad' >"$T/broken.json"
"$AGENT" --assess "$T/broken.json" >"$T/out" 2>"$T/err"
[ $? -eq 1 ] && has assess_names_the_broken_line "$T/err" "$T/broken.json:1:" ||
	bad assess_names_the_broken_line "exit not 1"
# ... and --assess only prints: with --server it is a usage error
: >"$T/tok"
"$AGENT" --assess "$T/junk.json" --server http://127.0.0.1:1 --token-file "$T/tok" >"$T/out" 2>"$T/err"
[ $? -eq 2 ] && has assess_sends_nothing "$T/err" "--assess prints a verdict; it does not send one (drop --server)" ||
	bad assess_sends_nothing "exit not 2"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
