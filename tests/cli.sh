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
# fairway help CMD [SUB] is CMD [SUB] --help (as git's), not the general help
expect "help-for-plan" 0 "usage: fairway plan [--config FILE]" "$FW" help plan
expect "help-for-sim-run" 0 "usage: fairway sim run --trace FILE" "$FW" help sim run
# the 8-entry limit of --policies is in the help, and its error says what to do
expect "help-sim-run-policies-limit" 0 "at most 8 entries a run" "$FW" sim run --help
expect "sim-run-policies-at-most-8" 2 "--policies: at most 8 entries a run; split the list over several runs" \
	"$FW" sim run --trace synthetic:3 --nodes 2x8 --policies fifo,slurm,kai,fairway,fairway:starve-after=0,fairway:reserve-depth=1,fairway:reserve-depth=2,fairway:reserve-depth=3,fairway:reserve-depth=4
# --preemptible says what fairway's reclaim leaves out (docs/policies.md)
expect "help-sim-run-preemptible-names-reservations" 0 "fairway not for a job that holds a reservation" \
	"$FW" sim run --help
# Every help teaches by example, and sim run's first example runs as
# written from any directory (a generated trace: no file needed; before,
# the only example named a cluster08.csv in the current directory).
for hc in "policies" "sim" "trace" "stats"; do
	expect "help-$hc-has-examples" 0 "  fairway $hc" "$FW" $hc --help
done
# A usage error points at the help that has the answer: a jobs
# subcommand's own (`fairway jobs submit --help` lists --queue), else the
# command's (before, every jobs error pointed at `fairway jobs --help`).
for ue in "jobs submit --gpus 1|jobs submit" "jobs list --bogus|jobs list" "jobs --bogus|jobs list" \
	"jobs cancel|jobs cancel" "queues set|queues" "jobs nosuch|jobs"; do
	IFS='|' read -r ue_cmd ue_help <<<"$ue"
	# shellcheck disable=SC2086
	ue_out=$("$FW" $ue_cmd --server http://127.0.0.1:1 2>&1)
	ue_rc=$?
	if [ "$ue_rc" = 2 ] && [ "$(tail -1 <<<"$ue_out")" = "run \`fairway $ue_help --help\` for usage" ]; then
		ok "usage-error-points-at-help: $ue_cmd"
	else
		bad "usage-error-points-at-help: $ue_cmd (exit $ue_rc)"; echo "$ue_out" | head -3
	fi
done
# a token file that is not there: the refusal says how to make one (before,
# only "No such file or directory")
TK=$(mktemp -d)
expect "serve-missing-token-file-says-how" 2 \
	"--token-file $TK/none: No such file or directory; write one of at least 16 characters, e.g. head -c 32" \
	timeout 20 "$FW" serve --state "$TK/st" --listen 127.0.0.1:0 --token-file "$TK/none"
expect "serve-missing-agent-token-file-says-how" 2 "--agent-token-file $TK/none: No such file or directory; write one" \
	timeout 20 "$FW" serve --state "$TK/st" --listen 127.0.0.1:0 --agent-token-file "$TK/none"
rm -rf "$TK"
HX=$(mktemp -d)
hx_line=$("$FW" sim run --help | grep -m1 '^  fairway sim run --trace synthetic ')
hx_fw=$(cd "$(dirname "$FW")" && pwd)/fairway
read -ra hx_args <<<"${hx_line#  fairway }"
if [ -n "$hx_line" ] && (cd "$HX" && "$hx_fw" "${hx_args[@]}" >out.txt 2>&1) &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [p["policy"] for p in d["policies"]] == ["fifo", "fairway"]' \
		"$HX/m.json"; then
	ok "help-sim-run-example-runs-as-written"
else
	bad "help-sim-run-example-runs-as-written ($hx_line)"; head -5 "$HX/out.txt" 2>/dev/null
fi
rm -rf "$HX"
expect "help-for-unknown-command" 2 "unknown command 'nosuch'" "$FW" help nosuch
expect "no-args-shows-usage" 2 "usage: fairway" "$FW"
expect "unknown-command" 2 "unknown command 'frobnicate'" "$FW" frobnicate
# an unknown command gets two lines on stderr, not the whole help; a
# near miss names the command it was probably meant to be
for c in "bogus|" "jbos| (did you mean 'jobs'?)"; do
	w=${c%%|*}
	"$FW" "$w" >"${TMPDIR:-/tmp}/fw-cli-uc.out" 2>"${TMPDIR:-/tmp}/fw-cli-uc.err"
	rc=$?
	if [ "$rc" = 2 ] && [ ! -s "${TMPDIR:-/tmp}/fw-cli-uc.out" ] &&
		[ "$(cat "${TMPDIR:-/tmp}/fw-cli-uc.err")" = "fairway: error: unknown command '$w'${c#*|}
run \`fairway --help\` for the commands" ]; then
		ok "unknown-command-$w-is-short"
	else
		bad "unknown-command-$w-is-short: exit $rc"; head -3 "${TMPDIR:-/tmp}/fw-cli-uc.err"
	fi
done
rm -f "${TMPDIR:-/tmp}/fw-cli-uc.out" "${TMPDIR:-/tmp}/fw-cli-uc.err"
# a word where only flags go is an unexpected argument, not an option
expect "plan-unexpected-argument" 2 "fairway plan: error: unexpected argument 'extra' (\`fairway plan\` takes only flags" \
	"$FW" plan extra
expect "policies-unexpected-argument" 2 "fairway policies: error: unexpected argument 'extra'" "$FW" policies extra
expect "serve-unexpected-argument" 2 "fairway serve: error: unexpected argument 'extra'" "$FW" serve extra
expect "client-unexpected-argument" 2 "fairway stats: error: unexpected argument 'extra'" "$FW" stats extra
expect "plan-help" 0 "--config FILE" "$FW" plan --help
expect "plan-unknown-flag" 2 "unknown option '--bogus'" "$FW" plan --bogus
expect "plan-missing-value" 2 "--config needs a value" "$FW" plan --config
expect "plan-unknown-policy" 2 "unknown policy 'nope'" "$FW" plan --policy nope
expect "plan-bad-now" 2 "not a whole number" "$FW" plan --now soon
# --now keeps to the YAML now:'s bounds (0..10^11 s): no negative, no saturation
expect "plan-negative-now" 2 '--now: "-1" is not a whole number of seconds; write seconds from 0 to 100000000000' "$FW" plan --now -1
expect "plan-huge-now" 2 '--now: "99999999999999999999" is too large; times are limited to 100000000000 seconds' \
	"$FW" plan --now 99999999999999999999
expect "plan-now-past-the-limit" 2 "is too large" "$FW" plan --now 100000000001
expect "plan-now-at-the-limit" 0 "now 100000000000 (5138-11-16T09:46:40Z)," "$FW" plan --now 100000000000
# --now is checked as the YAML now: is: no job submitted or started after it
expect "plan-now-checks-submit-times" 2 \
	'examples/cluster.yaml>:99:17: field jobs[3].submitTime: 1100 is after --now (1000); a snapshot holds the jobs submitted by now, so lower submitTime or raise --now' \
	"$FW" plan --now 1000
expect "plan-now-checks-start-times" 2 \
	'field jobs[0].startTime: 100 is after --now (50); a running job started between its submitTime and now, so lower startTime or raise --now' \
	"$FW" plan --now 50
expect "plan-now-after-every-job" 0 "now 5000," "$FW" plan --now 5000
# a snapshot whose now is a Unix time (a real date) writes its reasons'
# times as UTC dates, as the daemon does; virtual seconds stay "t=" (the
# scenario goldens keep theirs): tests/scenario/backfill_reservation.yaml
# moved by 1796567000 s, so its t=2000 and t=2500 are these dates
DT=$(mktemp -d)
sed -e 's/^now: 1000$/now: 1796568000/' -e 's/startTime: 900$/startTime: 1796567900/' \
	-e 's/startTime: 0$/startTime: 1796567000/' -e 's/submitTime: \([1-3]0\),/submitTime: 17965670\1,/' \
	tests/scenario/backfill_reservation.yaml >"$DT/dated.yaml"
expect "plan-dated-reserved-from-a-date" 0 \
	"reserved: nodes are held for it from 2026-12-06T14:56:40Z (in 16m40s)" "$FW" plan --config "$DT/dated.yaml" --json
expect "plan-dated-header-says-the-date" 0 "fairway plan: policy fairway, now 1796568000 (2026-12-06T14:40:00Z), 2 nodes" \
	"$FW" plan --config "$DT/dated.yaml"
if out=$("$FW" plan --config "$DT/dated.yaml" 2>&1) &&
	grep -Eq '^  big +team +16\.00 +2  2026-12-06T14:56:40Z  n0,n1$' <<<"$out" &&
	grep -Eq '^  JOB .* TASKS  AT {20}NODES$' <<<"$out"; then
	ok "plan-dated-reserved-at-a-date"
else
	bad "plan-dated-reserved-at-a-date"; grep -A3 '^RESERVED' <<<"$out"
fi
# the PENDING table's EXPECTED START column is as wide as a date and its
# wait: AHEAD stays a column of its own (it was 27 wide, a date's 30)
if out=$("$FW" plan --config "$DT/dated.yaml" 2>&1) &&
	grep -Eq '^  JOB +QUEUE +REASON +EXPECTED START {17}AHEAD  WHY$' <<<"$out" &&
	grep -Eq '^  big +team +has_reservation  2026-12-06T14:56:40Z \(\+16m40s\)     0  reserved' <<<"$out"; then
	ok "plan-dated-pending-columns-align"
else
	bad "plan-dated-pending-columns-align"; grep -A3 '^PENDING' <<<"$out"
fi
expect "plan-dated-due-at-a-date" 0 \
	"would delay the reservation of big (due at 2026-12-06T14:56:40Z)" "$FW" plan --config "$DT/dated.yaml"
if out=$("$FW" plan --config "$DT/dated.yaml" --json 2>&1) && ! grep -q 't=[0-9]' <<<"$out"; then
	ok "plan-dated-no-unix-seconds"
else
	bad "plan-dated-no-unix-seconds: $(grep -o 't=[0-9]*' <<<"$out" | head -3)"
fi
expect "plan-virtual-seconds-stay-t" 0 "reserved: nodes are held for it from t=2000 (in 16m40s)" \
	"$FW" plan --config tests/scenario/backfill_reservation.yaml --json
# the loader's refusals in a dated file name each time's UTC date beside
# its number, and so do those against a dated --now (before, "1796569000
# is after now (1796568000)"); virtual seconds keep the number alone
# (plan-now-checks-submit-times above)
sed 's/submitTime: 1796567030,/submitTime: 1796569000,/' "$DT/dated.yaml" >"$DT/late.yaml"
expect "plan-dated-refusal-names-dates" 2 \
	"field jobs[4].submitTime: 1796569000 (2026-12-06T14:56:40Z) is after now (1796568000, 2026-12-06T14:40:00Z); a snapshot holds the jobs submitted by now" \
	"$FW" plan --config "$DT/late.yaml"
expect "plan-dated-now-flag-refusal-names-dates" 2 \
	"field jobs[0].startTime: 1796567900 (2026-12-06T14:38:20Z) is after --now (1796567800, 2026-12-06T14:36:40Z); a running job started" \
	"$FW" plan --config "$DT/dated.yaml" --now 1796567800
expect "plan-help-says-dates" 0 'as UTC dates, "2026-12-06T16:42:05Z"' "$FW" plan --help
rm -rf "$DT"
# GNU-style --flag=value everywhere, and a bare flag refuses one
expect "plan-flag-equals-value" 0 "policy fifo" "$FW" plan --config=examples/cluster.yaml --policy=fifo
# the QUEUES table names its weight column as `fairway fairshare` does: the
# effective weight (after decayed usage) is EFF-WEIGHT, never a bare WEIGHT
if out=$("$FW" plan --config examples/cluster.yaml 2>&1) &&
	grep -qE '^  QUEUE .* DEMAND +EFF-WEIGHT$' <<<"$out" && ! grep -qE '(^| )WEIGHT( |$)' <<<"$out"; then
	ok "plan-queues-column-eff-weight"
else
	bad "plan-queues-column-eff-weight"; grep -A1 '^QUEUES' <<<"$out"
fi
expect "plan-empty-value" 2 "--config needs a value" "$FW" plan --config=
expect "plan-bare-flag-with-value" 2 "--json takes no value" "$FW" plan --json=yes
expect "client-server-equals" 1 "cannot reach http://127.0.0.1:1" "$FW" jobs --server=http://127.0.0.1:1
expect "client-own-flag-equals" 2 "--gpus needs a value" "$FW" jobs submit --queue=q --gpus=
expect "client-bare-flag-with-value" 2 "--json takes no value" "$FW" jobs --json=1
expect "serve-flag-equals-value" 2 "--period '0'" "$FW" serve --period=0
expect "policies-bare-flag-with-value" 2 "--json takes no value" "$FW" policies --json=1
expect "plan-missing-file" 2 "does-not-exist.yaml" "$FW" plan --config does-not-exist.yaml
expect "plan-default-runs" 0 "STARTED" "$FW" plan
# a job with no start time says why in the table too, once: the reason
# (topology, 32 free in the largest rack) and that no rack ever holds 64
expect "plan-why-says-never" 0 \
	"has 32 free; no start time: it needs 64 GPUs and this cluster can never hold it: at most 32" "$FW" plan
out=$("$FW" plan 2>&1)
if grep "^  inference-c " <<<"$out" | grep -qF "no start time"; then
	bad "plan-why-not-twice: over_quota repeated as its own estimate reason"
else
	ok "plan-why-not-twice"
fi
# a queue's GPU model limits in the plan's JSON; a job naming no model is
# kept to the model whose limits hold it
if "$FW" plan --config tests/fuzz/corpus/config/gpu_model_limits.yaml --json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert [q.get("gpuModelLimits") for q in d["queues"]] == [{"H100": 8.0}, {"A100": 4.0, "H100": 2.5}], d["queues"]
st = {x["job"]: x for x in d["decisions"] if x["kind"] == "start"}
assert st["any"]["tasks"][0]["node"] == "a0", st
'; then ok "plan-json-gpu-model-limits"; else bad "plan-json-gpu-model-limits"; fi
# deserved GPUs of a model: in the plan's JSON, and a claim evicts with
# its own reason; bad YAML names the line and says what to do
if "$FW" plan --config tests/fuzz/corpus/config/gpu_model_deserved.yaml --json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert [q.get("gpuModelDeserved") for q in d["queues"]] == [{"H100": 8.0, "A100": 8.0}, {"H100": 2.5}], d["queues"]
'; then ok "plan-json-gpu-model-deserved"; else bad "plan-json-gpu-model-deserved"; fi
expect "plan-model-reclaimed" 0 "model_reclaimed h" "$FW" plan --config tests/scenario/model_deserved.yaml
# a starving gang holds its queue's limit: small waits for big (limit_held),
# both named, expected once big ends (big at t=203000 for 5000 s)
expect "plan-limit-held-names-gang-and-queue" 0 \
	"small                capped         limit_held       t=208000 (+2h13m20s)            2  limit held: job big, a gang waiting past the starvation age, waits for room under the limit of queue capped; until it starts, no later job of that queue takes the room it waits for" \
	"$FW" plan --config tests/scenario/limit_held.yaml
expect "yaml-model-deserved-over-quota" 2 \
	"bad-gpu-model-deserved.yaml:4:65: field queues[0].gpuModelDeserved: the queue deserves 8 GPUs of these models, more than its quota of 4 GPUs (resources.gpu.quota); raise the quota or lower these" \
	"$FW" plan --config tests/fuzz/corpus/config/bad-gpu-model-deserved.yaml
expect "yaml-model-deserved-unknown-model" 2 \
	'field queues[0].gpuModelDeserved.H10: no node has GPU model "H10" (did you mean "H100"?), so this entry would guarantee nothing; fix the spelling (the nodes'"'"' models: H100)' \
	"$FW" plan --config <(printf 'nodes:\n  - {name: h0, gpus: 8, gpuModel: H100}\nqueues:\n  - {name: q, resources: {gpu: {quota: 8}}, gpuModelDeserved: {H10: 8}}\n')
# an unknown key names the valid key it is a typo of, then every valid key
expect "yaml-unknown-key-did-you-mean" 2 \
	'field nodes[0].gpuModl: unknown key "gpuModl" (did you mean "gpuModel"?); valid keys here: name, gpus, gpuModel,' \
	"$FW" plan --config <(printf 'nodes:\n  - {name: h0, gpus: 8, gpuModl: H100}\n')
expect "yaml-unknown-top-key-did-you-mean" 2 \
	'field queue: unknown key "queue" (did you mean "queues"?); valid keys here: ' \
	"$FW" plan --config <(printf 'queue:\n  - {name: q}\n')
# under a policy that does not reclaim the entries do nothing, and plan says so
expect "plan-model-deserved-inert-under-slurm" 0 \
	"fairway plan: note: policy slurm does not reclaim, so the queues' gpuModelDeserved change nothing in this plan (policies that reclaim: fairway, kai)" \
	"$FW" plan --config tests/scenario/model_deserved.yaml --policy slurm
if "$FW" plan --config tests/scenario/model_deserved.yaml 2>&1 | grep -q "fairway plan: note"; then
	bad "plan-model-deserved-no-note-under-fairway"
else
	ok "plan-model-deserved-no-note-under-fairway"
fi
# run-time limits: the job past its queue's maxRuntime ends first (FOR
# shows the limit), the one announcing a run past it gets a note, the
# JSON has each queue's own maxRuntime and the end's args [ran, limit]
expect "plan-time-limit-ends-a-job" 0 "sweep                research         8.00     1  time_limit      limit 2h00m" \
	"$FW" plan --config tests/scenario/time_limit.yaml
expect "plan-time-limit-note" 0 \
	"fairway plan: note: job tune announces a run of 5h00m, but its queue's run-time limit (maxRuntime) ends it after 2h00m; lower its runtime or raise the limit" \
	"$FW" plan --config tests/scenario/time_limit.yaml
# a limit shows to the second (100 s read "1m", 5399 s "1h29m59s")
expect "plan-time-limit-exact" 0 "sweep                research         8.00     1  time_limit      limit 1h29m59s" \
	"$FW" plan --config <(sed 's/maxRuntime: 2h}/maxRuntime: 5399}/' tests/scenario/time_limit.yaml)
expect "plan-time-limit-note-exact" 0 "ends it after 1h29m59s; lower its runtime" \
	"$FW" plan --config <(sed 's/maxRuntime: 2h}/maxRuntime: 5399}/' tests/scenario/time_limit.yaml)
expect "plan-time-limit-exact-minutes" 0 "time_limit      limit 1m40s" \
	"$FW" plan --config <(sed 's/maxRuntime: 2h}/maxRuntime: 100}/' tests/scenario/time_limit.yaml)
expect "plan-time-limit-exact-whole-minutes" 0 "time_limit      limit 2m " \
	"$FW" plan --config <(sed 's/maxRuntime: 2h}/maxRuntime: 120}/' tests/scenario/time_limit.yaml)
if "$FW" plan --config tests/scenario/time_limit.yaml --json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
q = {x["name"]: x.get("maxRuntime") for x in d["queues"]}
assert q == {"org": 86400, "research": 7200, "prod": None}, q
e = d["decisions"][0]
assert (e["kind"], e["job"], e["reason"], e["args"]) == ("timeout", "sweep", "time_limit", [7200, 7200]), e
assert "for" not in e, e
assert [x["job"] for x in d["decisions"] if x["kind"] == "start"] == ["eval"], d["decisions"]
'; then ok "plan-json-time-limit"; else bad "plan-json-time-limit"; fi
if "$FW" plan --config <(sed 's/, maxRuntime: [0-9a-z]*}/}/' tests/scenario/time_limit.yaml) 2>&1 |
	grep -q -e 'time_limit' -e 'fairway plan: note'; then
	bad "plan-no-limit-no-end"
else
	ok "plan-no-limit-no-end"
fi
expect "yaml-max-runtime-bad" 2 'field queues[0].maxRuntime: "-2h" is not a duration' \
	"$FW" plan --config tests/bad_input/bad_max_runtime.yaml
# a job's own maxRuntime: it ends at it, the note names whose limit, and
# without it the job that announces nothing cannot backfill
expect "plan-job-time-limit-ends-a-job" 0 "sweep                dev              8.00     1  time_limit      limit 1h00m" \
	"$FW" plan --config tests/scenario/job_time_limit.yaml
expect "plan-job-time-limit-note" 0 \
	"fairway plan: note: job probe announces a run of 2h00m, but its own run-time limit (maxRuntime) ends it after 30m; lower its runtime or raise the limit" \
	"$FW" plan --config <(sed 's/maxRuntime: 30m,/maxRuntime: 30m, expectedRuntime: 2h,/' tests/scenario/job_time_limit.yaml)
if "$FW" plan --config <(sed 's/, maxRuntime: 30m//' tests/scenario/job_time_limit.yaml) --json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert [x["job"] for x in d["decisions"] if x["kind"] == "start"] == [], d["decisions"]
e = d["decisions"][0]
assert (e["kind"], e["job"], e["reason"], e["args"]) == ("timeout", "sweep", "time_limit", [3600, 3600]), e
'; then ok "plan-job-limit-lets-backfill"; else bad "plan-job-limit-lets-backfill"; fi
# GPU-hour budgets: a queue that has used its budget starts nothing, says
# so, and the JSON has each queue's budget beside its decayed usage
expect "plan-budget-holds" 0 "crop                 vision         over_budget      unknown (over_budget)" \
	"$FW" plan --config tests/scenario/gpu_budget.yaml
if "$FW" plan --config tests/scenario/gpu_budget.yaml --json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
q = {x["name"]: (x.get("gpuHourBudget"), x["decayedUsageGpuHours"]) for x in d["queues"]}
assert q["vision"] == (1000.0, 1200.0) and q["research"] == (500.0, 600.0) and q["org"][0] is None, q
w = {x["name"]: (x["reason"], x["args"]) for x in d["pending"]}
assert w == {"crop": ("over_budget", [1200, 1000]), "asr": ("over_budget", [600, 500])}, w
assert [x["job"] for x in d["decisions"] if x["kind"] == "start"] == ["tok"], d["decisions"]
'; then ok "plan-json-budget"; else bad "plan-json-budget"; fi
if "$FW" plan --config <(sed 's/gpuHourBudget: [0-9]*, //' tests/scenario/gpu_budget.yaml) 2>&1 | grep -q over_budget; then
	bad "plan-no-budget-no-hold"
else
	ok "plan-no-budget-no-hold"
fi
expect "yaml-job-max-runtime-bad" 2 "field jobs[0].maxRuntime: \"30000d\" is 720000h00m (2592000000 s), too long; a job's maxRuntime is at most 2147483647 s (68 years), so lower it" \
	"$FW" plan --config tests/bad_input/bad_job_max_runtime.yaml
# without the entry nothing is evicted: the fair share gives no claim
if "$FW" plan --config <(grep -v 'gpuModelDeserved' tests/scenario/model_deserved.yaml) 2>&1 |
	grep -q -- '-> 0 started, 2 waiting'; then
	ok "plan-model-deserved-makes-the-claim"
else
	bad "plan-model-deserved-makes-the-claim"
fi
# a job requeued off an unhealthy node and started again elsewhere in the
# same plan is not counted as a pending job's start
# a trace given as the config: the YAML reason, and what the file is for
expect "plan-config-is-a-trace" 2 "sim_config_trace.csv:1:1: expected a mapping (key: value lines), got a single value; write it as indented \"key: value\" pairs (this looks like a trace, not a config: \`fairway plan --config\` reads a cluster's YAML, docs/config.md; replay a trace with \`fairway sim run --trace FILE\`)" \
	"$FW" plan --config tests/data/sim_config_trace.csv
# one pending job is "1 pending job" (config.md's complete example has one)
sed -n '/^## A complete example/,/^## /p' docs/config.md | sed -n '/^```yaml$/,/^```$/p' | sed '1d;$d' > "${TMPDIR:-/tmp}/fw-cli-cfgex.yaml"
expect "plan-config-md-example" 0 "fairway plan: policy fairway, now 3600, 18 nodes, 3 queues, 1 pending job -> 1 started, 0 waiting" \
	"$FW" plan --config "${TMPDIR:-/tmp}/fw-cli-cfgex.yaml"
rm -f "${TMPDIR:-/tmp}/fw-cli-cfgex.yaml"
expect "plan-drained-job-started-again" 0 "2 pending jobs -> 1 started, 1 waiting (0 with a reservation); 1 running job evicted and started again elsewhere" \
	"$FW" plan --config tests/scenario/health_drain.yaml
expect "policies" 0 "fifo" "$FW" policies
# its --json is an object as every listing's, and the help's jq example reads it so
expect "policies-help-json-example" 0 "fairway policies --json | jq '.policies[] | {name, reserveDepth}'" \
	"$FW" policies --help
expect "plan-help-names-server" 0 "fairway plan --server URL" "$FW" plan --help
expect "plan-server-equals-goes-to-the-daemon" 1 "cannot reach http://127.0.0.1:1" "$FW" plan --server=http://127.0.0.1:1
expect "policies-unknown-flag-after-json" 2 "unknown option '--bogus'" "$FW" policies --json --bogus
# The API client checks every word before it sends anything: these fail
# with exit 2 and no server running (a flag it ignored would reach curl).
expect "client-unknown-flag" 2 "unknown option '--bogus' for \`fairway queues list\`" "$FW" queues --bogus
expect "client-unknown-flag-submit" 2 "unknown option '--gpu' for \`fairway jobs submit\`" \
	"$FW" jobs submit --queue q --gpu 8
expect "client-missing-value" 2 "--gpus needs a value" "$FW" jobs submit --queue q --gpus
expect "client-server-missing-value" 2 "--server needs a value" "$FW" plan --server
# every number flag is checked against the daemon's range before anything
# is sent, the range in plain digits (the flags refuse 1e+06)
expect "client-deserved-gpus-negative" 2 "fairway queues: error: --deserved-gpus -5: must be from 0 to 1000000" \
	"$FW" queues set llm --deserved-gpus -5 --server http://127.0.0.1:1
expect "client-deserved-gpus-too-many" 2 "--deserved-gpus 1000000.5: must be from 0 to 1000000" \
	"$FW" queues set llm --deserved-gpus 1000000.5 --server http://127.0.0.1:1
expect "client-limit-gpus-negative" 2 "--limit-gpus -1: must be from 0 to 1000000" \
	"$FW" queues create q2 --limit-gpus -1 --server http://127.0.0.1:1
expect "client-weight-negative" 2 "--weight -0.5: must be from 0 to 1000000" \
	"$FW" queues set llm --weight -0.5 --server http://127.0.0.1:1
expect "client-cpu-negative" 2 "fairway jobs: error: --cpu -1: must be from 0 to 10000000" \
	"$FW" jobs submit --queue q --gpus 1 --cpu -1 --server http://127.0.0.1:1
expect "client-gpu-fraction-range" 2 "--gpu-fraction 0: must be from 0.001 to 1" \
	"$FW" jobs submit --queue q --gpus 1 --gpu-fraction 0 --server http://127.0.0.1:1
echo 0123456789abcdef0123 >"${TMPDIR:-/tmp}/fw-cli-token"
expect "client-deserved-gpus-in-range-is-sent" 1 "cannot reach http://127.0.0.1:1" \
	"$FW" queues set llm --deserved-gpus 1000000 --weight 0.5 --server http://127.0.0.1:1 --token-file "${TMPDIR:-/tmp}/fw-cli-token"
rm -f "${TMPDIR:-/tmp}/fw-cli-token"
# --server is the daemon's base URL: a trailing / or /v1 is dropped (the
# paths sent begin with /v1/ themselves; serve_api.sh sends them)
expect "client-server-trailing-v1-dropped" 1 "cannot reach http://127.0.0.1:1:" "$FW" jobs --server http://127.0.0.1:1/v1/
expect "client-help-server-base" 0 "(a trailing / or /v1 is dropped)" "$FW" jobs --help
expect "client-server-too-long" 2 "is too long (at most 1023 bytes); give the daemon's base URL (--server URL or \$FAIRWAY_SERVER)" \
	env FAIRWAY_SERVER="http://$(printf '%01100d' 0)" "$FW" jobs
expect "client-plan-server-with-now" 2 \
	"--now cannot be combined with --server (the daemon's plan is at its own clock)" \
	"$FW" plan --server http://127.0.0.1:1 --now 5
expect "client-plan-server-with-config" 2 "--config cannot be combined with --server" \
	"$FW" plan --config examples/cluster.yaml --server http://127.0.0.1:1
expect "client-plan-server-unknown-flag" 2 "unknown option '--bogus' for \`fairway plan\`" \
	"$FW" plan --server http://127.0.0.1:1 --bogus
expect "plan-help-now-not-with-server" 0 "not with" "$FW" plan --help
# the daemon's plan narrowed (GET /v1/plan?kind=&queue=&job=&node=&limit=):
# its flags are checked before anything is sent, and a plan of its own
# takes none of them
expect "client-plan-filter-typo" 2 "unknown option '--kidn' for \`fairway plan\` (did you mean '--kind'?)" \
	"$FW" plan --server http://127.0.0.1:1 --kidn start
expect "client-plan-filter-needs-a-value" 2 "--node needs a value" "$FW" plan --server http://127.0.0.1:1 --node
expect "client-plan-filters-reach-the-server" 1 "cannot reach http://127.0.0.1:1" \
	"$FW" plan --server http://127.0.0.1:1 --kind evict,drain --queue q --job j --node n0 --limit 5
expect "plan-filter-without-server" 2 \
	"--kind narrows a running daemon's plan: give --server URL too (a plan of its own: fairway plan --json, then filter that)" \
	"$FW" plan --kind start
expect "plan-limit-without-server" 2 "--limit narrows a running daemon's plan: give --server URL too" \
	"$FW" plan --config examples/cluster.yaml --limit 3
expect "plan-help-filters" 0 "--node N        only the decisions that name node N (no waiting job)" "$FW" plan --help
expect "client-help-plan-filters" 0 "--kind start,evict,reserve,drain,timeout,pending" "$FW" plan --server http://127.0.0.1:1 --help
# Each client command's --help is its own (as squeue --help is squeue's):
# its usage line alone, its own flags, none of another command's, and a
# last line pointing at `fairway help` for the rest.
for cfo in "queues --deserved-gpus --array" "jobs --array --deserved-gpus" "nodes --bad-gpus --gpu-hour-budget" \
	"reservations --start --health" "fairshare explain --bad-gpus" "decisions --since --deserved-gpus" \
	"stats sdiag --since" "plan --node --deserved-gpus"; do
	read -r c own other <<<"$cfo"
	srv=() # plan without --server is a cycle of its own, with its own help (checked above)
	[ "$c" = plan ] && srv=(--server http://127.0.0.1:1)
	h=$("$FW" "$c" "${srv[@]}" --help 2>&1)
	if [ "$(grep -c '^usage: fairway' <<<"$h")" = 1 ] && grep -q "^usage: fairway $c" <<<"$h" &&
		grep -qF -- "$own" <<<"$h" && ! grep -qF -- "$other" <<<"$h" &&
		[ "$(tail -1 <<<"$h")" = 'run `fairway help` for the other commands' ] &&
		grep -qF -- "--server URL" <<<"$h"; then
		ok "client-help-$c-is-its-own"
	else
		bad "client-help-$c-is-its-own (own $own, not $other)"; head -3 <<<"$h"
	fi
done
# Each jobs subcommand's --help is its own: its usage line alone, its own
# flags and none of another subcommand's, an example, what it prints, and
# the common flags; `fairway help jobs SUB` is the same.
for sfo in "submit --array --reason" "list --reason --gpu-fraction" "show array --gpu-fraction" \
	"why run-time --gpu-fraction" "cancel cancelled --reason"; do
	read -r sub own other <<<"$sfo"
	h=$("$FW" jobs "$sub" --help 2>&1)
	u=$([ "$sub" = why ] && echo show || echo "$sub")
	if [ "$(grep -c '^usage: fairway' <<<"$h")" = 1 ] && grep -q "^usage: fairway jobs $u" <<<"$h" &&
		grep -qF -- "$own" <<<"$h" && ! grep -qF -- "$other" <<<"$h" && grep -q '^examples:' <<<"$h" &&
		grep -q "^  fairway jobs $sub" <<<"$h" && grep -q '^what .*prints' <<<"$h" && grep -qF -- "--server URL" <<<"$h" &&
		[ "$(tail -1 <<<"$h")" = 'run `fairway help` for the other commands' ] &&
		[ "$h" = "$("$FW" help jobs "$sub" 2>&1)" ]; then
		ok "client-help-jobs-$sub-is-its-own"
	else
		bad "client-help-jobs-$sub-is-its-own (own $own, not $other)"; head -3 <<<"$h"
	fi
done
expect "client-help-jobs-submit-numbers" 0 "also take a DURATION: 90s, 10m, 2h, 1d" "$FW" jobs submit --help
expect "client-help-jobs-list-array" 0 "--array NAME: the tasks of job array NAME only" "$FW" jobs list --help
expect "client-help-jobs-list-after-flags" 0 "usage: fairway jobs list" "$FW" jobs list --queue llm --help
expect "client-help-jobs-server-value-is-no-sub" 0 "usage: fairway jobs [list" "$FW" jobs --server list --help
expect "client-help-jobs-points-at-sub-help" 0 "fairway jobs SUB --help" "$FW" jobs --help
expect "client-jobs-list-array-needs-a-value" 2 "--array needs a value" "$FW" jobs list --array
expect "client-help-jobs-array" 0 "[--array 0-99]  (a job array, as sbatch --array" "$FW" jobs --help
expect "client-help-jobs-cancel-array" 0 "an array's name: all its live tasks" "$FW" jobs --help
expect "help-overview-kept" 0 "help [CMD]  this help, or a command's" "$FW" help
expect "client-jobs-reason-needs-a-value" 2 "--reason needs a value" "$FW" jobs list --reason
expect "client-jobs-reason-typo" 2 "unknown option '--reasons' for \`fairway jobs list\` (did you mean '--reason'?)" \
	"$FW" jobs list --reasons gpu_model
expect "client-help-jobs-reason" 0 "--reason R,...: the jobs whose reason is one of these" "$FW" jobs --help
# The plan's text tables for evictions and drains (the goldens read the
# JSON): who is evicted, why, for whom, the work it loses and where.
rows() { "$FW" plan --config "$1" 2>&1 | tr -s ' '; }
if rows tests/scenario/reclaim_checkpoint.yaml | grep -qx ' old team-a 8.00 1 reclaimed b 5m n0' &&
	rows tests/scenario/reclaim_checkpoint.yaml | grep -qx 'EVICTED (1)'; then
	ok "plan-table-evicted"
else
	bad "plan-table-evicted"; rows tests/scenario/reclaim_checkpoint.yaml | head -8
fi
# the NODES cell names each node once, with its count of tasks when more
# than one ("h100-009×2", not the name twice); --json still lists every
# task with its node
nd=$(mktemp)
cat >"$nd" <<'EOF'
nodes: [{name: h100-009, gpus: 8}, {name: h100-010, gpus: 8}]
queues: [{name: q}]
jobs:
  - {name: spread, queue: q, tasks: [{count: 3, gpus: 4}]}
  - {name: one, queue: q, tasks: [{count: 1, gpus: 2}]}
EOF
if "$FW" plan --config "$nd" | grep -qx '  spread  *q  *12.00  *3  h100-009×2,h100-010' &&
	"$FW" plan --config "$nd" | grep -qx '  one  *q  *2.00  *1  h100-010' &&
	[ "$("$FW" plan --config "$nd" --json | python3 -c 'import json,sys
print(",".join(t["node"] for d in json.load(sys.stdin)["decisions"] if d["job"] == "spread" for t in d["tasks"]))')" = \
		h100-009,h100-009,h100-010 ]; then
	ok "plan-nodes-once-with-their-task-count"
else
	bad "plan-nodes-once-with-their-task-count"; "$FW" plan --config "$nd" | sed -n '/STARTED/,/^$/p'
fi
rm -f "$nd"
# scheduler.checkpointGrace: b waits for old's checkpoint at t=40300 (the
# golden reclaim_at_checkpoint.json); a plan after it evicts old, which
# then loses one minute of work instead of 25
cg=$(mktemp)
sed 's/^now: 40000$/now: 40360/' tests/scenario/reclaim_at_checkpoint.yaml >"$cg"
if rows tests/scenario/reclaim_at_checkpoint.yaml | grep -q 'b team-b checkpoint_wait t=40300 (+5m) 0 it takes the GPUs of job old' &&
	rows "$cg" | grep -qx ' old team-a 8.00 1 reclaimed b 1m n0'; then
	ok "plan-checkpoint-wait-then-evict"
else
	bad "plan-checkpoint-wait-then-evict"; rows "$cg" | head -8
fi
rm -f "$cg"
expect "plan-checkpoint-grace-too-long" 2 \
	"field scheduler.checkpointGrace: the grace must be at most 1d" \
	"$FW" plan --config <(sed 's/checkpointGrace: 10m/checkpointGrace: 25h/' tests/scenario/reclaim_at_checkpoint.yaml)
# tasks[i].slice: each slice of a group inside one domain (the golden
# slices.json); without its slices, replicas bin-packs like flat and a
# task of it leaves its rack; bad slices are errors at their line
sl=$(mktemp)
sed 's/, slice: {size: 4, required: rack}//' tests/scenario/slices.yaml >"$sl"
if rows tests/scenario/slices.yaml | grep -qx ' replicas train 32.00 8 r1n1,r1n2,r1n3,r1n4,r2n0,r2n1,r2n2,r2n3' &&
	rows "$sl" | grep -qx ' replicas train 32.00 8 r1n1,r1n2,r1n3,r1n4,r1n5,r2n0,r2n1,r2n2'; then
	ok "plan-slices-keep-each-slice-in-a-rack"
else
	bad "plan-slices-keep-each-slice-in-a-rack"; rows "$sl" | head -8
fi
rm -f "$sl"
expect "plan-slices-reason" 0 \
	"late                 train          slices           t=8200 (+2h00m)                 0  slices: it needs 1 slice of 3 tasks, each inside one rack, and the racks have room for 0 slices now" \
	"$FW" plan --config tests/scenario/slices.yaml
expect "plan-slice-size-must-divide-count" 2 \
	":47:48: field jobs[2].tasks[0].slice.size: slices of 2 tasks for a group of 3; make count a multiple of size" \
	"$FW" plan --config <(sed 's/size: 3, required: rack/size: 2, required: rack/' tests/scenario/slices.yaml)
expect "plan-slice-no-domain-holds" 2 \
	":45:48: field jobs[1].tasks[0].slice.size: a slice of 8 tasks must fit inside one rack, and the largest rack holds 6 of these tasks (by its GPUs); lower size or name a larger level" \
	"$FW" plan --config <(sed 's/size: 4, required: rack/size: 8, required: rack/' tests/scenario/slices.yaml)
expect "plan-slice-needs-its-level" 2 \
	'field jobs[2].tasks[0].slice.required: missing required key "required"' \
	"$FW" plan --config <(sed 's/size: 3, required: rack/size: 3/' tests/scenario/slices.yaml)
expect "plan-slice-unknown-level" 2 \
	'field jobs[2].tasks[0].slice.required: unknown topology level "nvl"; use "node" or a level from topology.levels: block, rack' \
	"$FW" plan --config <(sed 's/size: 3, required: rack/size: 3, required: nvl/' tests/scenario/slices.yaml)
# EASY backfill (slurm) reserves for one job: the next one, which would fit
# now but run past that reservation, waits and names it
expect "plan-reason-reserved-names-the-job" 0 \
	"long                 team           reserved         t=2500 (+25m)                   1  it fits now but would delay the reservation of big (due at t=2000)" \
	"$FW" plan --config tests/scenario/backfill_reservation.yaml --policy slurm
if rows tests/scenario/health_drain.yaml | grep -qx 'DRAINED NODES (1)' &&
	rows tests/scenario/health_drain.yaml | grep -q '^ n0 drain: node "n0" is unhealthy; its 1 running job is evicted and requeued$' &&
	rows tests/scenario/health_drain.yaml | grep -qx ' trainer team 8.00 2 drained n0 1m n0,n1'; then
	ok "plan-table-drained"
else
	bad "plan-table-drained"; rows tests/scenario/health_drain.yaml | head -12
fi
expect "client-extra-word" 2 "unexpected argument 'b' after jobs why" "$FW" jobs why a b
expect "client-stats-extra-word" 2 "unexpected argument 'now'" "$FW" stats now
expect "client-me-and-user" 2 "--me and --user bob: give one of them" "$FW" jobs list --me --user bob
expect "client-me-takes-no-value" 2 "--me takes no value" "$FW" jobs list --me=alice
expect "client-fairshare-unknown-subcommand" 2 "unknown subcommand 'x'" "$FW" fairshare x
expect "client-fairshare-explain-one-name" 2 "unexpected argument 'b' after fairshare explain" "$FW" fairshare explain a b
expect "client-unknown-subcommand" 2 "unknown subcommand 'frob'" "$FW" nodes frob
# a mistyped flag is named with the flag it was probably meant to be
expect "hint-sim-run" 2 "unknown option '--polices' (did you mean '--policies'?)" "$FW" sim run --polices fifo
expect "hint-plan" 2 "unknown option '--jsn' (did you mean '--json'?)" "$FW" plan --jsn
expect "hint-serve" 2 "unknown option '--listn' (did you mean '--listen'?)" "$FW" serve --listn 127.0.0.1:1
expect "hint-client" 2 "unknown option '--gpu' for \`fairway jobs submit\` (did you mean '--gpus'?)" \
	"$FW" jobs submit --queue q --gpu 8
expect "hint-fgd" 2 "unknown option '--sedes' (did you mean '--seeds'?)" "$FW" sim fgd --sedes 42
expect "hint-command" 2 "unknown command 'jbos' (did you mean 'jobs'?)" "$FW" jbos
expect "hint-subcommand" 2 "unknown subcommand 'lsit' (did you mean 'list'?)" "$FW" jobs lsit
# a Slurm user's word (scontrol hold, drain, sacctmgr modify) is answered with
# what does it here, not as a job or node named so ("fairway jobs show hold")
expect "slurm-word-jobs-hold" 2 "unknown subcommand 'hold': fairway holds no job (scontrol hold): a job waits until it starts or is cancelled; to keep one from starting, \`fairway jobs cancel NAME\` and submit it again later" \
	"$FW" jobs hold job-1
expect "slurm-word-help-jobs-hold" 2 "unknown subcommand 'hold': fairway holds no job" "$FW" help jobs hold
expect "slurm-word-jobs-release" 2 "unknown subcommand 'release': fairway holds no job, so there is none to release" \
	"$FW" jobs release job-1
expect "slurm-word-nodes-drain" 2 "\`fairway nodes health NAME --unhealthy --reason R\` (its running jobs are requeued), or \`fairway reservations create --kind maintenance --nodes NAME --start +0s --end +4h\`" \
	"$FW" nodes drain h100-000
expect "slurm-word-nodes-resume" 2 "\`fairway nodes health NAME --healthy\`" "$FW" nodes resume h100-000
expect "slurm-word-queues-modify" 2 "unknown subcommand 'modify': \`fairway queues set NAME --FLAG V\` changes only the flags given" \
	"$FW" queues modify llm --weight 2
expect "slurm-word-reservations-update" 2 "\`fairway reservations delete ID\` and create it again" \
	"$FW" reservations update rsv-1
expect "slurm-word-jobs-kill" 2 "\`fairway jobs cancel NAME...\` ends jobs, as scancel" "$FW" jobs kill job-1
expect "unknown-word-still-a-name" 2 "unknown subcommand 'frob' (for the one named so: \`fairway jobs show frob\`)" "$FW" jobs frob
expect "hint-experiment" 2 "unknown experiment 'rn' (did you mean 'run'?)" "$FW" sim rn
expect "hint-policy" 2 "unknown policy 'slrum' (did you mean 'slurm'?)" "$FW" plan --policy slrum
expect "hint-serve-policy" 2 "--policy 'slrum': unknown policy (did you mean 'slurm'?)" \
	"$FW" serve --policy slrum --state /nonexistent/fairway-state
expect "hint-sim-policy" 2 "unknown policy 'fairwya' (did you mean 'fairway'?); known: fairway fifo slurm kai" \
	"$FW" sim run --trace synthetic:3 --nodes 2x8 --policies fairwya
out=$("$FW" plan --frobnicate 2>&1)
grep -qF "unknown option '--frobnicate'" <<<"$out" && ! grep -q "did you mean" <<<"$out" &&
	ok "hint-none-when-far" || bad "hint-none-when-far: $out"
# fairway help CMD SUB: SUB must be one of CMD's subcommands (exit 2,
# naming the word, the near one, and CMD's list); a command without
# subcommands takes none
expect "help-unknown-subcommand" 2 \
	"fairway jobs: error: unknown subcommand 'nosuch'; \`fairway jobs\` has: list, submit, show, why, cancel" \
	"$FW" help jobs nosuch
expect "help-unknown-subcommand-hint" 2 "unknown subcommand 'sumbit' (did you mean 'submit'?); \`fairway jobs\` has:" \
	"$FW" help jobs sumbit
expect "help-unknown-subcommand-as-flag" 2 "unknown subcommand 'nosuch'; \`fairway queues\` has: list, show, delete, set, create" \
	"$FW" queues nosuch --help
for c in nodes reservations fairshare; do
	expect "help-$c-unknown-subcommand" 2 "unknown subcommand 'nosuch'; \`fairway $c\` has: list" "$FW" help $c nosuch
done
# a command without subcommands: --help wins over the words beside it, as
# plan's, serve's and sacct2fairway's (help_same below checks each form)
expect "help-stats-ignores-a-word" 0 "usage: fairway stats" "$FW" help stats nosuch
expect "help-decisions-ignores-a-word" 0 "usage: fairway decisions" "$FW" help decisions x
expect "help-plan-server-ignores-a-word" 0 "usage: fairway plan --server URL" "$FW" help plan --server http://127.0.0.1:1 x
expect "help-help-nosuch" 2 "unknown command 'nosuch'" "$FW" help help nosuch
expect "help-help-jobs" 0 "usage: fairway jobs" "$FW" help help jobs
# a known subcommand, and a flag's value before it, still give the help
expect "help-jobs-submit" 0 "usage: fairway jobs submit" "$FW" help jobs submit
expect "help-jobs-show-name" 0 "usage: fairway jobs show NAME" "$FW" help jobs show job-1
expect "help-after-list-flag-value" 0 "usage: fairway jobs [list" "$FW" jobs --state all --help
expect "help-after-list-flag-value-eq" 0 "usage: fairway jobs [list" "$FW" jobs --state=all --server=http://127.0.0.1:1 --help
# --help anywhere on the line is the help of the deepest command the line
# names, before or after it: every form of `X --help Y`, `X Y --help`,
# `help X Y` and `--help X Y` prints the same text (exit 0); an unknown
# subcommand is refused in every form (exit 2, with the near one)
help_same() { # help_same NAME USAGE-LINE FORM...: each form (a quoted line) prints the first's text
	local name=$1 want=$2 first="" h rc
	shift 2
	for f in "$@"; do
		h=$(eval "\"\$FW\" $f" 2>&1); rc=$?
		[ -z "$first" ] && first=$h
		if [ "$rc" -ne 0 ] || [ "$(head -1 <<<"$h")" != "$want" ] || [ "$h" != "$first" ]; then
			bad "$name: \`fairway $f\` exit $rc: $(head -1 <<<"$h")"; return
		fi
	done
	ok "$name"
}
for sub in submit list show why cancel; do
	u=$("$FW" jobs "$sub" --help | head -1)
	help_same "help-anywhere-jobs-$sub" "$u" "jobs $sub --help" "jobs --help $sub" "help jobs $sub" \
		"--help jobs $sub" "jobs -h $sub" "--server http://127.0.0.1:1 jobs --help $sub" "help help jobs $sub"
done
help_same "help-anywhere-jobs-show-name" "usage: fairway jobs show NAME | fairway jobs why NAME" \
	"jobs show job-1 --help" "jobs --help show job-1" "help jobs show job-1"
for c in queues nodes reservations fairshare; do
	for sub in $(sed -n "s/^\t{ \"$c\", \"\([a-z]*\)\".*/\1/p" tools/cmd_client.c); do
		help_same "help-anywhere-$c-$sub" "$("$FW" "$c" --help | head -1)" "$c $sub --help" "$c --help $sub" \
			"help $c $sub" "--help $c $sub"
	done
done
help_same "help-anywhere-sim-run" "usage: fairway sim run --trace FILE [options]" "sim run --help" "sim --help run" \
	"help sim run" "--help sim run" "sim run --trace x.csv --help"
help_same "help-anywhere-sim-fgd" "$("$FW" sim fgd --help | head -1)" "sim fgd --help" "sim --help fgd" "help sim fgd"
help_same "help-anywhere-trace-sacct2fairway" "$("$FW" trace sacct2fairway --help | head -1)" \
	"trace sacct2fairway --help" "trace --help sacct2fairway" "help trace sacct2fairway" \
	"help trace sacct2fairway x" "trace sacct2fairway x y --help" "trace sacct2fairway --no-gpu-model --help"
# every help's first word is a lower-case "usage:"; `fairway trace --help`
# is the command's own help, as `fairway sim --help` is sim's: it lists
# its subcommands and what each does (before, it printed sacct2fairway's
# usage as if that were all), and sacct2fairway's help is its own, whole
expect "help-sim-fgd-lower-case-usage" 0 "usage: fairway sim fgd --pods FILE" "$FW" sim fgd --help
expect "help-trace-is-the-command-s-own" 0 "usage: fairway trace <subcommand> [options]" "$FW" trace --help
tr_help=$("$FW" trace --help)
tr_subs=$(sed -n '/^subcommands:$/,/^$/p' <<<"$tr_help" | grep -E '^  [a-z]' | awk '{print $1}' | tr '\n' ' ')
tr_known=$(sed -n 's/.*static const char \*const subs\[\] = { \(.*\), NULL };/\1/p' tools/fairway.c | tr -d '",' | tr -s ' ')
if [ -n "$tr_subs" ] && [ "$tr_subs" = "$tr_known " ] &&
	[ "$(sed -n '/^subcommands:$/,/^$/p' <<<"$tr_help" | grep -c 'convert Slurm')" = 1 ] &&
	! grep -q '^usage: fairway trace sacct2fairway' <<<"$tr_help"; then
	ok "help-trace-lists-its-subcommands-and-what-each-does"
else
	bad "help-trace-lists-its-subcommands-and-what-each-does: listed '$tr_subs', the dispatcher's '$tr_known'"
fi
expect "help-trace-sacct2fairway-keeps-its-full-text" 0 "SACCT_FILE is what this prints (columns are found by name, any order):" \
	"$FW" trace sacct2fairway --help
if [ "$("$FW" trace sacct2fairway --help | head -1)" = \
	"usage: fairway trace sacct2fairway [--no-gpu-model] [--time-limits] [--json] SACCT_FILE OUT.csv|-" ] &&
	[ "$("$FW" trace sacct2fairway --help)" != "$tr_help" ] &&
	! "$FW" sim fgd --help | grep -q 'Usage:' && ! "$FW" --help | grep -q ' IN OUT'; then
	ok "help-trace-sacct2fairway-usage-line"
else
	bad "help-trace-sacct2fairway-usage-line: $("$FW" trace sacct2fairway --help | head -1)"
fi
help_same "help-anywhere-plan-server" "$("$FW" plan --server http://127.0.0.1:1 --help | head -1)" \
	"plan --server http://127.0.0.1:1 --help" "--server http://127.0.0.1:1 plan --help" \
	"help plan --server http://127.0.0.1:1" "plan --help --server=http://127.0.0.1:1"
expect "help-anywhere-unknown-jobs-sub" 2 "unknown subcommand 'sbumit' (did you mean 'submit'?)" "$FW" jobs --help sbumit
expect "help-anywhere-unknown-jobs-sub-front" 2 "unknown subcommand 'sbumit' (did you mean 'submit'?)" \
	"$FW" --help jobs sbumit
expect "help-anywhere-unknown-sim-sub" 2 "unknown experiment 'rn' (did you mean 'run'?)" "$FW" sim --help rn
expect "help-anywhere-unknown-trace-sub" 2 "unknown subcommand 'sact2fairway' (did you mean 'sacct2fairway'?)" \
	"$FW" trace --help sact2fairway
expect "help-anywhere-unknown-command" 2 "unknown command 'jbos' (did you mean 'jobs'?)" "$FW" --help jbos submit
for c in stats decisions policies serve plan; do
	help_same "help-anywhere-$c-word" "$("$FW" $c --help | head -1)" "$c --help" "$c --help x" "$c x --help" \
		"help $c x" "--help $c x y" "$c --help --json x"
done
help_same "help-anywhere-plan-server-word" "$("$FW" plan --server http://127.0.0.1:1 --help | head -1)" \
	"plan --server http://127.0.0.1:1 --help" "plan --server http://127.0.0.1:1 --help x" "plan --server http://127.0.0.1:1 x --help"
for c in "sim run" "sim fgd"; do
	help_same "help-anywhere-${c/ /-}-word" "$("$FW" $c --help | head -1)" "$c --help" "$c --help x" "$c x --help" "help $c x"
done
# the client's shared flags before the command are as good as after it
# (a port nobody listens on: the flag reached the client)
expect "shared-flags-before-command-server" 1 "cannot reach http://127.0.0.1:1:" \
	"$FW" --server http://127.0.0.1:1 jobs list
expect "shared-flags-before-command-eq" 1 "fairway nodes: error: cannot reach http://127.0.0.1:1:" \
	"$FW" --server=http://127.0.0.1:1 --json nodes
expect "shared-flags-before-plan" 1 "fairway plan: error: cannot reach http://127.0.0.1:1:" \
	"$FW" --server http://127.0.0.1:1 plan
expect "shared-flags-before-command-token" 2 "cannot read the token from /nonexistent/tok" \
	"$FW" --token-file /nonexistent/tok --server http://127.0.0.1:1 jobs cancel x
expect "shared-flags-before-command-checked-as-after" 2 "unknown subcommand 'lsit' (did you mean 'list'?)" \
	"$FW" --json jobs lsit
expect "shared-flag-json-before-local-plan" 0 '"policy": "fairway"' "$FW" --json plan
expect "shared-flag-needs-a-value" 2 "fairway: error: --server needs a value, then the command" "$FW" --server
expect "shared-flags-then-no-command" 2 "missing the command after the flags" "$FW" --json
expect "other-flag-before-command" 2 \
	"fairway: error: option '--config' before the command: only the flags every client command takes (--server URL, --token-file FILE, --json) may come before it; a command's own flags go after it: fairway plan --config ..." \
	"$FW" --config x.yaml plan
expect "near-shared-flag-before-command" 2 "unknown option '--sever' before the command (did you mean '--server'?)" \
	"$FW" --sever http://127.0.0.1:1 jobs
expect "shared-flag-before-a-local-command" 2 "--json before \`policies\`: only the client commands" "$FW" --json policies
expect "help-still-first" 0 "usage: fairway <command>" "$FW" --help
expect "version-still-first" 0 "fairway 0." "$FW" --version
expect "help-after-shared-flags" 0 "usage: fairway <command>" "$FW" --json --help
# a name where the subcommand goes (as `kubectl get node X` would read):
# the error shows the command for that name
expect "client-name-as-subcommand-shows-the-command" 2 "(for the one named so: \`fairway nodes show h100-000\`)" \
	"$FW" nodes h100-000
expect "client-subcommand-after-flags" 2 "'submit' goes before its flags" "$FW" jobs --state running submit
# jobs cancel of several names stops at the first token error, or at no daemon: said once, not per name
cx_once() { # NAME EXIT PATTERN TOKEN-FILE
	local out rc
	out=$(env -u FAIRWAY_TOKEN_FILE "$FW" jobs cancel job-1 job-2 job-3 --server http://127.0.0.1:1 --token-file "$4" 2>&1)
	rc=$?
	if [ "$rc" = "$2" ] && [ "$(grep -c -- "$3" <<<"$out")" = 1 ] && [ "$(wc -l <<<"$out")" = 1 ]; then
		ok "$1"
	else
		bad "$1: exit $rc: $out"
	fi
}
cx_once "client-cancel-no-token-said-once" 2 "cannot read the token from /nonexistent/token" /nonexistent/token
CX_TOK=$(mktemp)
echo token >"$CX_TOK"
cx_once "client-cancel-no-daemon-said-once" 1 "cannot reach http://127.0.0.1:1" "$CX_TOK"
rm -f "$CX_TOK"
expect "client-flag-of-another-subcommand" 2 "unknown option '--reason' for \`fairway jobs cancel\`" \
	"$FW" jobs cancel j1 --reason x
expect "client-fraction-of-whole-flag" 2 "--gpus 0.5: must be a whole number; for a fraction of a GPU use --gpus 1 --gpu-fraction" \
	"$FW" jobs submit --queue q --gpus 0.5
expect "client-fraction-not-rounded" 2 "--gpus 1.9: must be a whole number" "$FW" jobs submit --queue q --gpus 1.9
expect "client-fraction-count" 2 "--count 2.5: must be a whole number" "$FW" jobs submit --queue q --gpus 1 --count 2.5
expect "client-slice-not-size-level" 2 "--slice: '4' is not SIZE:LEVEL (tasks per slice, 1..100000, and the topology level each slice keeps inside, or node), e.g. --slice 4:nvlink" \
	"$FW" jobs submit --queue q --gpus 4 --count 8 --slice 4
expect "client-slice-zero" 2 "--slice: '0:rack' is not SIZE:LEVEL" "$FW" jobs submit --queue q --gpus 4 --count 8 --slice 0:rack
expect "client-slice-in-help" 0 "[--slice 4:nvlink]" "$FW" jobs --help
# the API's job fields each have a flag, listed with what it does; --file takes every field
for f in "[--priority P]  (higher starts first within its queue" "[--no-preemptible]  (never evicted to make room" \
	"--preemptible, as the API's: it may be evicted" "[--spread]  (its tasks on the emptiest nodes" \
	"[--min-member N]  (elastic: it starts with at least N of" "[--preferred-level rack]  (best effort" \
	"the job as the API takes it," "every field of it (docs/openapi.yaml, JobSubmit"; do
	expect "client-help-jobs-submit-lists '${f:0:24}'" 0 "$f" "$FW" jobs submit --help
	expect "client-help-jobs-lists '${f:0:24}'" 0 "$f" "$FW" jobs --help
done
JS=(jobs submit --queue q --gpus 1 --server http://127.0.0.1:1) # a refusal before anything is sent
expect "client-min-member-whole" 2 "--min-member 1.5: must be a whole number" "${FW}" "${JS[@]}" --count 2 --min-member 1.5
expect "client-min-member-range" 2 "--min-member 1000001: must be from 0 to 1000000" "$FW" "${JS[@]}" --min-member 1000001
expect "client-min-member-past-count" 2 "--min-member 3: more than the job's 2 tasks (--count); lower --min-member or raise --count" \
	"$FW" "${JS[@]}" --count 2 --min-member 3
expect "client-min-member-past-default-count" 2 "--min-member 2: more than the job's 1 task (--count, default 1)" \
	"$FW" "${JS[@]}" --min-member 2
expect "client-preemptible-both" 2 "--preemptible and --no-preemptible: give one of them (without either, the job is preemptible: the API's default)" \
	"$FW" "${JS[@]}" --preemptible --no-preemptible
expect "client-preemptible-false-word" 2 "--preemptible takes no value (got 'false'); for false give --no-preemptible" \
	"$FW" "${JS[@]}" --preemptible false
expect "client-preemptible-false-joined" 2 "--preemptible takes no value (got 'false'); for false give --no-preemptible" \
	"$FW" "${JS[@]}" --preemptible=false
expect "client-spread-takes-no-value" 2 "--spread takes no value (got 'yes')" "$FW" "${JS[@]}" --spread yes
expect "client-me-word-after-it" 2 "--me takes no value (got 'alice')" "$FW" jobs list --me alice
for lf in --preferred-level --required-level; do
	expect "client$lf-empty" 2 "$lf '' is not a level name: give one word, a topology level of the cluster (e.g. rack or nvlink) or node; leave $lf out for none" \
		"$FW" "${JS[@]}" "$lf" ''
	expect "client$lf-two-words" 2 "$lf 'rack nvlink' is not a level name" "$FW" "${JS[@]}" "$lf" 'rack nvlink'
done
expect "client-preferred-level-needs-a-value" 2 "--preferred-level needs a value" "$FW" "${JS[@]}" --preferred-level
expect "client-min-member-typo" 2 "(did you mean '--min-member'?)" "$FW" "${JS[@]}" --min-members 1
expect "client-job-file-and-switch" 2 "--file and --spread: give the job either as a file or as flags" \
	"$FW" jobs submit --file /nonexistent --spread
# a whole number out of range says the range, not "whole number"
expect "client-huge-gpus-says-range" 2 "--gpus 99999999999999999999: must be from 0 to 16" \
	"$FW" jobs submit --queue q --gpus 99999999999999999999
expect "client-gpus-past-a-node" 2 "--gpus 17: must be from 0 to 16" "$FW" jobs submit --queue q --gpus 17
expect "client-count-zero-says-range" 2 "--count 0: must be from 1 to 100000" "$FW" jobs submit --queue q --gpus 1 --count 0
expect "client-huge-priority-says-range" 2 "--priority 99999999999999999999: must be from -1000000 to 1000000" \
	"$FW" queues set q --priority 99999999999999999999
# numbers are decimal digits: hex and exponents (which strtod reads) are refused, not read as 16 or 10
expect "client-priority-hex" 2 "--priority '0x10' is not a whole number in decimal digits" \
	"$FW" jobs submit --queue q --gpus 1 --priority 0x10
expect "client-gpus-hex" 2 "--gpus '0x2' is not a whole number in decimal digits" "$FW" jobs submit --queue q --gpus 0x2
expect "client-count-exponent" 2 "--count '1e1' is not a whole number in decimal digits" \
	"$FW" jobs submit --queue q --gpus 1 --count 1e1
expect "client-fraction-exponent" 2 "--gpu-fraction '5e-1' is not a plain number in decimal digits" \
	"$FW" jobs submit --queue q --gpus 1 --gpu-fraction 5e-1
expect "client-runtime-exponent" 2 "--runtime '1e3': expected seconds or a DURATION" \
	"$FW" jobs submit --queue q --gpus 1 --runtime 1e3
expect "client-budget-exponent" 2 "--gpu-hour-budget '1e3' is not a number of GPU-hours" \
	"$FW" queues set q --gpu-hour-budget 1e3
expect "client-model-limit-hex" 2 "--gpu-model-limits 'H100=0x8': expected MODEL=GPUS pairs" \
	"$FW" queues set q --gpu-model-limits H100=0x8
# --memory: MiB or a binary quantity, as the config writes memory
expect "client-memory-decimal-suffix" 2 "--memory '1G' is not a memory amount; give MiB (512) or a binary quantity (512Mi, 80Gi, 1Ti" \
	"$FW" jobs submit --queue q --gpus 1 --memory 1G
expect "client-memory-quantity-range" 2 "--memory 2000000Ti: must be from 0 to 1000000000000 MiB" \
	"$FW" jobs submit --queue q --gpus 1 --memory 2000000Ti
# --file that cannot be read: named, with why (not jansson's PATH:-1:-1)
expect "client-file-missing" 2 "fairway jobs: error: --file /nonexistent/job.json: cannot read: No such file or directory" \
	"$FW" jobs submit --file /nonexistent/job.json
expect "client-exit-code-range" 2 "--exit-code 256: must be from 0 to 255" "$FW" jobs submit --queue q --gpus 1 --exit-code 256
expect "client-huge-runtime-says-range" 2 "--runtime 99999999999999999999: must be from 0 to 31536000 seconds" \
	"$FW" jobs submit --queue q --gpus 1 --runtime 99999999999999999999
expect "client-negative-runtime-says-range" 2 "--runtime -5: must be from 0 to 31536000 seconds" \
	"$FW" jobs submit --queue q --gpus 1 --runtime -5
# seconds flags take the duration syntax of --start +10m (and serve --period)
expect "client-runtime-not-a-duration" 2 "--runtime 'soon': expected seconds or a DURATION like 90s, 10m, 2h, 1d or 1h30m" \
	"$FW" jobs submit --queue q --gpus 1 --runtime soon
expect "client-runtime-fraction-of-a-second" 2 "--runtime 1.5s: must be a whole number of seconds" \
	"$FW" jobs submit --queue q --gpus 1 --runtime 1.5s
expect "client-queue-duration-flag" 2 "--default-runtime '2w': expected seconds or a DURATION" \
	"$FW" queues set q --default-runtime 2w
expect "client-help-durations" 0 "also take a DURATION: 90s, 10m, 2h, 1d" "$FW" jobs --help
expect "client-submit-needs-gpus" 2 "--gpus (0 for a job of only --cpu and --memory) is required" "$FW" jobs submit --queue q
expect "client-bad-gpus" 2 "--bad-gpus '1,x': expected GPU indices" "$FW" nodes health n1 --unhealthy --bad-gpus 1,x
expect "client-health-both" 2 "--healthy and --unhealthy conflict: give one of them" "$FW" nodes health n1 --healthy --unhealthy
expect "client-health-neither" 2 "say --healthy or --unhealthy" "$FW" nodes health n1
# --file is the whole body: a flag beside it is refused, not dropped
# (with a token and a valid file, only the refusal stops it reaching the server)
CL_TMP=$(mktemp -d)
echo '{"priority": 1}' >"$CL_TMP/q.json"
echo 0123456789abcdef0123 >"$CL_TMP/token"
expect "client-queue-file-and-flag" 2 "--file and --priority: give the queue either as a file or as flags" \
	"$FW" queues set q --file "$CL_TMP/q.json" --priority 4 --server http://127.0.0.1:1 --token-file "$CL_TMP/token"
expect "client-queue-create-flag-and-file" 2 "--file and --limit-gpus: give the queue either as a file or as flags" \
	"$FW" queues create q --limit-gpus 8 --file "$CL_TMP/q.json" --server http://127.0.0.1:1 --token-file "$CL_TMP/token"
expect "client-job-file-and-flag" 2 "--file and --gpus: give the job either as a file or as flags" \
	"$FW" jobs submit --file "$CL_TMP/q.json" --gpus 2 --server http://127.0.0.1:1 --token-file "$CL_TMP/token"
expect "client-file-alone-is-sent" 1 "cannot reach http://127.0.0.1:1" \
	"$FW" queues set q --file "$CL_TMP/q.json" --server http://127.0.0.1:1 --token-file "$CL_TMP/token"
expect "client-help-file-alone" 0 "or --file patch.json, alone" "$FW" queues --help
expect "client-queue-set-nothing" 2 "fairway queues: error: nothing to change: give at least one of --parent, --deserved-gpus" \
	"$FW" queues set q --server http://127.0.0.1:1 --token-file "$CL_TMP/token"
# --start/--end: a unit without "+" is not a Unix time, and no time is negative
RS=(reservations create --kind maintenance --nodes n1 --server http://127.0.0.1:1 --token-file "$CL_TMP/token")
expect "client-start-unit-needs-plus" 2 \
	"--start 2h: a duration needs a leading + (2h from now: +2h), or give a Unix time in seconds" "$FW" "${RS[@]}" --start 2h
expect "client-end-unit-needs-plus" 2 "--end 30m: a duration needs a leading + (30m from now: +30m)" \
	"$FW" "${RS[@]}" --start +1h --end 30m
expect "client-start-negative-duration" 2 "--start -2h: a time is not negative" "$FW" "${RS[@]}" --start -2h
expect "client-start-negative-time" 2 "--start -2: a time is not negative" "$FW" "${RS[@]}" --start -2
expect "client-start-plus-negative" 2 "--start '+-2h': expected +DURATION like +10m" "$FW" "${RS[@]}" --start +-2h
expect "client-start-huge" 2 "--start 99999999999999999999: times go up to 1099511627776" \
	"$FW" "${RS[@]}" --start 99999999999999999999
expect "client-start-unix-time-is-sent" 1 "cannot reach http://127.0.0.1:1" "$FW" "${RS[@]}" --start 1700000000 --end +2h
# a reservation's times within 10 years of now, its end not past
expect "client-start-1970" 2 "--start 1000: more than 10 years before now" "$FW" "${RS[@]}" --start 1000 --end +1h
expect "client-start-far-future" 2 "--start +10000000d: more than 10 years after now" \
	"$FW" "${RS[@]}" --start +10000000d --end +10000001d
expect "client-end-past" 2 "--end 1700000000: is in the past" "$FW" "${RS[@]}" --start 1690000000 --end 1700000000
expect "client-rsv-list-all-is-sent" 1 "cannot reach http://127.0.0.1:1" \
	"$FW" reservations list --all --server http://127.0.0.1:1 --token-file "$CL_TMP/token"
# durations: the config's compound forms, everywhere
expect "client-start-compound-is-sent" 1 "cannot reach http://127.0.0.1:1" "$FW" "${RS[@]}" --start +1h30m --end +2h
expect "client-max-runtime-compound-is-sent" 1 "cannot reach http://127.0.0.1:1" \
	"$FW" jobs submit --queue q --gpus 1 --max-runtime 1h30m --server http://127.0.0.1:1 --token-file "$CL_TMP/token"
expect "client-since-compound-is-sent" 1 "cannot reach http://127.0.0.1:1" \
	"$FW" decisions --since 1h30m --server http://127.0.0.1:1 --token-file "$CL_TMP/token"
expect "client-duration-unitless-tail" 2 "--runtime '1h30': expected seconds or a DURATION like 90s, 10m, 2h, 1d or 1h30m" \
	"$FW" jobs submit --queue q --gpus 1 --runtime 1h30
# GPUs and CPUs in thousandths: finer is refused, naming the flag and the precision, not rounded
QS=(queues set q --server http://127.0.0.1:1 --token-file "$CL_TMP/token")
JS=(jobs submit --queue q --gpus 1 --server http://127.0.0.1:1 --token-file "$CL_TMP/token")
expect "client-deserved-gpus-4-decimals" 2 "--deserved-gpus 2.5555: at most 3 decimals (0.001 GPU)" \
	"$FW" "${QS[@]}" --deserved-gpus 2.5555
expect "client-deserved-gpus-below-a-milli" 2 "--deserved-gpus 0.0001: at most 3 decimals (0.001 GPU)" \
	"$FW" "${QS[@]}" --deserved-gpus 0.0001
expect "client-limit-gpus-below-a-milli" 2 "--limit-gpus 0.0004: at most 3 decimals (0.001 GPU)" \
	"$FW" "${QS[@]}" --limit-gpus 0.0004
expect "client-model-limits-4-decimals" 2 "--gpu-model-limits H100=1.0005: at most 3 decimals (0.001 GPU)" \
	"$FW" "${QS[@]}" --gpu-model-limits A100=2,H100=1.0005
# A model named twice in one list is a typo, as the config and --node-selector
# take it: refused, never the last one kept (H100=16,H100=3 was sent as H100=3).
expect "client-model-limits-twice" 2 "--gpu-model-limits: GPU model 'H100' is given twice; keep one" \
	"$FW" "${QS[@]}" --gpu-model-limits H100=16,A100=2,H100=3
expect "client-model-deserved-twice" 2 "--gpu-model-deserved: GPU model 'H100' is given twice; keep one" \
	"$FW" "${QS[@]}" --gpu-model-deserved H100=none,H100=4
expect "client-deserved-gpus-3-decimals-is-sent" 1 "cannot reach http://127.0.0.1:1" "$FW" "${QS[@]}" --deserved-gpus 2.555
expect "client-gpu-fraction-4-decimals" 2 "--gpu-fraction 0.0015: at most 3 decimals (0.001 of a GPU)" \
	"$FW" "${JS[@]}" --gpu-fraction 0.0015
expect "client-cpu-below-a-millicore" 2 "--cpu 0.0001: at most 3 decimals (0.001 CPU, a millicore)" \
	"$FW" "${JS[@]}" --cpu 0.0001
expect "client-help-timeout-kind" 0 "--kind start|evict|timeout|reserve|drain|requeue" "$FW" decisions --help
expect "client-help-rsv-list-all" 0 "reservations list:   those not yet ended; --all the ended ones too" \
	"$FW" reservations --help
rm -rf "$CL_TMP"
expect "serve-help-backend-opt" 0 "--backend-opt K=V" "$FW" serve --help
expect "serve-backend-opt-not-kv" 2 "--backend-opt 'conf': expected KEY=VALUE" "$FW" serve --backend-opt conf
expect "serve-help-usage-opt" 0 "usage=slurm|own" "$FW" serve --help
expect "serve-help-period-min-job-age" 0 "MinJobAge (300s by default), at most half" "$FW" serve --help
# every --backend-opt key serve --help lists is in docs/serve.md's --backend-opt row (usage= was not)
bo_row=$(grep -F '| `--backend-opt K=V` |' "$(dirname "$0")/../docs/serve.md")
bo_keys=$("$FW" serve --help | sed -n '/--backend-opt K=V/,/--policy/p' | grep -o '\b[a-z][a-z-]*=' | sort -u)
bo_missing=$(for k in $bo_keys; do grep -qF -- "\`$k" <<<"$bo_row" || echo "$k"; done)
if [ -n "$bo_row" ] && [ "$(wc -w <<<"$bo_keys")" -ge 5 ] && [ -z "$bo_missing" ]; then
	ok "serve-backend-opt-keys-in-docs"
else
	bad "serve-backend-opt-keys-in-docs: docs/serve.md's --backend-opt row lacks: ${bo_missing:-(no row or keys)}"
fi
SERVE_TMP=$(mktemp -d)
# --listen takes an IPv4 address: a host name is a usage error (exit 2)
# before the state directory is touched, like a bad port
expect "serve-listen-host-name" 2 "--listen 'localhost:0': 'localhost' is not an IPv4 address" \
	timeout 20 "$FW" serve --state "$SERVE_TMP/st" --listen localhost:0
expect "serve-listen-ipv6" 2 "'::1' is not an IPv4 address" timeout 20 "$FW" serve --state "$SERVE_TMP/st" --listen ::1:0
# a port past 65535 is refused naming the range, not as a malformed HOST:PORT
expect "serve-listen-port-range" 2 "--listen '127.0.0.1:99999': port 99999 is out of range: give a port from 1 to 65535" \
	timeout 20 "$FW" serve --state "$SERVE_TMP/st" --listen 127.0.0.1:99999
expect "serve-listen-port-not-digits" 2 "--listen '127.0.0.1:86x': expected HOST:PORT" \
	timeout 20 "$FW" serve --state "$SERVE_TMP/st" --listen 127.0.0.1:86x
if [ -e "$SERVE_TMP/st" ]; then bad "serve-listen-bad-host-leaves-no-state"; else ok "serve-listen-bad-host-leaves-no-state"; fi
# --state: a directory, created when missing; a file, or a place where no
# directory can be made, is refused naming --state (nothing starts)
: >"$SERVE_TMP/a-file"
expect "serve-state-is-a-file" 2 "--state $SERVE_TMP/a-file is not a directory" \
	timeout 20 "$FW" serve --state "$SERVE_TMP/a-file" --listen 127.0.0.1:0
expect "serve-state-cannot-be-made" 2 "--state $SERVE_TMP/none/st: cannot create the state directory" \
	timeout 20 "$FW" serve --state "$SERVE_TMP/none/st" --listen 127.0.0.1:0
expect "serve-state-parent-missing-says-mkdir-p" 2 "No such file or directory (its parent must exist: mkdir -p it first" \
	timeout 20 "$FW" serve --state "$SERVE_TMP/none/st" --listen 127.0.0.1:0
# --port-file in a directory that does not exist: the start stops with the
# reason and what to do, exit 2 as the other start errors (not a bare
# "cannot write", exit 1)
expect "serve-port-file-unwritable" 2 \
	"--port-file $SERVE_TMP/none/port: cannot write $SERVE_TMP/none/port.tmp: No such file or directory; give a path in a directory that exists" \
	timeout 20 "$FW" serve --state "$SERVE_TMP/pf" --listen 127.0.0.1:0 --port-file "$SERVE_TMP/none/port"
# ... found before anything is made: no state directory left behind
if [ -e "$SERVE_TMP/pf" ]; then bad "serve-port-file-unwritable-leaves-no-state"; else ok "serve-port-file-unwritable-leaves-no-state"; fi
# a store the daemon cannot use says what to do: a fairway.db that is a
# directory, or a file that is not SQLite (exit 2, nothing started)
mkdir -p "$SERVE_TMP/dbdir/fairway.db" "$SERVE_TMP/dbjunk"
echo 'not a database' >"$SERVE_TMP/dbjunk/fairway.db"
expect "serve-store-is-a-directory" 2 \
	"$SERVE_TMP/dbdir/fairway.db: field --state: cannot open: unable to open database file; it must be a file this user may read and write" \
	timeout 20 "$FW" serve --state "$SERVE_TMP/dbdir" --listen 127.0.0.1:0
expect "serve-store-not-sqlite" 2 \
	"$SERVE_TMP/dbjunk/fairway.db: field --state: is not a SQLite database, so not fairway's store: give the daemon a --state directory of its own, or move this file aside" \
	timeout 20 "$FW" serve --state "$SERVE_TMP/dbjunk" --listen 127.0.0.1:0
if [ "$(cat "$SERVE_TMP/dbjunk/fairway.db")" = "not a database" ]; then ok "serve-store-not-sqlite-left-as-it-was"; else bad "serve-store-not-sqlite-left-as-it-was"; fi
# a flag without its value says so (not "unknown option ... or it needs a value")
expect "serve-period-empty" 2 "--period needs a value (none after the =)" "$FW" serve --period=
expect "serve-period-missing" 2 "--period needs a value (none follows it)" "$FW" serve --period
expect "serve-unknown-flag" 2 "unknown option '--perod' (did you mean '--period'?)" "$FW" serve --perod=1
# a token file that is empty or short: say how to make one
printf 'short' >"$SERVE_TMP/short.tok"
: >"$SERVE_TMP/empty.tok"
chmod 600 "$SERVE_TMP/short.tok" "$SERVE_TMP/empty.tok"
expect "serve-token-short-says-how" 2 \
	"the token is shorter than 16 characters; write one of at least 16 characters, e.g. head -c 32 /dev/urandom | base64 > $SERVE_TMP/short.tok && chmod 600" \
	timeout 20 "$FW" serve --state "$SERVE_TMP/st" --listen 127.0.0.1:0 --token-file "$SERVE_TMP/short.tok"
expect "serve-token-empty-says-how" 2 "cannot read a token (the file is empty); write one of at least 16 characters" \
	timeout 20 "$FW" serve --state "$SERVE_TMP/st" --listen 127.0.0.1:0 --token-file "$SERVE_TMP/empty.tok"
# --backend bogus: the list right after "these are built in:", the usage hint last
bogus_out=$("$FW" serve --backend bogus 2>&1)
if awk 'NR == 1 {ok = /these are built in:$/} NR == 2 {ok = ok && /^  local /} {last = $0}
	END {exit !(ok && last ~ /^run `fairway serve --help` for usage$/)}' <<<"$bogus_out"; then
	ok "serve-unknown-backend-lists-then-hints"
else
	bad "serve-unknown-backend-lists-then-hints"
fi
# --backend misspelt: the backend meant, then the list
expect "serve-unknown-backend-did-you-mean" 2 "--backend 'lcoal': unknown backend (did you mean 'local'?); these are built in:" \
	"$FW" serve --backend lcoal
# --period of 0 or below: the message says it must be above 0 (not only
# "a duration like 1s", which 0 and -1s look like)
expect "serve-period-negative" 2 "--period '-1s': expected a duration above 0 and at most 1h" \
	timeout 20 "$FW" serve --state "$SERVE_TMP/st" --period -1s
expect "serve-period-zero" 2 "--period '0': expected a duration above 0 and at most 1h" \
	timeout 20 "$FW" serve --state "$SERVE_TMP/st" --period 0
# --period: plain decimals with s, ms, m or h, up to the 1h the message names
expect "serve-period-nan" 2 "--period 'nan': expected a duration" timeout 20 "$FW" serve --state "$SERVE_TMP/st" --period nan
expect "serve-period-hex" 2 "--period '0x10': expected a duration" timeout 20 "$FW" serve --state "$SERVE_TMP/st" --period 0x10
expect "serve-period-exponent" 2 "--period '1e1': expected a duration" timeout 20 "$FW" serve --state "$SERVE_TMP/st" --period 1e1
expect "serve-period-1h-is-taken" 2 "--listen 'x'" "$FW" serve --period 1h --listen x
expect "serve-period-over-1h" 2 "--period '1.5h': expected a duration" "$FW" serve --period 1.5h
# fairway decisions: the decision log's client; --since is a duration back from now
expect "decisions-help" 0 "fairway decisions [--since DURATION] [--job NAME] [--kind K] [--limit N]" "$FW" decisions --help
expect "decisions-since-not-a-duration" 2 "--since 'yesterday': expected a DURATION like 90s, 10m, 2h, 1d or 1h30m" \
	"$FW" decisions --since yesterday
expect "decisions-since-negative" 2 "--since '-1h': expected a DURATION" "$FW" decisions --since=-1h
expect "decisions-takes-no-subcommand" 2 "unexpected argument 'list'" "$FW" decisions list
# --log-keep: whole seconds or a duration with one unit, up to 3650d
expect "serve-log-keep-fraction" 2 "--log-keep '1.5s': expected a whole number of seconds or a DURATION like 30d" \
	"$FW" serve --log-keep 1.5s --listen x
expect "serve-log-keep-over-3650d" 2 "--log-keep '3651d': expected a whole number of seconds" "$FW" serve --log-keep=3651d
expect "serve-log-keep-30d-is-taken" 2 "--listen 'x'" "$FW" serve --log-keep 30d --listen x
expect "serve-local-refuses-backend-opt" 2 "field a: the local backend takes min-job-age=SECONDS only ('a=b')" \
	timeout 20 "$FW" serve --state "$SERVE_TMP" --listen 127.0.0.1:0 --backend-opt a=b --backend-opt c=d
expect "serve-local-min-job-age-not-seconds" 2 "field min-job-age: min-job-age=5m: expected whole seconds from 0 to 315360000" \
	timeout 20 "$FW" serve --state "$SERVE_TMP" --listen 127.0.0.1:0 --backend-opt min-job-age=300,min-job-age=5m
# a queue with more GPU model limits than the daemon keeps is refused at
# the first start, naming the queue; nothing is seeded, so the fixed
# config seeds the same state directory
{
	echo "nodes:"
	for i in $(seq 1 17); do echo "  - {name: n$i, gpus: 8, gpuModel: M$i}"; done
	printf 'queues:\n  - {name: a, gpuModelLimits: {%s}}\n' "$(seq -s, 1 17 | sed 's/\([0-9]*\)/M\1: 4/g; s/,/, /g')"
} >"$SERVE_TMP/ml17.yaml"
expect "serve-too-many-model-limits" 2 "queue a has more than 16 gpuModelLimits, and fairway serve keeps at most 16" \
	timeout 20 "$FW" serve --config "$SERVE_TMP/ml17.yaml" --state "$SERVE_TMP/ml" --listen 127.0.0.1:0
sed -i 's/, M17: 4//' "$SERVE_TMP/ml17.yaml"
expect "serve-fixed-model-limits-seed" 0 "16" python3 -c '
import subprocess, sys, time, urllib.request, json, os, signal
d = sys.argv[2]
p = subprocess.Popen([sys.argv[1], "serve", "--config", sys.argv[3], "--state", d, "--listen", "127.0.0.1:0"],
                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
line = p.stdout.readline()
p.send_signal(signal.SIGTERM); p.wait(timeout=20)
import sqlite3
doc = sqlite3.connect(os.path.join(d, "fairway.db")).execute("select doc from queues where key = ?", ("a",)).fetchone()[0]
print(len(json.loads(doc)["gpuModelLimits"]))' "$FW" "$SERVE_TMP/ml" "$SERVE_TMP/ml17.yaml"
rm -rf "$SERVE_TMP"

if "$FW" policies --json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert list(d) == ["policies"], list(d); assert any(p["default"] for p in d["policies"])'; then
	ok "policies-json-valid"
else
	bad "policies-json-valid"
fi
# the text listing marks the default policy, once, on the row the JSON names
# the listing's columns say what --json says, policy by policy
pol=$(mktemp)
"$FW" policies >"$pol" 2>&1
if "$FW" policies --json | python3 -c '
import json, sys
rows = {l.split()[0]: l.split() for l in open(sys.argv[1]).read().splitlines()[1:]}
dur = lambda s: "off" if s <= 0 else "%dh" % (s // 3600) if s % 3600 == 0 else "%dm" % (s // 60) if s % 60 == 0 else "%ds" % s
import re
keys = {"name", "summary", "default", "queueOrder", "strictOrder", "jobOrder", "reserveDepth", "starveAfterS",
        "xfactorCapS", "reclaim", "reclaimRule", "maxEvictions", "maxMoves", "spread"}
for p in json.load(sys.stdin)["policies"]:
    assert all(re.fullmatch("[a-z]+([A-Z][a-z]*)*", k) for k in p), sorted(p)  # camelCase, as every --json
    assert set(p) <= keys and set(p) >= keys - {"reclaimRule"}, sorted(p)
    r = rows[p["name"]]
    assert int(r[2]) == p["reserveDepth"], p["name"]
    assert r[3] == dur(p["starveAfterS"]), p["name"]
    assert r[4] == (dur(p["xfactorCapS"]) if p["jobOrder"] in ("expansion factor", "submit time") else "off"), p["name"]
    assert (r[5] == "no") == (not p["reclaim"]), p["name"]
    assert p["reclaim"] == (p.get("reclaimRule") is not None), p["name"]
    assert r[1] == ("strict" if p["strictOrder"] else "global" if p["queueOrder"] == "global" else "fair-share")
assert len(rows) == 4
' "$pol"; then ok "policies-settings-agree"; else bad "policies-settings-agree"; fi
rm -f "$pol"
# one name for one setting: `fairway policies --json` and `fairway sim run
# --json` (its policies' settings) spell a span's key with its unit alike
# (before: starveAfter, seconds, beside sim run's starveAfterS), and the
# values agree where a replay ran with a setting the policy's own
pj=$(mktemp)
"$FW" sim run --trace synthetic:3 --nodes 2x8 --tick 3600 --policies fairway:starve-after=86400:xfactor-cap=43200:reserve-depth=16 \
	--json "$pj" >/dev/null 2>&1
if "$FW" policies --json | python3 -c '
import json, sys
pol = {p["name"]: p for p in json.load(sys.stdin)["policies"]}
run = json.load(open(sys.argv[1]))["policies"][0]
for k in pol["fairway"]:
    assert k + "S" not in run and k + "Ms" not in run, k  # the same setting under another unit or none
for k in ("starveAfterS", "xfactorCapS", "reserveDepth"):
    assert pol["fairway"][k] == run[k], (k, pol["fairway"][k], run[k])
' "$pj"; then ok "policies-json-keys-as-sim-run-json"; else bad "policies-json-keys-as-sim-run-json"; fi
rm -f "$pj"
def=$("$FW" policies --json | python3 -c 'import json,sys; print([p["name"] for p in json.load(sys.stdin)["policies"] if p["default"]][0])')
if [ "$("$FW" policies | grep -c '(default)')" = 1 ] && "$FW" policies | grep -q "^$def .*(default)\$"; then
	ok "policies-default-marked"
else
	bad "policies-default-marked"
fi
if "$FW" plan --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["decisions"], "no starts"
assert d["pending"], "no pending"
assert all(p["reasonText"] for p in d["pending"])
starts = [x["job"] for x in d["decisions"] if x["kind"] == "start"]
resv = [x["job"] for x in d["decisions"] if x["kind"] == "reserve"]
pend = {x["name"]: x["reason"] for x in d["pending"]}
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

# one schema for one command: `fairway plan --json` (a plan of its own)
# and `fairway plan --server URL --json` (a daemon's GET /v1/plan) on the
# same config name what both have alike (docs/serve.md, "One plan, two
# sources, one schema"): the time, each decision's and each waiting job's
# keys (a reservation's reservedAt, a start unknown's unknownWhy and
# unknownWhyText among them); the offline plan's own "args" aside
OS=$(mktemp -d)
cat >"$OS/one.yaml" <<'YAML'
now: 100
nodes:
  - {name: n0, gpus: 8, gpuModel: H100}
  - {name: n1, gpus: 8, gpuModel: H100}
queues: [{name: q}]
jobs:
  - {name: r, queue: q, state: running, startTime: 50, expectedRuntime: 1000, tasks: [{gpus: 4}], allocation: [{node: n0, gpus: [0, 1, 2, 3]}]}
  - {name: big, queue: q, submitTime: 60, expectedRuntime: 100, preemptible: false, tasks: [{count: 2, gpus: 8}]}
  - {name: b2, queue: q, submitTime: 70, tasks: [{gpus: 1, gpuModel: B200}]}
YAML
"$FW" plan --config "$OS/one.yaml" --json >"$OS/offline.json" 2>"$OS/offline.err"
"$FW" serve --config "$OS/one.yaml" --state "$OS/st" --listen 127.0.0.1:0 --port-file "$OS/port" --period 0.2s \
	>"$OS/daemon.log" 2>&1 &
OS_PID=$!
for _ in $(seq 100); do
	[ -s "$OS/port" ] && "$FW" plan --server "http://127.0.0.1:$(cat "$OS/port")" --json >"$OS/daemon.json" 2>/dev/null &&
		break
	sleep 0.1
done
kill "$OS_PID" 2>/dev/null
wait "$OS_PID" 2>/dev/null
if python3 - "$OS/offline.json" "$OS/daemon.json" <<'PY'; then
import json, sys
off, srv = (json.load(open(f)) for f in sys.argv[1:3])
assert isinstance(off["at"], int) and isinstance(srv["at"], int) and "now" not in off, (off.get("at"), srv.get("at"))
shared = {"name", "queue", "reason", "reasonText", "ahead", "reservedAt", "expectedStart", "unknownWhy", "unknownWhyText"}
o = {p["name"]: p for p in off["pending"]}
d = {p["name"]: p for p in srv["pending"]}
assert sorted(o) == sorted(d) == ["b2", "big"], (sorted(o), sorted(d))
for n in o:
    assert set(o[n]) - {"args"} == set(d[n]) & shared, (n, sorted(o[n]), sorted(d[n]))
    assert o[n]["reason"] == d[n]["reason"] and o[n]["ahead"] == d[n]["ahead"], (o[n], d[n])
assert "reservedAt" in o["big"] and "unknownWhyText" in o["b2"], o  # the check compares something
assert o["big"]["reservedAt"] == o["big"]["expectedStart"], o["big"]
for x in off["decisions"] + srv["decisions"]:  # a decision's common keys
    assert {"kind", "job", "at", "reason", "nodes"} <= set(x), x
assert [x["nodes"] for x in off["decisions"] if x["job"] == "big"] == [["n0", "n1"]], off["decisions"]
PY
	ok "plan-json-offline-keys-are-the-daemons"
else
	bad "plan-json-offline-keys-are-the-daemons"; head -c 600 "$OS/daemon.json" "$OS/daemon.log" "$OS/offline.err"
fi
rm -rf "$OS"

# jobs[].nodeSelector (docs/config.md): node a is the busier (bin-packing
# would pick it), but the job selects gpu: a100, which only b has; a
# selector no node meets is refused, naming its line and field
T=$(mktemp -d)
cat >"$T/sel.yaml" <<'YAML'
now: 100
nodes:
  - {name: a, gpus: 8, labels: {gpu: h100}}
  - {name: b, gpus: 8, labels: {gpu: a100}}
queues: [{name: q}]
jobs:
  - {name: r, queue: q, state: running, startTime: 50, tasks: [{gpus: 4}], allocation: [{node: a, gpus: [0, 1, 2, 3]}]}
  - {name: free, queue: q, tasks: [{gpus: 1}]}
  - {name: sel, queue: q, tasks: [{gpus: 1}], nodeSelector: {gpu: a100}}
YAML
if "$FW" plan --config "$T/sel.yaml" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
node = {x["job"]: x["tasks"][0]["node"] for x in d["decisions"] if x["kind"] == "start"}
assert node == {"free": "a", "sel": "b"}, node'; then
	ok "plan-node-selector"
else
	bad "plan-node-selector"
fi
sed 's/nodeSelector: {gpu: a100}/nodeSelector: {gpu: b200}/' "$T/sel.yaml" >"$T/sel_bad.yaml"
"$FW" plan --config "$T/sel_bad.yaml" >/dev/null 2>"$T/sel.err"
rc=$?
if [ $rc = 2 ] && grep -q "sel_bad.yaml:9:.*field jobs\[2\].nodeSelector: no node has all these labels (gpu: b200)" "$T/sel.err"; then
	ok "plan-node-selector-none"
else
	bad "plan-node-selector-none"
	echo "  rc $rc: $(cat "$T/sel.err")"
fi
rm -rf "$T"

# ---- fairway sim / trace -------------------------------------------------
expect "sim-help" 0 "fairway sim run" "$FW" sim --help
expect "sim-run-help" 0 "--trace FILE" "$FW" sim run --help
expect "sim-run-needs-trace" 2 "fairway sim run: error: missing --trace FILE" "$FW" sim run
expect "sim-run-unknown-flag" 2 "fairway sim run: error: unknown option '--bogus'" "$FW" sim run --trace x --bogus
# sim run's usage errors read as every command's: "fairway sim run: error:
# WHY" and the hint line, on stderr, nothing on stdout, exit 2
for args in "--bogus" "--tick 0" "--policies lifo" "--policies fifo:starve-after=5" "--failures x"; do
	# shellcheck disable=SC2086 # the flags split on purpose
	"$FW" sim run --trace x $args >"${TMPDIR:-/tmp}/fw-cli-su.out" 2>"${TMPDIR:-/tmp}/fw-cli-su.err"
	rc=$?
	if [ "$rc" -eq 2 ] && [ ! -s "${TMPDIR:-/tmp}/fw-cli-su.out" ] && [ "$(wc -l <"${TMPDIR:-/tmp}/fw-cli-su.err")" -eq 2 ] &&
		head -1 "${TMPDIR:-/tmp}/fw-cli-su.err" | grep -q '^fairway sim run: error: ' &&
		[ "$(tail -1 "${TMPDIR:-/tmp}/fw-cli-su.err")" = 'run `fairway sim run --help` for usage' ]; then
		ok "sim-run-usage-error-form ($args)"
	else
		bad "sim-run-usage-error-form ($args): exit $rc: $(cat "${TMPDIR:-/tmp}/fw-cli-su.err")"
	fi
done
rm -f "${TMPDIR:-/tmp}/fw-cli-su.out" "${TMPDIR:-/tmp}/fw-cli-su.err"
expect "sim-run-empty-value" 2 "--jobs needs a value" "$FW" sim run --trace x --jobs=
# numbers as a user writes them: no '+', hex or exponent read as a value
expect "sim-run-slices-no-sign" 2 "--slices '+2:node': give K:LEVEL" "$FW" sim run --trace x --slices +2:node
expect "sim-run-failures-no-hex" 2 "--failures '0x1p-2': expected a number" "$FW" sim run --trace x --failures 0x1p-2
expect "sim-run-model-limits-no-exponent" 2 "--model-limits 'V100=1e1': expected MODEL=PCT pairs" \
	"$FW" sim run --trace x --model-limits V100=1e1
expect "sim-fgd-tune-no-hex" 2 "--tune wants a number in (0, 3], not '0x1'" "$FW" sim fgd --tune 0x1
expect "serve-listen-port-digits" 2 "--listen '127.0.0.1:+80': expected HOST:PORT" "$FW" serve --listen 127.0.0.1:+80
expect "sim-run-shares-unwritable" 1 "fairway sim run: error: --shares /nonexistent-dir/s.csv: cannot write: No such file or directory" \
	"$FW" sim run --trace synthetic:3 --shares /nonexistent-dir/s.csv
# Output files appear whole or not at all: a run that fails (here a job's
# required level the fleet lacks) keeps an earlier --json and creates
# nothing; an unwritable path is refused before any replay and before any
# other output exists; a symlink's target is replaced, a special file
# written through.
OF=$(mktemp -d)
echo PREV >"$OF/keep.json"
printf 'job_id,submit_time,duration,gpus_per_task,tasks,topology_required\na,0,7200,8,2,zone\n' >"$OF/tr.csv"
expect "sim-run-failed-run-names-the-job" 1 "'zone' is not a topology level" "$FW" sim run --trace "$OF/tr.csv" \
	--format fairway --racks 1 --nodes 2x8 --json "$OF/keep.json" --report "$OF/o.html" --jobs "$OF/oj.csv"
[ "$(cat "$OF/keep.json")" = PREV ] && [ "$(ls -A "$OF" | sort | tr '\n' ' ')" = "keep.json tr.csv " ] &&
	ok "sim-run-failed-run-touches-no-output" || bad "sim-run-failed-run-touches-no-output: $(ls -A "$OF")"
# a level the fleet lacks: the error lists the fleet's levels, a near
# name, and what to do (before: "(it has 0; see --topo, --racks, --blocks)")
printf 'job_id,submit_time,duration,gpus_per_task,tasks,topology_required\na,0,7200,8,2,racks\n' >"$OF/lv.csv"
expect "sim-run-unknown-level-lists-the-fleets" 1 \
	"lv.csv:2: topology_required: job 'a': 'racks' is not a topology level of the fleet (did you mean 'rack'?) (its levels: rack, node); name one of them, or give the fleet that level (--racks, --blocks, --topo, --fleet)" \
	"$FW" sim run --trace "$OF/lv.csv" --format fairway --racks 1 --nodes 2x8 --policies fifo
expect "sim-run-unknown-level-without-topology" 1 "'racks' is not a topology level of the fleet (its levels: node); name one of them" \
	"$FW" sim run --trace "$OF/lv.csv" --format fairway --nodes 2x8 --policies fifo
expect "sim-run-unwritable-json-names-the-flag" 1 "--json /nonexistent/x.json: cannot write: No such file or directory; give --json a path you may write, in a folder that exists, on a disk with room" \
	"$FW" sim run --trace "$OF/tr.csv" --format fairway --nodes 2x8 --jobs "$OF/zz.csv" --json /nonexistent/x.json
[ ! -e "$OF/zz.csv" ] && ok "sim-run-unwritable-json-creates-nothing" || bad "sim-run-unwritable-json-creates-nothing"
ln -s real.json "$OF/link.json"
expect "sim-run-log-to-stdout" 0 '"policy":"fifo"' "$FW" sim run --trace synthetic:3 --nodes 13x8 --tick 600 \
	--policies fifo --json "$OF/link.json" --log /dev/stdout
[ -L "$OF/link.json" ] && python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$OF/real.json" &&
	ok "sim-run-symlink-target-replaced" || bad "sim-run-symlink-target-replaced: $(ls -lA "$OF")"
# a fleet file's node names are identifiers, as in every config file: the
# error names the file, line and field, and nothing runs (that the start
# log escapes any name is tests/unit/test_fleet.c, start_log_escapes_every_name)
printf 'nodes:\n  - {name: n0, gpus: 8}\n  - {name: "n\\"1,x", gpus: 8}\n' >"$OF/q.yaml"
printf 'job_id,submit_time,duration,gpus_per_task,tasks\na,0,600,8,1\n' >"$OF/q.csv"
expect "sim-run-fleet-names-are-identifiers" 1 'q.yaml:3:12: nodes[1].name: "n"1,x" may contain only letters' \
	"$FW" sim run --trace "$OF/q.csv" --format fairway --fleet "$OF/q.yaml" --policies fifo --log "$OF/q.jsonl"
[ ! -e "$OF/q.jsonl" ] && ok "sim-run-refused-fleet-writes-no-log" || bad "sim-run-refused-fleet-writes-no-log"
rm -f "$OF"/q.*
# --json /dev/stdout with stdout redirected to a file: the JSON follows the
# summary in that file (it was renamed over it, and the summary was lost)
"$FW" sim run --trace synthetic:3 --nodes 13x8 --tick 600 --policies fifo --json /dev/stdout >"$OF/all.txt" 2>&1
grep -q '^summary' "$OF/all.txt" && grep -q '"policies"' "$OF/all.txt" &&
	ok "sim-run-json-to-redirected-stdout-keeps-the-summary" ||
	bad "sim-run-json-to-redirected-stdout-keeps-the-summary: $(head -c 300 "$OF/all.txt")"
# a dangling symlink into a missing directory is a bad path: refused before
# any replay, and the other outputs are not created
ln -s "$OF/missing/x.json" "$OF/dangling.json"
expect "sim-run-dangling-link-refused-at-once" 1 "--json $OF/dangling.json: cannot write: No such file or directory" \
	"$FW" sim run --trace synthetic:3 --nodes 13x8 --tick 600 --policies fifo --log "$OF/l1.jsonl" --json "$OF/dangling.json"
[ ! -e "$OF/l1.jsonl" ] && ok "sim-run-dangling-link-creates-nothing" || bad "sim-run-dangling-link-creates-nothing"
# two outputs naming one file, or an output naming an input, are refused
# before any replay (exit 2, both flags named): the last write won, or the
# trace was replaced; the same file by another name counts too
cp "$OF/tr.csv" "$OF/tr-copy.csv"
expect "sim-run-two-outputs-one-file" 2 "--json $OF/same.json and --csv $OF/same.json name one file" \
	"$FW" sim run --trace synthetic:3 --nodes 13x8 --json "$OF/same.json" --csv "$OF/same.json"
expect "sim-run-two-outputs-one-file-by-another-name" 2 "--jobs $OF/x.csv and --log $OF/./x.csv name one file" \
	"$FW" sim run --trace synthetic:3 --nodes 13x8 --jobs "$OF/x.csv" --log "$OF/./x.csv"
expect "sim-run-output-over-the-trace" 2 "--json $OF/../$(basename "$OF")/tr.csv is the --trace input" \
	"$FW" sim run --trace "$OF/tr.csv" --format fairway --nodes 2x8 --json "$OF/../$(basename "$OF")/tr.csv"
expect "sim-run-output-over-the-fleet" 2 "--shares $OF/keep.json is the --fleet input" \
	"$FW" sim run --trace synthetic:3 --fleet "$OF/keep.json" --shares "$OF/keep.json"
cmp -s "$OF/tr.csv" "$OF/tr-copy.csv" && [ ! -e "$OF/same.json" ] && [ ! -e "$OF/x.csv" ] &&
	ok "sim-run-refused-paths-touch-nothing" || bad "sim-run-refused-paths-touch-nothing: $(ls -A "$OF")"
# an interrupted run leaves no temporary file behind
mkdir "$OF/int"
timeout -s INT 2 "$FW" sim run --trace synthetic:3 --nodes 13x8 --tick 1 --tick-rule all --json "$OF/int/r.json" \
	--log "$OF/int/l.jsonl" >/dev/null 2>&1
[ -z "$(ls -A "$OF/int")" ] && ok "sim-run-interrupted-leaves-no-temporary" ||
	bad "sim-run-interrupted-leaves-no-temporary: $(ls -A "$OF/int")"
rm -rf "$OF"
# policies tied for the best both get the star (the first one only did)
if "$FW" sim run --trace synthetic:3 --nodes 13x8 --tick 600 --policies fifo,fairway,fairway:starve-after=86400 \
	2>/dev/null | grep -E '^occupancy' | grep -q '\*.*\*'; then
	ok "sim-run-ties-share-the-star"
else
	bad "sim-run-ties-share-the-star"
fi
EMPTY_FLEET=$(mktemp)
expect "sim-run-empty-fleet-file-names-fleet-keys" 1 "it should be a mapping with topology:, nodes:, nodeGroups:" \
	"$FW" sim run --trace synthetic:3 --fleet "$EMPTY_FLEET"
# a fleet where no node can take work starts nothing: refused, naming the file
printf 'nodes:\n  - {name: a, gpus: 8, schedulable: false}\n  - {name: b, gpus: 8, health: unhealthy}\n' >"$EMPTY_FLEET"
expect "sim-run-fleet-without-an-open-node" 1 "$EMPTY_FLEET: nodes: none of the fleet's 2 nodes can take work (1 with schedulable: false, 1 unhealthy or draining" \
	"$FW" sim run --trace synthetic:3 --fleet "$EMPTY_FLEET"
rm -f "$EMPTY_FLEET"
expect "sim-run-bad-nodes" 2 "13y8" "$FW" sim run --trace x --nodes 13y8
expect "sim-run-unknown-policy" 2 "unknown policy 'lifo'" "$FW" sim run --trace x --policies lifo
expect "sim-run-missing-trace-file" 1 "no-such.csv: cannot open: No such file or directory; check the path given to --trace" \
	"$FW" sim run --trace no-such.csv
# a bare name that is not here but is in $FAIRWAY_TRACES (or a folder of
# it) gets the path to give, and is not loaded in its place; unset, the
# teams note says which variable its relative default comes from
HT=$(mktemp -d)
FWA=$(cd "$(dirname "$FW")" && pwd)/fairway
mkdir -p "$HT/traces/zz-itp" "$HT/cwd" && cp tests/data/bad_itp.csv "$HT/traces/zz-itp/c6.csv"
out=$(cd "$HT/cwd" && FAIRWAY_TRACES="$HT/traces" "$FWA" sim run --trace c6.csv --nodes 2x8 --policies fifo 2>&1)
rc=$?
if [ $rc -eq 1 ] && grep -qF "c6.csv: cannot open: No such file or directory; check the path given to --trace; did you mean --trace $HT/traces/zz-itp/c6.csv (in \$FAIRWAY_TRACES)?" <<<"$out" &&
	! grep -q "duration: 'abc'" <<<"$out"; then
	ok "sim-run-trace-name-in-fairway-traces-hinted"
else
	bad "sim-run-trace-name-in-fairway-traces-hinted: exit $rc: $out"
fi
# the same name without its extension (as the ITP clusters are named,
# "cluster06"): the hint gives the file with its extension, still not
# loaded; a folder of that name is no trace and is not offered
mkdir -p "$HT/traces/c6"
out=$(cd "$HT/cwd" && FAIRWAY_TRACES="$HT/traces" "$FWA" sim run --trace c6 --nodes 2x8 --policies fifo 2>&1)
rc=$?
if [ $rc -eq 1 ] && grep -qF "c6: cannot open: No such file or directory; check the path given to --trace; did you mean --trace $HT/traces/zz-itp/c6.csv (in \$FAIRWAY_TRACES)?" <<<"$out" &&
	! grep -q "duration: 'abc'" <<<"$out"; then
	ok "sim-run-trace-name-without-extension-hinted"
else
	bad "sim-run-trace-name-without-extension-hinted: exit $rc: $out"
fi
# a job's GPU model that two fleet models match but for case (and not each
# other) is refused at its line, naming both, as the daemon's rule takes
# neither (fw_snapshot_gpu_model_spelling); one match alone is taken
printf 'nodes:\n  - {name: a, gpus: 8, gpuModel: GH}\n  - {name: b, gpus: 8, gpuModel: Gh}\n' >"$HT/fleet.yaml"
printf 'job_id,submit_time,duration,gpus_per_task,gpu_model\nj1,0,60,1,GH\nj2,0,60,1,gh\n' >"$HT/t.csv"
expect "sim-run-model-two-spellings-refused" 1 \
	"t.csv:3: gpu_model: job j2 asks GPU model \"gh\", and the fleet has both \"GH\" and \"Gh\", which differ from it only by case: spell it exactly as the one it means" \
	"$FW" sim run --trace "$HT/t.csv" --format fairway --fleet "$HT/fleet.yaml" --policies fifo
expect "sim-run-teams-note-names-the-variable" 0 \
	"../shared/traces/philly-vc-config/philly_vc.csv not found (FAIRWAY_TRACES is not set: the default ../shared/traces is relative to the current directory); using the built-in copy of the 11 Philly VCs (same weights); to read the file, set FAIRWAY_TRACES" \
	bash -c 'cd "$1" && env -u FAIRWAY_TRACES "$2" sim run --trace synthetic:3 --nodes 13x8 --policies fifo' _ "$HT/cwd" "$FWA"
rm -rf "$HT"
expect "sim-run-bad-row-names-file-line-col" 1 "fairway sim run: error: tests/data/bad_itp.csv:3:7: duration: 'abc' is not a number; write a whole number of seconds in decimal digits (no spaces or units), 0..1000000000000" \
	"$FW" sim run --trace tests/data/bad_itp.csv --nodes 2x8 --policies fifo
# --config: a site's own config is the replay's base (docs/sim.md, "Replaying
# your own config"): its queue tree with each queue's limits and run-time
# limit, and its scheduler block under the flags and the variants' keys
SC=$(mktemp -d)
CF=tests/data/sim_config.yaml
CT=tests/data/sim_config_trace.csv
expect "sim-run-config-replays" 0 "queues of $CF (4, 3 leaves)" \
	"$FW" sim run --config "$CF" --trace "$CT" --format fairway --policies fairway,fairway:reserve-depth=32 \
	--json "$SC/r.json" --shares "$SC/s.csv" --log "$SC/l.jsonl"
expect "sim-run-config-notes-its-jobs" 0 "the 1 job of $CF is not replayed" \
	"$FW" sim run --config "$CF" --trace "$CT" --format fairway --policies fifo
expect "sim-run-config-flag-overrides" 0 "policy fairway" \
	"$FW" sim run --config "$CF" --trace "$CT" --format fairway --policies fairway,fairway:reserve-depth=32 \
	--reserve-depth 3 --backfill easy --estimate-depth 5 --json "$SC/o.json"
if python3 - "$SC" "$CF" <<'PY'
import collections, csv, json, sys
d, cf = sys.argv[1], sys.argv[2]
r = json.load(open(d + "/r.json"))
assert r["config"] == cf and r["teams"] is None and r["teamsSource"] == "config queues", r["config"]
# the config's scheduler block: reserveDepth 4, starveAfter 2h, backfill conservative, usageHalfLife 1d
assert (r["reserveDepth"], r["starveAfterS"], r["backfill"], r["usageHalfLifeS"]) == (4, 7200, "conservative", 86400), r
assert r["estimateDepth"] == 64, r["estimateDepth"]
p = {x["policy"]: x for x in r["policies"]}
assert p["fairway"]["reserveDepth"] == 4 and p["fairway:reserve-depth=32"]["reserveDepth"] == 32
o = json.load(open(d + "/o.json"))
po = {x["policy"]: x for x in o["policies"]}
assert (o["reserveDepth"], o["backfill"], o["starveAfterS"], o["estimateDepth"]) == (3, "easy", 7200, 5), o
assert po["fairway"]["reserveDepth"] == 3 and po["fairway:reserve-depth=32"]["reserveDepth"] == 32
q = p["fairway"]["byQueue"]
assert set(q) == {"research", "llm", "vision", "product"}, set(q)
assert q["vision"]["parent"] == "research" and q["vision"]["leaf"] and q["product"]["parent"] is None
assert not q["research"]["leaf"] and q["research"]["jobs"] == 0
assert sum(v["jobs"] for v in q.values()) == r["jobs"]
assert p["fairway"]["timedOutJobs"] >= 1, "product's maxRuntime 4h ends its 6h job"
# the limits hold at every plan: vision 8 GPUs, research (llm + vision) 24
rows = list(csv.DictReader(open(d + "/s.csv")))
assert {x["queue"] for x in rows} == {"llm", "vision", "product"}, "leaves only"
for pol in p:
    plans = collections.OrderedDict()
    for x in rows:
        if x["policy"] == pol:
            plans.setdefault((int(x["t"]), int(x["until"])), {})[x["queue"]] = (float(x["fair_gpus"]), float(x["alloc_gpus"]))
    assert plans and all(v["vision"][1] <= 8 + 1e-9 for v in plans.values()), pol
    assert max(v["vision"][1] for v in plans.values()) > 0, pol
    assert all(v["vision"][1] + v["llm"][1] <= 24 + 1e-9 for v in plans.values()), pol
    # fairness_jain: Jain of alloc/fair over the leaves, as without a config
    acc = tot = 0.0
    for (t, u), v in plans.items():
        xs = [a / f for f, a in v.values() if f > 1e-9]
        if xs and sum(x * x for x in xs) > 0:
            acc += (u - t) * sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs)); tot += u - t
    assert abs(acc / tot - p[pol]["fairnessJain"]) < 1e-6, (acc / tot, p[pol]["fairnessJain"])
# every start in the log names a leaf queue
assert {json.loads(l)["queue"] for l in open(d + "/l.jsonl")} <= {"llm", "vision", "product"}
PY
then ok "sim-run-config-limits-settings-fairness"; else bad "sim-run-config-limits-settings-fairness"; fi
# the tick rules replay a tree alike (preemptible: reclaim and limits), and a
# leaf's budget holds its jobs the same under both; a parent's is refused
sed 's/^      gpu: {quota: 8, limit: 8}/      gpu: {quota: 8, limit: 8}\n    gpuHourBudget: 4/' "$CF" >"$SC/budget.yaml"
for r in every all; do
	"$FW" sim run --config "$SC/budget.yaml" --trace "$CT" --format fairway --policies fifo,slurm,kai,fairway \
		--preemptible --tick-rule $r --log "$SC/$r.jsonl" --json "$SC/$r.json" >"$SC/$r.out" 2>&1
done
if grep -q '"policy":"fairway"' "$SC/all.jsonl" && cmp -s "$SC/every.jsonl" "$SC/all.jsonl" &&
	grep -q 'GPU-hour budgets of the config (gpuHourBudget): queue vision 4 GPU-h, [1-9][0-9]* jobs\? held over it$' "$SC/every.out"; then
	ok "sim-run-config-tick-rules-and-a-leaf-budget"
else
	bad "sim-run-config-tick-rules-and-a-leaf-budget"; tail -3 "$SC/every.out"
fi
sed 's/^      gpu: {quota: 20, limit: 24}/      gpu: {quota: 20, limit: 24}\n    gpuHourBudget: 4/' "$CF" >"$SC/pbudget.yaml"
expect "sim-run-config-parent-budget-refused" 1 \
	"pbudget.yaml: queues.gpuHourBudget: queue 'research' has a gpuHourBudget and child queues; the simulator replays budgets of leaf queues only" \
	"$FW" sim run --config "$SC/pbudget.yaml" --trace "$CT" --format fairway
printf 'job_id,submit_time,duration,queue,gpus_per_task\nx,0,60,llm,1\ny,0,60,research,1\n' >"$SC/parent.csv"
expect "sim-run-config-parent-queue-refused" 1 \
	"parent.csv:3:8: queue: job 'y': 'research' is a parent queue (it has child queues), and jobs go to leaf queues; name a leaf queue of the config (llm, vision, product)" \
	"$FW" sim run --config "$CF" --trace "$SC/parent.csv" --format fairway --json "$SC/no.json"
[ ! -e "$SC/no.json" ] && ok "sim-run-config-refused-writes-nothing" || bad "sim-run-config-refused-writes-nothing"
printf 'job_id,submit_time,duration,queue,gpus_per_task\nx,0,60,llm,1\nz,0,60,infra,1\n' >"$SC/missing.csv"
expect "sim-run-config-missing-queue-refused" 1 \
	"missing.csv:3:8: queue: job 'z': the config has no queue 'infra'; name one of its leaf queues (llm, vision, product)" \
	"$FW" sim run --config "$CF" --trace "$SC/missing.csv" --format fairway
expect "sim-run-config-bad-queue-skipped" 0 "skipped 1 bad row: $SC/missing.csv:3:8: queue: job 'z'" \
	"$FW" sim run --config "$CF" --trace "$SC/missing.csv" --format fairway --skip-bad-rows --policies fifo
expect "sim-run-config-and-fleet" 2 "--config and --fleet: the config's nodes are the replay's fleet; drop --fleet" \
	"$FW" sim run --config "$CF" --fleet tests/data/fleet.yaml --trace "$CT" --format fairway
expect "sim-run-config-and-nodes" 2 "--config and --nodes: the config's nodes are the replay's fleet" \
	"$FW" sim run --config "$CF" --nodes 2x8 --trace "$CT" --format fairway
# a queue name that is a leaf's but for case gets a hint; a trace without
# a queue column is refused at its header
printf 'job_id,submit_time,duration,queue,gpus_per_task\nx,0,60,llm,1\nz,0,60,LLM,1\n' >"$SC/case.csv"
expect "sim-run-config-queue-case-hint" 1 \
	"case.csv:3:8: queue: job 'z': the config has no queue 'LLM' (did you mean 'llm'?); name one of its leaf queues" \
	"$FW" sim run --config "$CF" --trace "$SC/case.csv" --format fairway
printf 'job_id,submit_time,duration,gpus_per_task\nx,0,60,1\ny,0,60,1\n' >"$SC/noqueue.csv"
expect "sim-run-config-needs-a-queue-column" 1 "noqueue.csv:1:1: queue: --config needs a queue column" \
	"$FW" sim run --config "$CF" --trace "$SC/noqueue.csv" --format fairway --skip-bad-rows
# jobs over their queue's limit (llm at 12 GPUs: its 16-GPU jobs) are
# named, never start, and weigh on nothing: the replay equals one of the
# trace without them, but for never_started
sed 's/^      gpu: {quota: 12, overQuotaWeight: 2}/      gpu: {quota: 12, limit: 12, overQuotaWeight: 2}/' "$CF" >"$SC/l12.yaml"
awk -F, 'NR == 1 || !($4 == "llm" && $6 * $7 > 12)' "$CT" >"$SC/fit12.csv"
BIG=$(awk -F, '$4 == "llm" && $6 * $7 > 12' "$CT" | wc -l)
"$FW" sim run --config "$SC/l12.yaml" --trace "$CT" --format fairway --policies fifo,fairway --json "$SC/l12.json" \
	>"$SC/l12.out" 2>&1
"$FW" sim run --config "$SC/l12.yaml" --trace "$SC/fit12.csv" --format fairway --policies fifo,fairway \
	--json "$SC/fit12.json" >/dev/null 2>&1
if [ "$BIG" -gt 0 ] && grep -q "warning: $BIG jobs of $CT ask more than their queue's limit allows (queue llm; the first, '[^']*' (line [0-9]*) needs 16 GPUs at once, and queue llm may hold at most 12 (its limit))" "$SC/l12.out" &&
	python3 - "$SC" "$BIG" <<'PY'
import json, sys
d, big = sys.argv[1], int(sys.argv[2])
a, b = json.load(open(d + "/l12.json")), json.load(open(d + "/fit12.json"))
for p, q in zip(a["policies"], b["policies"]):
    assert p["neverStarted"] == q["neverStarted"] + big, (p["neverStarted"], q["neverStarted"])
    for k in ("fairnessJain", "idleWhileWaitingGpuH", "usedGpuH", "decisions"):
        assert abs(p[k] - q[k]) < 1e-9, (p["policy"], k, p[k], q[k])
PY
then ok "sim-run-config-over-limit-jobs-weigh-on-nothing"; else bad "sim-run-config-over-limit-jobs-weigh-on-nothing"; tail -3 "$SC/l12.out"; fi
# the same through a GPU model limit (llm may hold 12 H100, the fleet's
# only model): its 16-GPU jobs, naming no model, have no model left
sed 's/^    minRuntime: 30m/    minRuntime: 30m\n    gpuModelLimits: {H100: 12}/' "$CF" >"$SC/m12.yaml"
"$FW" sim run --config "$SC/m12.yaml" --trace "$CT" --format fairway --policies fifo,fairway --json "$SC/m12.json" \
	>"$SC/m12.out" 2>&1
"$FW" sim run --config "$SC/m12.yaml" --trace "$SC/fit12.csv" --format fairway --policies fifo,fairway \
	--json "$SC/mfit12.json" >/dev/null 2>&1
if grep -q "warning: $BIG jobs of $CT ask more than their queue's limit allows (queue llm; the first, '[^']*' (line [0-9]*) needs 16 GPUs of one model at once, and queue llm's gpuModelLimits leave it no model that can hold it (H100: at most 12, its limit)), .* Raise the limit (gpuModelLimits, or the parent's)" "$SC/m12.out" &&
	python3 - "$SC" "$BIG" <<'PY'
import json, sys
d, big = sys.argv[1], int(sys.argv[2])
a, b = json.load(open(d + "/m12.json")), json.load(open(d + "/mfit12.json"))
for p, q in zip(a["policies"], b["policies"]):
    assert p["neverStarted"] == q["neverStarted"] + big, (p["neverStarted"], q["neverStarted"])
    for k in ("fairnessJain", "idleWhileWaitingGpuH", "usedGpuH", "decisions"):
        assert abs(p[k] - q[k]) < 1e-9, (p["policy"], k, p[k], q[k])
PY
then ok "sim-run-config-over-model-limit-jobs-weigh-on-nothing"; else bad "sim-run-config-over-model-limit-jobs-weigh-on-nothing"; tail -3 "$SC/m12.out"; fi
# closed nodes and badGpus are no capacity: two closed nodes beside the
# config's replay as the config alone, occupancy, capacity, the cycles the
# replay ran (a closed node's GPUs never wake one) and fairness included
awk '/^  - count: 4/ { print "  - count: 2\n    namePrefix: off-\n    schedulable: false\n    gpus: 8\n    gpuModel: H100\n    topology:\n      nodesPer: {rack: 2}" } { print }' "$CF" >"$SC/closed.yaml"
expect "sim-run-config-usable-gpus" 0 "cluster 6x8 = 48 GPUs (32 usable)" \
	"$FW" sim run --config "$SC/closed.yaml" --trace "$CT" --format fairway --policies fifo,fairway --json "$SC/closed.json"
"$FW" sim run --config "$CF" --trace "$CT" --format fairway --policies fifo,fairway --json "$SC/open.json" >/dev/null 2>&1
if python3 - "$SC" <<'PY'
import json, sys
d = sys.argv[1]
a, b = json.load(open(d + "/closed.json")), json.load(open(d + "/open.json"))
assert (a["gpus"], a["usableGpus"]) == (b["gpus"] + 16, b["usableGpus"]), (a["gpus"], a["usableGpus"])
assert len(a["policies"]) == 2, len(a["policies"])
for p, q in zip(a["policies"], b["policies"]):
    for k in ("capacityGpuH", "occupancy", "usedGpuH", "idleWhileWaitingGpuH", "fairnessJain", "cycles"):
        assert abs(p[k] - q[k]) < 1e-9, (p["policy"], k, p[k], q[k])
    for name, v in p["byQueue"].items():
        for k in ("fairGpusMean", "allocGpusMean"):
            assert abs(v[k] - q["byQueue"][name][k]) < 1e-9, (p["policy"], name, k, v[k], q["byQueue"][name][k])
PY
then ok "sim-run-config-closed-nodes-are-no-capacity"; else bad "sim-run-config-closed-nodes-are-no-capacity"; fi
# the echo: no run-wide limits (null), the file's digest and scheduler
# block; per-queue limits in the CSV as in byQueue; parents' usage is
# their subtree's
"$FW" sim run --config "$SC/budget.yaml" --trace "$CT" --format fairway --policies fifo,fairway \
	--json "$SC/echo.json" --csv "$SC/echo.csv" --report "$SC/echo.html" >/dev/null 2>&1
if python3 - "$SC" <<'PY'
import csv, hashlib, json, sys
d = sys.argv[1]
r = json.load(open(d + "/echo.json"))
assert r["maxRuntimeS"] is None and r["gpuHourBudget"] is None, r["maxRuntimeS"]
assert r["configSha256"] == hashlib.sha256(open(d + "/budget.yaml", "rb").read()).hexdigest()
k = r["configScheduler"]
assert (k["reserveDepth"], k["starveAfterS"], k["backfill"], k["usageHalfLifeS"]) == \
    (r["reserveDepth"], r["starveAfterS"], r["backfill"], r["usageHalfLifeS"]), k
assert "maxStarts" in k and "usageWeight" in k, k
rows = list(csv.DictReader(open(d + "/echo.csv")))
for p in r["policies"]:
    assert p["maxRuntimeS"] is None and p["gpuHourBudget"] is None, p["policy"]
    q = p["byQueue"]
    tot = [x for x in rows if x["policy"] == p["policy"] and x["scope"] == "total"][0]
    assert tot["max_runtime_s"] == "" and tot["gpu_hour_budget"] == "", tot
    qr = {x["name"]: x for x in rows if x["policy"] == p["policy"] and x["scope"] == "queue"}
    for name, v in q.items():
        want = "" if v["maxRuntimeS"] is None else str(v["maxRuntimeS"])
        assert qr[name]["max_runtime_s"] == want, (name, qr[name]["max_runtime_s"], want)
        want = None if v["gpuHourBudget"] is None else v["gpuHourBudget"]
        got = qr[name]["gpu_hour_budget"]
        assert (got == "" and want is None) or abs(float(got) - want) < 1e-9, (name, got, want)
    assert q["product"]["maxRuntimeS"] and q["vision"]["gpuHourBudget"], "the config's limits"
    # the jobs each budget held, by queue (a parent: its subtree's)
    assert q["vision"]["overBudgetJobs"] == p["overBudgetJobs"] > 0, (q["vision"], p["overBudgetJobs"])
    assert (q["research"]["overBudgetJobs"], q["llm"]["overBudgetJobs"]) == (p["overBudgetJobs"], 0), q["research"]
    kids = [n for n, v in q.items() if v["parent"] == "research"]
    assert kids and q["research"]["gpuH"] > 0, q["research"]["gpuH"]
    for key in ("gpuH", "occupancy", "gpuS", "lostGpuH"):
        assert abs(q["research"][key] - sum(q[n][key] for n in kids)) < 1e-6, key
    assert abs(float(qr["research"]["gpu_h"]) - sum(float(qr[n]["gpu_h"]) for n in kids)) < 1e-6
    # a parent waits while its subtree does: at least each child, at most their sum
    idle = {n: q[n]["idleWhileWaitingGpuH"] for n in kids + ["research"]}
    assert max(idle[n] for n in kids) > 0, idle
    assert max(idle[n] for n in kids) - 1e-9 <= idle["research"] <= sum(idle[n] for n in kids) + 1e-9, idle
    assert abs(float(qr["research"]["idle_while_waiting_gpu_h"]) - idle["research"]) < 1e-6, idle
PY
then ok "sim-run-config-echo-limits-digest-and-parent-usage"; else bad "sim-run-config-echo-limits-digest-and-parent-usage"; fi
# the report names the config's queues' limits and budgets, not the flags'
if grep -q "Each queue's budget, GPU-hours (the config's gpuHourBudget)</td><td class=\"dir\"></td><td>vision 4</td>" "$SC/echo.html" &&
	grep -q "Each queue's limit (the config's maxRuntime)</td><td class=\"dir\"></td><td>product 4.0 h</td>" "$SC/echo.html" &&
	! grep -q "Every queue's budget" "$SC/echo.html"; then
	ok "sim-run-config-report-names-each-queues-budget"
else
	bad "sim-run-config-report-names-each-queues-budget"
fi
# Slurm's lowercase model runs on the config's H100 nodes; a model no node
# has is named with the config's fix
printf 'job_id,submit_time,duration,queue,gpus_per_task,gpu_model\nx,0,60,llm,1,h100\ny,0,60,vision,1,a100\n' >"$SC/models.csv"
expect "sim-run-config-unknown-model-names-the-config" 0 "give the config's nodes (gpuModel) that model" \
	"$FW" sim run --config "$CF" --trace "$SC/models.csv" --format fairway --policies fifo --json "$SC/models.json"
if python3 -c 'import json, sys; p = json.load(open(sys.argv[1]))["policies"][0]; assert p["neverStarted"] == 1, p["neverStarted"]' \
	"$SC/models.json" && ! "$FW" sim run --config "$CF" --trace "$SC/models.csv" --format fairway --policies fifo 2>&1 | grep -q "(h100"; then
	ok "sim-run-config-model-case-aside"
else
	bad "sim-run-config-model-case-aside"
fi
expect "sim-run-config-budget-safe-without-a-budget" 1 \
	"$CF: queues.gpuHourBudget: --budget-safe: no queue of the config has a gpuHourBudget, so budget-safe changes nothing" \
	"$FW" sim run --config "$CF" --trace "$CT" --format fairway --budget-safe
expect "sim-run-config-budget-safe-with-a-budget" 0 "GPU-hour budgets of the config (gpuHourBudget): queue vision 4 GPU-h" \
	"$FW" sim run --config "$SC/budget.yaml" --trace "$CT" --format fairway --budget-safe --policies fifo
expect "sim-run-config-budget-safe-variant-without-a-budget" 1 \
	"--policies 'fairway:budget-safe=on': no queue of the config has a gpuHourBudget" \
	"$FW" sim run --config "$CF" --trace "$CT" --format fairway --policies fifo,fairway:budget-safe=on
expect "sim-run-config-and-teams" 2 "--config and --teams: the config's leaf queues take the jobs" \
	"$FW" sim run --config "$CF" --teams philly --trace "$CT" --format fairway
expect "sim-run-config-and-a-queue-flag" 2 "--config and --max-runtime: each queue of the config has its own maxRuntime" \
	"$FW" sim run --config "$CF" --max-runtime=600 --trace "$CT" --format fairway
expect "sim-run-config-and-a-queue-variant" 2 \
	"--policies 'fairway:gpu-hour-budget=5': with --config each queue has its own gpuHourBudget" \
	"$FW" sim run --config "$CF" --trace "$CT" --format fairway --policies fairway:gpu-hour-budget=5
expect "sim-run-config-missing-file" 1 "none.yaml: cannot open the config: No such file or directory; check the path" \
	"$FW" sim run --config "$SC/none.yaml" --trace "$CT" --format fairway
# a fleet input that cannot be opened names the flag that gave it (the fix is there)
expect "sim-run-fleet-missing-file" 1 "none.yaml: cannot open the config: No such file or directory; check the path given to --fleet" \
	"$FW" sim run --trace synthetic --fleet "$SC/none.yaml"
expect "sim-run-fleet-openb-missing-file" 1 "none.csv: cannot open: No such file or directory; check the path given to --fleet-openb" \
	"$FW" sim run --trace synthetic --fleet-openb "$SC/none.csv"
expect "sim-run-topo-missing-file" 1 "none.csv: cannot open: No such file or directory; check the path given to --topo" \
	"$FW" sim run --trace synthetic --topo "$SC/none.csv" --nodes-from-topo 8
expect "sim-run-config-is-an-input" 2 "--json $CF is the --config input" \
	"$FW" sim run --config "$CF" --trace "$CT" --format fairway --json "$CF"
# the platform team's path: sacct -> sacct2fairway -> a replay on the site's
# config, whose leaf queues are the Slurm accounts
printf 'nodeGroups:\n  - {count: 2, namePrefix: h, gpus: 8, gpuModel: h100, cpu: 128, memory: 2Ti}\nqueues:\n%s\n%s\n%s\n%s\n' \
	'  - {name: research, resources: {gpu: {quota: 12}}}' '  - {name: vision, parent: research, resources: {gpu: {quota: 4}}}' \
	'  - {name: nlp, parent: research, resources: {gpu: {quota: 8}}}' '  - {name: gpu, resources: {gpu: {quota: 4}}}' >"$SC/site.yaml"
"$FW" trace sacct2fairway tests/data/sacct_sample.txt "$SC/sacct.csv" >/dev/null 2>&1
expect "sim-run-config-replays-an-sacct-conversion" 0 "policy fairway  3 jobs started" \
	"$FW" sim run --config "$SC/site.yaml" --trace "$SC/sacct.csv" --format fairway --policies fairway
rm -rf "$SC"
# a trace without jobs is bad input: no metric is defined, no output written
HO=$(mktemp -d)
printf 'job_id,submission_time,duration,num_gpu\n' >"$HO/h.csv"
printf 'job_id,submit_time,duration,gpus_per_task\n' >"$HO/g.csv"
# a trace read in the wrong --format: the header error names the right one
WF=$(mktemp -d)
printf 'job_id,submit_time,duration,gpus_per_task\na,0,60,1\n' >"$WF/fw.csv"
expect "sim-run-wrong-format-is-named" 1 \
	"fw.csv:1:1: header: no column 'num_gpu'; add it: an ITP trace's header names job_id,submission_time,duration,num_gpu (any order; docs/trace-format.md); the file looks like a fairway trace: use --format fairway" \
	"$FW" sim run --trace "$WF/fw.csv" --nodes 2x8
expect "sim-run-right-format-reads" 0 "policy fifo     1 job started, " \
	"$FW" sim run --trace "$WF/fw.csv" --format fairway --nodes 2x8 --policies fifo
# ElasticFlow's Philly subset says submit_time for submission_time, with
# columns of its own beside (philly-vc103959-elasticflow): read as ITP
printf 'job_id,submit_time,real_iteration,model_name,num_gpu,duration\n0,0,9,vgg16,2,600\n1,60,9,bert,1,300\n' >"$WF/ef.csv"
expect "sim-run-itp-takes-submit-time" 0 "policy fifo     2 jobs started, " \
	"$FW" sim run --trace "$WF/ef.csv" --nodes 2x8 --policies fifo
printf 'job_id,submit_time,submission_time,num_gpu,duration\n0,0,0,2,600\n' >"$WF/ef2.csv"
expect "sim-run-itp-submit-time-twice" 1 \
	"ef2.csv:1:20: header: column 'submission_time' appears twice (or as 'submit_time'); keep one" \
	"$FW" sim run --trace "$WF/ef2.csv" --nodes 2x8 --policies fifo
# a trace of one virtual cluster (philly-vc103959-elasticflow, known by its
# folder) is that VC's one team, unless --teams asks for the hash split;
# the header and the JSON say where the teams come from
mkdir -p "$WF/t/philly-vc103959-elasticflow" "$WF/t/philly-vc-config"
awk 'BEGIN { print "job_id,submit_time,real_iteration,model_name,num_gpu,duration";
	for (i = 0; i < 40; i++) printf "%d,%d,9,vgg16,%d,%d\n", i, i * 120, 1 + i % 4, 3600 + i * 60 }' \
	>"$WF/t/philly-vc103959-elasticflow/philly_103959.csv"
cp "$WF/t/philly-vc103959-elasticflow/philly_103959.csv" "$WF/copy.csv"
printf 'vc,node num\n6214e9,64\n103959,8\n0e4a51,32\n' >"$WF/t/philly-vc-config/philly_vc.csv"
VCT="$WF/t/philly-vc103959-elasticflow/philly_103959.csv"
FAIRWAY_TRACES="$WF/t" expect "sim-run-one-vc-is-one-team" 0 \
	"teams: one team, vc-103959: $VCT is one virtual cluster (traces README), so its jobs share one queue" \
	"$FW" sim run --trace "$VCT" --nodes 2x8 --policies fifo,fairway --json "$WF/one.json"
FAIRWAY_TRACES="$WF/t" expect "sim-run-one-vc-split-on-request" 0 \
	"teams: a hash split of one virtual cluster's jobs (VC 103959) into 3 invented teams by job_id (--teams philly), so the fairness rows measure that split" \
	"$FW" sim run --trace "$VCT" --nodes 2x8 --policies fifo,fairway --teams philly --json "$WF/split.json"
FAIRWAY_TRACES="$WF/t" expect "sim-run-hash-split-says-so" 0 \
	"teams: the jobs are split by a hash of job_id over 3 teams weighted by size (the trace names no team)" \
	"$FW" sim run --trace "$WF/copy.csv" --nodes 2x8 --policies fifo,fairway --json "$WF/copy.json"
# the same file is one team wherever fairway runs, with or without
# $FAIRWAY_TRACES (known by its folder and file name, a relative path
# resolved), and the header says the team comes from the trace
FWA=$(cd "$(dirname "$FW")" && pwd)/fairway
TSRC="teams of the trace (one virtual cluster, philly-vc103959-elasticflow/philly_103959.csv) (1)"
FAIRWAY_TRACES="$WF/t" expect "sim-run-one-vc-header-names-the-trace" 0 "$TSRC" \
	"$FW" sim run --trace "$VCT" --nodes 2x8 --policies fifo
expect "sim-run-one-vc-without-traces-dir" 0 "$TSRC" \
	env -u FAIRWAY_TRACES sh -c 'cd / && exec "$0" sim run --trace "$1" --nodes 2x8 --policies fifo --json "$2"' \
	"$FWA" "$VCT" "$WF/elsewhere.json"
env -u FAIRWAY_TRACES sh -c 'cd / && exec "$0" sim run --trace "$1" --nodes 2x8 --policies fifo' "$FWA" "$VCT" >"$WF/elsewhere.out" 2>&1
if grep -q "not found\|built-in" "$WF/elsewhere.out"; then bad "sim-run-one-vc-reads-no-teams-file: $(head -1 "$WF/elsewhere.out")"; else ok "sim-run-one-vc-reads-no-teams-file"; fi
expect "sim-run-one-vc-relative-path" 0 "teams: one team, vc-103959: philly_103959.csv is one virtual cluster" \
	env -u FAIRWAY_TRACES sh -c 'cd "$1" && exec "$0" sim run --trace philly_103959.csv --nodes 2x8 --policies fifo' \
	"$FWA" "$WF/t/philly-vc103959-elasticflow"
if python3 -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["teamsSource"] == b["teamsSource"] == "one VC", (a["teamsSource"], b["teamsSource"])
assert a["teams"] == b["teams"] and "one virtual cluster" in a["teams"], (a["teams"], b["teams"])
assert [p["byQueue"] for p in a["policies"] if p["policy"] == "fifo"] == \
    [p["byQueue"] for p in b["policies"] if p["policy"] == "fifo"]
' "$WF/one.json" "$WF/elsewhere.json"; then ok "sim-run-one-vc-same-result-anywhere"; else bad "sim-run-one-vc-same-result-anywhere"; fi
printf 'vc,node num\nmine,1\n' >"$WF/one.csv"
expect "sim-run-one-line-teams-file-is-one-team" 0 "teams: one team, vc-mine (--teams $WF/one.csv): the jobs share one queue" \
	"$FW" sim run --trace "$WF/copy.csv" --nodes 2x8 --policies fifo --teams "$WF/one.csv"
printf 'job_id,submit_time,duration,queue,gpus_per_task\na,0,60,x,1\nb,0,60,y,1\n' >"$WF/q.csv"
"$FW" sim run --trace "$WF/q.csv" --format fairway --nodes 2x8 --policies fifo --json "$WF/q.json" >"$WF/q.out" 2>&1
if ! grep -q "^teams:" "$WF/q.out" && python3 - "$WF" <<'PY'
import json, sys
d = sys.argv[1]
one, split, copy, q = (json.load(open(d + f)) for f in ("/one.json", "/split.json", "/copy.json", "/q.json"))
assert (one["teamsSource"], split["teamsSource"], copy["teamsSource"], q["teamsSource"]) == \
    ("one VC", "hash split of one VC", "hash split", "trace queues"), one["teamsSource"]
for p in one["policies"]:
    assert list(p["byQueue"]) == ["vc-103959"] and p["byQueue"]["vc-103959"]["jobs"] == 40, list(p["byQueue"])
    assert p["fairnessJain"] == 1, p["fairnessJain"]
for p, c in zip(split["policies"], copy["policies"]):
    assert len(p["byQueue"]) == 3 and p["byQueue"] == c["byQueue"], p["policy"]
PY
then ok "sim-run-teams-source-in-the-json"; else bad "sim-run-teams-source-in-the-json"; cat "$WF/q.out" | head -3; fi
rm -rf "$WF"
expect "sim-run-header-only-trace" 1 "h.csv: the trace has no jobs (a header only?)" \
	"$FW" sim run --trace "$HO/h.csv" --nodes 2x8 --json "$HO/h.json"
expect "sim-run-header-only-generic-trace" 1 "g.csv: the trace has no jobs" \
	"$FW" sim run --trace "$HO/g.csv" --format fairway --nodes 2x8 --csv "$HO/g.csv.out"
[ "$(ls -A "$HO" | sort | tr '\n' ' ')" = "g.csv h.csv " ] && ok "sim-run-header-only-writes-nothing" ||
	bad "sim-run-header-only-writes-nothing: $(ls -A "$HO")"
# --verbose: a size bucket without a started job shows '-', never -1
printf 'job_id,submission_time,duration,num_gpu\nA,0,100,16\n' >"$HO/v.csv"
expect "sim-run-verbose-empty-bucket-dash" 0 "  1               0       0          -          -          -          -          -" \
	"$FW" sim run --trace "$HO/v.csv" --nodes 2x8 --policies fifo --verbose
expect "sim-run-verbose-idle-line" 0 "  idle while waiting 0.0 GPU-h   goodput 0.4 GPU-h" \
	"$FW" sim run --trace "$HO/v.csv" --nodes 2x8 --policies fifo --verbose
# a job no placement can ever start is named before the replay (and counted
# as never started), rather than only waiting silently
printf 'job_id,submit_time,duration,gpus_per_task\nA,0,100,16\nB,0,100,1\n' >"$HO/big.csv"
expect "sim-run-warns-of-a-job-larger-than-every-node" 0 \
	"warning: 1 job of $HO/big.csv can never start on this fleet (the first, 'A' (line 2) needs a task of 16 GPUs, and the largest node has 8)" \
	"$FW" sim run --trace "$HO/big.csv" --format fairway --nodes 2x8 --policies fifo
# ... and so is a gang whose tasks the nodes cannot hold, though the fleet's
# GPUs add up: 2 tasks of 8 GPUs on one 8-GPU node and four of 4 (24 GPUs)
printf 'job_id,submit_time,duration,queue,tasks,gpus_per_task\nG,0,100,q,2,8\nS,10,100,q,1,1\n' >"$HO/gang.csv"
expect "sim-run-warns-of-a-gang-the-nodes-cannot-hold" 0 \
	"warning: 1 job of $HO/gang.csv can never start on this fleet (the first, 'G' (line 2) needs 2 tasks of 8 GPUs at once, and the fleet's nodes hold 1 such task)" \
	"$FW" sim run --trace "$HO/gang.csv" --format fairway --fleet tests/data/fleet.yaml --policies fifo
# ... and GPUs idle behind it are no waste: idle while waiting counts only
# jobs that may start (docs/metrics.md).  A (16 GPUs a task, 8-GPU nodes)
# never starts; fairway starts B (at 5) on the tick at 60: 55 s x 16 GPUs.
# fifo holds B behind A and its replay ends at B's arrival.  Counting A,
# fifo had 80 GPU-s and fairway 1110.
printf 'job_id,submit_time,duration,gpus_per_task\nA,0,10,16\nB,5,10,1\n' >"$HO/ns.csv"
if "$FW" sim run --trace "$HO/ns.csv" --format fairway --nodes 2x8 --policies fifo,fairway \
	--json "$HO/ns.json" >/dev/null 2>&1 && python3 -c '
import json, sys
p = {x["policy"]: x for x in json.load(open(sys.argv[1]))["policies"]}
idle = {k: round(v["idleWhileWaitingGpuH"] * 3600, 3) for k, v in p.items()}
assert idle == {"fifo": 0, "fairway": 880}, idle
' "$HO/ns.json"; then
	ok "sim-run-idle-while-waiting-leaves-out-jobs-that-never-fit"
else
	bad "sim-run-idle-while-waiting-leaves-out-jobs-that-never-fit"
fi
# ... yet fifo's 0 is no best: B waits forever, and fifo's window ends at
# B's arrival, so that wait is never counted.  A policy that left more
# jobs never started is not marked on the window's rows (stdout, report).
out=$("$FW" sim run --trace "$HO/ns.csv" --format fairway --nodes 2x8 --policies fifo,fairway \
	--report "$HO/ns.html" 2>&1)
if grep -qE '^GPU-h idle while jobs wait +0\.000  +0\.244\*$' <<<"$out" &&
	grep -qE '^occupancy \(%\) +0\.000  +0\.893\*$' <<<"$out" &&
	grep -q 'idle while a job waits</td><td class="dir">[^<]*</td><td>0.0</td><td class="win">' "$HO/ns.html"; then
	ok "sim-run-a-policy-that-starves-jobs-is-not-best-on-idle-while-waiting"
else
	bad "sim-run-a-policy-that-starves-jobs-is-not-best-on-idle-while-waiting"; grep -E '^(GPU-h idle|occupancy)' <<<"$out"
fi
rm -rf "$HO"
expect "sim-run-skip-bad-rows-counts" 0 "skipped 1 bad row: tests/data/bad_itp.csv:" \
	"$FW" sim run --trace tests/data/bad_itp.csv --nodes 2x8 --policies fifo --skip-bad-rows
expect "sim-run-synthetic-summary" 0 "summary (* = best)" \
	"$FW" sim run --trace synthetic:3 --nodes 13x8 --policies fifo,kai --tick 600
# each row of the summary reads in one unit and one precision (this run
# has waits from a minute to days and lost GPU-h from 3.8 to 15.8)
SU=${TMPDIR:-/tmp}/fw-cli-su.$$.out
"$FW" sim run --trace synthetic:3 --nodes 13x8 --policies fifo,kai,fairway --failures 5 >"$SU" 2>&1
if python3 - "$SU" <<'PY'
import re, sys
rows = open(sys.argv[1]).read().split("summary (* = best)", 1)[1].splitlines()[1:]
rows = [r for r in rows if r.strip()]
cell = re.compile(r"(\d+(?:\.(\d+))?)(?: (s|min|h|d))?\*?")
units_seen = set()
for r in rows:
    cells = cell.findall(re.split(r"\s{2,}", r.strip(), 1)[1])  # after the label
    units = {u for _, _, u in cells}
    places = {len(d) for _, d, _ in cells}
    units_seen |= units
    if len(units) > 1 or len(places) > 1:
        sys.exit("mixed: " + r)
sys.exit(0 if len(rows) >= 19 and {"min", "h", "d"} <= units_seen else "too few rows or units: %d %s" % (len(rows), units_seen))
PY
then
	ok "sim-run-summary-one-unit-and-precision-a-row"
else
	bad "sim-run-summary-one-unit-and-precision-a-row"; sed -n '/^summary/,$p' "$SU"
fi
rm -f "$SU"
expect "sim-run-bad-synthetic-seed" 2 "--trace 'synthetic:abc': the seed is a whole number 0..18446744073709551615" \
	"$FW" sim run --trace synthetic:abc
expect "sim-run-negative-synthetic-seed" 2 "--trace 'synthetic:-1': the seed is a whole number" "$FW" sim run --trace synthetic:-1
expect "sim-run-synthetic-seed-overflow" 2 "the seed is a whole number" "$FW" sim run --trace synthetic:18446744073709551616
expect "sim-run-blocks-needs-racks" 2 "--blocks M groups racks: give --racks K too" "$FW" sim run --trace synthetic:3 --blocks 2
# Without --nodes, a known ITP trace gets its standard size (traces README)
C10=${FAIRWAY_TRACES:-../shared/traces}/microsoft-itp/cluster10.csv
if [ -f "$C10" ]; then
	expect "sim-run-standard-size" 0 "nodes: 2x8, the standard size for cluster10.csv (traces README)" \
		"$FW" sim run --trace "$C10" --policies fifo
else
	echo "SKIP sim-run-standard-size: $C10 not found (set FAIRWAY_TRACES)"
fi
# ... only the real one: a user's own file named cluster01.csv gets the default
MY=$(mktemp -d)
printf 'job_id,submission_time,duration,num_gpu\nA,0,100,1\n' >"$MY/cluster01.csv"
expect "sim-run-no-standard-size-for-a-name-alone" 0 \
	"nodes: $MY/cluster01.csv is not an ITP trace of" \
	"$FW" sim run --trace "$MY/cluster01.csv" --policies fifo
expect "sim-run-own-cluster01-gets-the-default" 0 "cluster 13x8 = 104 GPUs" \
	"$FW" sim run --trace "$MY/cluster01.csv" --policies fifo
FAIRWAY_TRACES=$MY/.. expect "sim-run-own-cluster01-needs-the-itp-folder" 0 "nodes: 13x8 (default; pass --nodes NxG)" \
	"$FW" sim run --trace "$MY/cluster01.csv" --policies fifo
# a folder named microsoft-itp under $FAIRWAY_TRACES is the ITP traces' folder
mkdir "$MY/microsoft-itp" && cp "$MY/cluster01.csv" "$MY/microsoft-itp/"
FAIRWAY_TRACES=$MY expect "sim-run-standard-size-in-the-itp-folder" 0 \
	"nodes: 8x8, the standard size for cluster01.csv (traces README)" \
	"$FW" sim run --trace "$MY/./microsoft-itp/cluster01.csv" --policies fifo
# stdout's lines come out before a later note or error on stderr, also
# through a pipe, where stdout is buffered (before, `2>&1 | less` showed
# the error first, then "nodes: ...", and a trace whose rows were all
# skipped said "the first one's reason is above" above that reason)
line_order() { # text, fixed strings...: the numbers of the strings, in the order of the lines holding them
	local text=$1 line i p
	shift
	while IFS= read -r line; do
		i=1
		for p in "$@"; do
			grep -qF -- "$p" <<<"$line" && { printf '%d ' "$i"; break; }
			i=$((i + 1))
		done
	done <<<"$text"
}
printf 'job_id,submission_time,duration,num_gpu\nA,0,x,1\nB,5,y,2\n' >"$MY/allbad.csv"
ord=$("$FW" sim run --trace "$MY/allbad.csv" --skip-bad-rows --policies fifo 2>&1 | cat)
if [ "$(line_order "$ord" "nodes: 13x8 (default" "skipped 2 bad rows; the first: $MY/allbad.csv:2:5: duration" \
	"error: $MY/allbad.csv: the trace has no jobs: all 2 of its rows were skipped as bad; fix them (the first one's reason is above)")" = "1 2 3 " ]; then
	ok "sim-run-stdout-lines-before-a-later-error-through-a-pipe"
else
	bad "sim-run-stdout-lines-before-a-later-error-through-a-pipe"; echo "$ord"
fi
printf 'job_id,submission_time,duration,num_gpu\nA,0,100,1\nB,5,100,200\n' >"$MY/big.csv"
ord=$("$FW" sim run --trace "$MY/big.csv" --policies fifo 2>&1 | cat)
if [ "$(line_order "$ord" "nodes: 13x8 (default" "fairway: warning: 1 job of $MY/big.csv can never start" \
	"trace $MY/big.csv: 2 jobs")" = "1 2 3 " ]; then
	ok "sim-run-stdout-lines-before-a-warning-through-a-pipe"
else
	bad "sim-run-stdout-lines-before-a-warning-through-a-pipe"; echo "$ord"
fi
# a trace of one job: one job, in the header and in the report (before, "1 jobs")
printf 'job_id,submission_time,duration,num_gpu\nA,0,100,4\n' >"$MY/one.csv"
ord=$("$FW" sim run --trace "$MY/one.csv" --policies fifo,fairway --report "$MY/one.html" --json "$MY/one.json" 2>&1)
if grep -qF "trace $MY/one.csv: 1 job; cluster 13x8" <<<"$ord" && grep -qF '<p class="sub">1 job replayed on 13 nodes' "$MY/one.html" &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["jobs"] == 1 and all(p["decisions"] == 1 for p in d["policies"])' "$MY/one.json"; then
	ok "sim-run-one-job-trace"
else
	bad "sim-run-one-job-trace"; echo "$ord" | head -3
fi
# the report's header writes its tick in span words, as the text report does (before, "scheduling tick 60 s")
"$FW" sim run --trace "$MY/one.csv" --policies fifo --tick 90 --report "$MY/tick.html" >/dev/null 2>&1
if grep -qF 'scheduling tick 1m30s, through 1 policy' "$MY/tick.html" && ! grep -qF 'scheduling tick 90 s' "$MY/tick.html"; then
	ok "sim-run-report-tick-in-words"
else
	bad "sim-run-report-tick-in-words"; grep -o 'scheduling tick[^,]*' "$MY/tick.html"
fi
rm -rf "$MY"
# --verbose with node failures: the evictions they caused and the work lost
"$FW" sim run --trace synthetic:3 --nodes 13x8 --tick 600 --policies fifo --failures 50 --verbose \
	--json "${TMPDIR:-/tmp}/fw-cli-fail.json" >"${TMPDIR:-/tmp}/fw-cli-fail.out" 2>&1
if python3 -c 'import json,re,sys
p = json.load(open(sys.argv[1]))["policies"][0]
m = re.search(r"^  (\d+) evictions \((\d+) by (\d+) node failures\), (\d+) GPU-s of work lost$", open(sys.argv[2]).read(), re.M)
sys.exit(not (m and p["evictions"] > 0 and int(m[1]) == p["evictions"] and int(m[2]) == p["failureHits"]
              and int(m[3]) == p["failures"] and abs(int(m[4]) - p["lostGpuS"]) <= 1))' \
	"${TMPDIR:-/tmp}/fw-cli-fail.json" "${TMPDIR:-/tmp}/fw-cli-fail.out"; then
	ok "sim-run-verbose-failure-evictions"
else
	bad "sim-run-verbose-failure-evictions"; grep evictions "${TMPDIR:-/tmp}/fw-cli-fail.out"
fi
rm -f "${TMPDIR:-/tmp}/fw-cli-fail.json" "${TMPDIR:-/tmp}/fw-cli-fail.out"
# the text report writes a span in words (span.h: "93h42m02s", "1m"), as
# every span fairway shows a person, never bare seconds ("makespan 5913000
# s", a table of "337322" under "(seconds)", "tick 60 s", "repair 14400
# s"); to the second, so each reads back as the JSON's number
"$FW" sim run --trace synthetic:3 --nodes 13x8 --tick 10m --policies fifo,fairway --failures 50 --repair 5400 \
	--verbose --json "${TMPDIR:-/tmp}/fw-cli-span.json" >"${TMPDIR:-/tmp}/fw-cli-span.out" 2>/dev/null
if python3 - "${TMPDIR:-/tmp}/fw-cli-span.json" "${TMPDIR:-/tmp}/fw-cli-span.out" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
out = open(sys.argv[2]).read()
SPAN = r"(?:\d+h\d\dm(?:\d\ds)?|\d+m(?:\d\ds)?|\d+s)"
def secs(w):
    m = re.fullmatch(r"(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?", w)
    assert m and w, w
    return sum(int(x or 0) * k for x, k in zip(m.groups(), (3600, 60, 1)))
assert re.search(r"; tick 10m; ", out), "tick"
assert re.search(r"repair 1h30m, seed", out), "repair"
pols = {p["policy"]: p for p in d["policies"]}
blocks = re.split(r"\npolicy ", out)[1:]
assert len(blocks) == 2, len(blocks)
for b in blocks:
    p = pols[b.split(":", 1)[0]]
    m = re.search(r"makespan (" + SPAN + r")   JCT mean (" + SPAN + r")   JCT p95 (" + SPAN + r")\n", b)
    assert m, b[:300]
    assert secs(m[1]) == p["makespanS"] and secs(m[2]) == round(p["jctMeanS"]) and secs(m[3]) == p["jctP95S"], m.groups()
    assert "(seconds)" not in b
    rows = 0
    for name, st in p["byGpus"].items():
        r = re.search(r"^  " + re.escape(name) + r" +(\d+) +(\d+)" + r" +(\S+)" * 5 + r"$", b, re.M)
        assert r, name
        cells = r.groups()[2:]
        assert all(c == "-" or re.fullmatch(SPAN, c) for c in cells), cells
        want = [st["timeToStartS"]["p50"], st["timeToStartS"]["p95"], st["timeToStartS"]["p99"],
                None if st["jctMeanS"] is None else round(st["jctMeanS"]), st["jctP95S"]]
        assert [None if c == "-" else secs(c) for c in cells] == want, (name, cells, want)
        rows += 1
    assert rows == 6, rows
PY
then ok "sim-run-text-report-spans-in-words"; else bad "sim-run-text-report-spans-in-words"; fi
rm -f "${TMPDIR:-/tmp}/fw-cli-span.json" "${TMPDIR:-/tmp}/fw-cli-span.out"
# evictions without node failures say nothing of failures ("0 by 0 node
# failures" read oddly); a count of one is singular
"$FW" sim run --trace synthetic:3 --nodes 13x8 --tick 600 --policies kai --preemptible --verbose \
	>"${TMPDIR:-/tmp}/fw-cli-ev.out" 2>&1
if grep -Eq '^  [1-9][0-9]* evictions, [0-9]+ GPU-s of work lost$' "${TMPDIR:-/tmp}/fw-cli-ev.out" &&
	! grep -q 'node failure' "${TMPDIR:-/tmp}/fw-cli-ev.out"; then
	ok "sim-run-verbose-evictions-without-failures"
else
	bad "sim-run-verbose-evictions-without-failures"; grep evictions "${TMPDIR:-/tmp}/fw-cli-ev.out"
fi
rm -f "${TMPDIR:-/tmp}/fw-cli-ev.out"
expect "sim-run-one-node-failure-is-singular" 0 "  1 node failure hit 0 running jobs;" \
	"$FW" sim run --trace synthetic:3 --nodes 2x8 --tick 3600 --policies fifo --failures 20
expect "sim-run-one-running-job-is-singular" 0 "  2 node failures hit 1 running job;" \
	"$FW" sim run --trace synthetic:3 --nodes 13x8 --policies fifo --failures 3
# Fleets from files, team files and the tick rule, as a user runs them:
# an openb node list of mixed sizes is described as it is (not as 1-GPU
# nodes), a topology file makes one node per host, a team file makes the
# queues, and the tick rules replay alike.
FT=$(mktemp -d)
printf 'sn,cpu_milli,memory_mib,gpu,model\na,64000,262144,8,V100\nb,64000,262144,8,V100\nc,32000,131072,2,P100\n' >"$FT/n.csv"
printf 'ip,DSW,PSW,ASW\nh1,G1,P1,S1\nh2,G1,P1,S1\nh3,G2,P1,S1\nh4,G2,P2,S1\n' >"$FT/topo.csv"
printf 'vc,node num\n6214e9,2\n7f04ca,1\n' >"$FT/teams.csv"
expect "sim-run-fleet-openb-mixed" 0 "cluster 3 nodes (2x8+1x2) = 18 GPUs" \
	"$FW" sim run --trace synthetic:3 --fleet-openb "$FT/n.csv" --policies fifo --tick 600 --json "$FT/o.json" \
	--report "$FT/o.html"
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d["nodes"] == "2x8+1x2" and d["gpus"] == 18))' \
	"$FT/o.json" && grep -qF "on 3 nodes of mixed sizes, 2x8+1x2 nodes" "$FT/o.html"; then
	ok "sim-run-fleet-openb-json-and-report"
else
	bad "sim-run-fleet-openb-json-and-report"
fi
expect "sim-run-nodes-from-topo" 0 "cluster 4x8 = 32 GPUs" \
	"$FW" sim run --trace synthetic:3 --topo "$FT/topo.csv" --nodes-from-topo 8 --policies fifo --tick 600
# the JSON names the fleet's files as given, so two runs can be told apart
"$FW" sim run --trace synthetic:3 --topo "$FT/topo.csv" --nodes-from-topo 8 --policies fifo --tick 600 \
	--json "$FT/topo.json" >/dev/null 2>&1
"$FW" sim run --trace synthetic:3 --fleet tests/data/fleet.yaml --policies fifo --tick 600 \
	--json "$FT/fleet.json" >/dev/null 2>&1
if python3 - "$FT" <<'PY'
import json, sys
d = {k: json.load(open("%s/%s.json" % (sys.argv[1], k))) for k in ("topo", "fleet", "o")}
f = lambda k: (d[k]["fleet"], d[k]["fleetOpenb"], d[k]["topo"])
assert f("topo") == (None, None, sys.argv[1] + "/topo.csv"), f("topo")
assert f("fleet") == ("tests/data/fleet.yaml", None, None), f("fleet")
assert f("o") == (None, sys.argv[1] + "/n.csv", None), f("o")
PY
then ok "sim-run-json-names-fleet-and-topo-files"; else bad "sim-run-json-names-fleet-and-topo-files"; fi
expect "sim-run-nodes-from-topo-needs-topo" 2 "--nodes-from-topo G needs --topo FILE" \
	"$FW" sim run --trace synthetic:3 --nodes-from-topo 8
expect "sim-run-topo-not-with-racks" 2 "--racks/--blocks generate a topology; not with a fleet or --topo" \
	"$FW" sim run --trace synthetic:3 --topo "$FT/topo.csv" --racks 2
# --racks with one fleet option says why (QA saw the one-fleet message here)
expect "sim-run-racks-not-with-fleet" 2 "--racks/--blocks generate a topology; not with a fleet or --topo" \
	"$FW" sim run --trace synthetic:3 --racks 2 --fleet tests/data/fleet.yaml
expect "sim-run-racks-not-with-fleet-openb" 2 "--racks/--blocks generate a topology; not with a fleet or --topo" \
	"$FW" sim run --trace synthetic:3 --fleet-openb "$FT/n.csv" --racks=2
expect "sim-run-one-fleet-only" 2 "use one of --nodes, --fleet, --fleet-openb, --nodes-from-topo" \
	"$FW" sim run --trace synthetic:3 --nodes 2x8 --fleet-openb "$FT/n.csv"
"$FW" sim run --trace synthetic:3 --nodes 4x8 --teams "$FT/teams.csv" --policies fifo --tick 600 \
	--json "$FT/t.json" >/dev/null 2>&1
if python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
q = d["policies"][0]["byQueue"]
sys.exit(not (sorted(q) == ["vc-6214e9", "vc-7f04ca"] and abs(q["vc-6214e9"]["deservedGpus"] - 2 * q["vc-7f04ca"]["deservedGpus"]) < 0.01))' \
	"$FT/t.json"; then
	ok "sim-run-teams-file-makes-the-queues"
else
	bad "sim-run-teams-file-makes-the-queues"
fi
expect "sim-run-teams-file-missing" 1 "error: --teams $FT/none.csv: cannot open: No such file or directory; check the path, or give --teams philly" \
	"$FW" sim run --trace synthetic:3 --teams "$FT/none.csv"
# docs/sim.md: 'every' skips only ticks that can start nothing, so it
# replays as 'all' does; 'change' (cycles after events only) does for the
# policies without reservations
for r in every all; do
	"$FW" sim run --trace synthetic:3 --nodes 13x8 --policies fifo,kai,fairway --tick 600 --tick-rule $r \
		--log "$FT/$r.jsonl" >/dev/null 2>&1
done
"$FW" sim run --trace synthetic:3 --nodes 13x8 --policies fifo,kai --tick 600 --tick-rule change \
	--log "$FT/change.jsonl" >/dev/null 2>&1
if grep -q '"policy":"fairway"' "$FT/all.jsonl" && cmp -s "$FT/every.jsonl" "$FT/all.jsonl" &&
	grep -v '"policy":"fairway"' "$FT/all.jsonl" | cmp -s "$FT/change.jsonl" -; then
	ok "sim-run-tick-rules-replay-alike"
else
	bad "sim-run-tick-rules-replay-alike"
fi
expect "sim-run-bad-tick-rule" 2 "--tick-rule 'often': expected every, change or all" \
	"$FW" sim run --trace synthetic:3 --tick-rule often
# --topo over generated nodes: one host per node, in order; too few hosts
# is an error naming the file
expect "sim-run-topo-over-nodes" 0 "cluster 4x8 = 32 GPUs" \
	"$FW" sim run --trace synthetic:3 --nodes 4x8 --topo "$FT/topo.csv" --policies fifo --tick 600
expect "sim-run-topo-too-few-hosts" 1 "$FT/topo.csv: hosts: has 4 hosts, the fleet has 6 nodes" \
	"$FW" sim run --trace synthetic:3 --nodes 6x8 --topo "$FT/topo.csv" --policies fifo --tick 600
# --preemptible and --min-runtime reach the engine: fairway evicts on this
# trace, and a protection window longer than the trace leaves nothing to evict
for mr in 3600 31536000; do
	"$FW" sim run --trace synthetic:3 --nodes 13x8 --tick 600 --policies fairway --preemptible --min-runtime $mr \
		--json "$FT/pre-$mr.json" >/dev/null 2>&1
done
if python3 -c 'import json,sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
sys.exit(not (a["preemptible"] and a["minRuntimeS"] == 3600 and a["policies"][0]["evictions"] > 0
              and a["policies"][0]["lostGpuH"] > 0 and b["policies"][0]["evictions"] == 0))' \
	"$FT/pre-3600.json" "$FT/pre-31536000.json"; then
	ok "sim-run-preemptible-and-min-runtime-reach-the-engine"
else
	bad "sim-run-preemptible-and-min-runtime-reach-the-engine"
fi
expect "sim-run-bare-flag-with-value" 2 "--verbose takes no value" "$FW" sim run --trace synthetic:3 --verbose=1
expect "sim-run-bad-format" 2 "--format 'csv': use itp, openb or fairway" "$FW" sim run --trace x --format csv
expect "sim-run-stray-argument" 2 "unexpected argument 'extra'" "$FW" sim run --trace x extra
rm -rf "$FT"
# 0 is accepted by these (none / off), so the message states 0..
expect "sim-run-checkpoint-range" 2 "--checkpoint '-1': expected seconds or a duration like 90s, 10m, 2h, 1d or 1h30m, whole seconds 0..31536000" "$FW" sim run --trace x --checkpoint -1
expect "sim-run-min-runtime-range" 2 "--min-runtime '-5': expected seconds or a duration like 90s, 10m, 2h, 1d or 1h30m, whole seconds 0..31536000" "$FW" sim run --trace x --min-runtime -5
expect "sim-run-starve-after-range" 2 "--starve-after '-5': expected seconds or a duration like 90s, 10m, 2h, 1d or 1h30m, whole seconds 0..31536000" "$FW" sim run --trace x --starve-after -5
# every time flag of sim run takes the durations the config and the other
# fairway flags take (fw_parse_duration_ms): 1h is 3600 s, echoed so in
# the JSON; a fraction of a second, a unit past 365 d, or no duration is
# refused naming the flag
printf 'job_id,submission_time,duration,num_gpu\nA,0,100,1\n' >"$FT.dur.csv"
"$FW" sim run --trace "$FT.dur.csv" --nodes 1x8 --policies fairway --tick 1h --min-runtime 1h \
	--checkpoint 30m --checkpoint-grace 10m --max-runtime 2d --starve-after 1d12h --xfactor-cap 6h \
	--usage-half-life 7d --json "$FT.dur.json" >/dev/null 2>&1
if python3 - "$FT.dur.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
want = dict(tickS=3600, minRuntimeS=3600, checkpointS=1800, checkpointGraceS=600, maxRuntimeS=172800,
            starveAfterS=129600, xfactorCapS=21600, usageHalfLifeS=604800)
got = {k: d[k] for k in want}
assert got == want, got
PY
then ok "sim-run-time-flags-take-durations"; else bad "sim-run-time-flags-take-durations"; fi
rm -f "$FT.dur.csv" "$FT.dur.json"
expect "sim-run-tick-fraction-refused" 2 "--tick '1.5s': expected seconds or a duration like 90s, 10m, 2h, 1d or 1h30m, whole seconds 1..31536000" \
	"$FW" sim run --trace x --tick 1.5s
expect "sim-run-tick-zero-refused" 2 "--tick '0m': expected seconds or a duration like 90s, 10m, 2h, 1d or 1h30m, whole seconds 1..31536000" \
	"$FW" sim run --trace x --tick 0m
expect "sim-run-min-runtime-too-long" 2 "--min-runtime '366d': expected seconds or a duration like 90s, 10m, 2h, 1d or 1h30m, whole seconds 0..31536000" \
	"$FW" sim run --trace x --min-runtime 366d
expect "sim-run-repair-takes-a-duration" 2 "--repair '1x': expected seconds or a duration like 90s, 10m, 2h, 1d or 1h30m, whole seconds 1..31536000" \
	"$FW" sim run --trace x --failures 1 --repair 1x
expect "sim-run-half-life-fraction-refused" 2 "--usage-half-life '1.5': expected seconds or a duration like 90s, 10m, 2h, 1d or 1h30m, whole seconds 1..3153600000" \
	"$FW" sim run --trace x --usage-half-life 1.5
# --starve-after and --backfill reach the engine: with fairway's starvation
# pass off the gangs' p95 wait grows; conservative backfill changes slurm's
# replay (EASY reserves for one job); bad values are refused.
expect "sim-run-bad-starve-after" 2 "--starve-after '-3'" "$FW" sim run --trace x --starve-after -3
expect "sim-run-bad-backfill" 2 "--backfill 'yes': use easy or conservative" "$FW" sim run --trace x --backfill yes
SV=$(mktemp -d)
for v in default off; do
	extra=(); [ $v = off ] && extra=(--starve-after 0)
	"$FW" sim run --trace synthetic:3 --nodes 13x8 --policies fairway --tick 600 "${extra[@]}" \
		--json "$SV/$v.json" >/dev/null 2>&1
done
"$FW" sim run --trace synthetic:3 --nodes 13x8 --policies slurm --tick 600 --backfill conservative \
	--json "$SV/cons.json" >/dev/null 2>&1
"$FW" sim run --trace synthetic:3 --nodes 13x8 --policies slurm --tick 600 --json "$SV/easy.json" >/dev/null 2>&1
if python3 - "$SV" <<'PY'
import json, sys
d = {k: json.load(open("%s/%s.json" % (sys.argv[1], k))) for k in ("default", "off", "cons", "easy")}
p95 = lambda k: d[k]["policies"][0]["byGpus"]["9+"]["timeToStartS"]["p95"]
assert d["default"]["starveAfterS"] is None and d["off"]["starveAfterS"] == 0, "starve_after_s echoed"
assert p95("off") > 2 * p95("default"), (p95("off"), p95("default"))
assert d["cons"]["backfill"] == "conservative" and d["easy"]["backfill"] == "easy"
assert d["cons"]["policies"][0]["jctMeanS"] != d["easy"]["policies"][0]["jctMeanS"], "backfill mode ignored"
PY
then ok "sim-run-starve-after-and-backfill-reach-the-engine"; else bad "sim-run-starve-after-and-backfill-reach-the-engine"; fi
# a replay echoes only the settings its policy reads: fifo and kai make no
# reservations, so no backfill or reserve_depth; slurm no starve_after_s
"$FW" sim run --trace synthetic:3 --nodes 13x8 --policies fifo,slurm,kai,fairway --tick 600 \
	--backfill conservative --reserve-depth 4 --json "$SV/echo.json" >/dev/null 2>&1
if python3 - "$SV/echo.json" <<'PY'
import json, sys
keys = ("starveAfterS", "backfill", "reserveDepth", "xfactorCapS", "userFairShare", "checkpointGraceS")
got = {p["policy"]: sorted(k for k in keys if k in p) for p in json.load(open(sys.argv[1]))["policies"]}
assert got == {"fifo": [], "slurm": ["backfill", "reserveDepth"],
               "kai": ["checkpointGraceS", "userFairShare", "xfactorCapS"],
               "fairway": sorted(keys)}, got
PY
then ok "sim-run-json-echoes-only-settings-the-policy-reads"; else bad "sim-run-json-echoes-only-settings-the-policy-reads"; fi
# Policy variants: one run compares a policy with itself under other settings,
# and each variant replays exactly as the same settings given for the whole run
"$FW" sim run --trace synthetic:3 --nodes 13x8 --tick 600 \
	--policies fairway,fairway:starve-after=0,slurm:backfill=conservative \
	--json "$SV/var.json" --log "$SV/var.log" >"$SV/var.out" 2>&1
if python3 - "$SV" <<'PY'
import json, sys
d = {k: json.load(open("%s/%s.json" % (sys.argv[1], k))) for k in ("default", "off", "cons", "var")}
v = {p["policy"]: p for p in d["var"]["policies"]}
assert list(v) == ["fairway", "fairway:starve-after=0", "slurm:backfill=conservative"], list(v)
assert v["fairway:starve-after=0"]["basePolicy"] == "fairway" and v["fairway:starve-after=0"]["starveAfterS"] == 0
assert v["fairway"]["starveAfterS"] is None and v["slurm:backfill=conservative"]["backfill"] == "conservative"
same = lambda a, b: all(a[k] == b[k] for k in ("jctMeanS", "occupancy", "byGpus", "fairnessJain"))
assert same(v["fairway"], d["default"]["policies"][0]), "the plain entry is the plain run"
assert same(v["fairway:starve-after=0"], d["off"]["policies"][0]), "the variant is the run with --starve-after 0"
assert same(v["slurm:backfill=conservative"], d["cons"]["policies"][0]), "the variant is the run with --backfill conservative"
logs = {json.loads(l)["policy"] for l in open("%s/var.log" % sys.argv[1])}
assert logs == set(v), logs
PY
then ok "sim-run-policy-variants"; else bad "sim-run-policy-variants"; fi
grep -q "^summary (\* = best) .*fairway:starve-after=0 slurm:backfill=conservative$" "$SV/var.out" &&
	ok "sim-run-policy-variants-compared" || bad "sim-run-policy-variants-compared: $(grep summary "$SV/var.out")"
expect "sim-run-variant-unknown-setting" 2 "unknown setting 'depth'; the settings are starve-after, backfill, reserve-depth, " \
	"$FW" sim run --trace x --policies fairway:depth=4
# a name in capitals is hinted in lower case (and still refused: names are compared as written)
expect "sim-run-policy-case-hint" 2 "unknown policy 'FIFO' (did you mean 'fifo'?); known: fairway fifo slurm kai" \
	"$FW" sim run --trace synthetic:3 --policies FIFO
expect "sim-run-format-case-hint" 2 "--format 'ITP' (did you mean 'itp'?): use itp, openb or fairway" \
	"$FW" sim run --trace synthetic:3 --format ITP
expect "plan-policy-case-hint" 2 "unknown policy 'Slurm' (did you mean 'slurm'?)" "$FW" plan --policy Slurm
expect "sim-run-flag-case-hint" 2 "unknown option '--Nodes' (did you mean '--nodes'?)" \
	"$FW" sim run --trace synthetic:3 --Nodes 4x8
# a misspelt variant key names the near one, as a misspelt flag does
expect "sim-run-variant-unknown-setting-near" 2 "unknown setting 'reserve-dept' (did you mean 'reserve-depth'?); the settings are" \
	"$FW" sim run --trace x --policies fairway:reserve-dept=4
expect "sim-run-variant-bad-value" 2 "starve-after=1x: seconds or a duration like 90s, 10m, 2h, 1d or 1h30m, whole seconds from 0 (off)" \
	"$FW" sim run --trace x --policies fairway:starve-after=1x
# a time setting takes a duration as its flag does (--starve-after 1h)
expect "sim-run-variant-takes-a-duration" 0 "fairway:starve-after=1h" \
	"$FW" sim run --trace synthetic:3 --nodes 13x8 --tick 600 --policies fairway:starve-after=1h
# every numeric setting takes no sign, as its flag does (--starve-after +5 is refused)
for v in "starve-after=+5" "starve-after= 5" "starve-after=-0" "reserve-depth=+3" "max-runtime=-0" "checkpoint-grace=+1" \
	"xfactor-cap=+60"; do
	expect "sim-run-variant-digits-only ($v)" 2 "--policies: $v: " "$FW" sim run --trace x --policies "fairway:$v"
done
expect "sim-run-variant-bad-backfill" 2 "backfill=yes: use easy or conservative" "$FW" sim run --trace x --policies slurm:backfill=yes
expect "sim-run-variant-not-kv" 2 "a variant's settings are KEY=VALUE" "$FW" sim run --trace x --policies fairway:fast
expect "sim-run-variant-unknown-base" 2 "unknown policy 'fairwey'" "$FW" sim run --trace x --policies fairwey:starve-after=0
expect "sim-run-variant-twice" 2 "'fairway' is named twice" "$FW" sim run --trace x --policies fairway,fifo,fairway
expect "sim-run-variant-empty-setting" 2 "--policies 'fairway:': an empty setting after ':'" "$FW" sim run --trace x --policies fairway:
expect "sim-run-policies-trailing-comma" 2 "--policies 'fifo,': an empty entry" "$FW" sim run --trace x --policies fifo,
expect "sim-run-variant-key-twice" 2 "starve-after is set twice" \
	"$FW" sim run --trace x --policies fairway:starve-after=5:starve-after=6
expect "sim-run-variant-starve-after-needs-the-pass" 2 "--policies 'fifo:starve-after=5': fifo has no starvation pass" \
	"$FW" sim run --trace x --policies fifo:starve-after=5
# --reserve-depth N / reserve-depth=N (YAML scheduler.reserveDepth): how many
# blocked jobs get a reservation; the variant is the run with the flag, and
# a depth other than fairway's 16 changes its replay
expect "sim-run-reserve-depth-range" 2 "--reserve-depth '-1': expected a whole number 0..100000 (0: none)" \
	"$FW" sim run --trace x --reserve-depth -1
expect "sim-run-reserve-depth-too-big" 2 "--reserve-depth '100001': expected a whole number 0..100000" \
	"$FW" sim run --trace x --reserve-depth 100001
expect "sim-run-variant-bad-reserve-depth" 2 "reserve-depth=4x: a whole number from 0 (none) to 100000" \
	"$FW" sim run --trace x --policies fairway:reserve-depth=4x
expect "sim-run-variant-reserve-depth-needs-reservations" 2 \
	"--policies 'kai:reserve-depth=4': kai makes no reservations, so reserve-depth means nothing to it (policies that do: fairway, slurm)" \
	"$FW" sim run --trace x --policies kai:reserve-depth=4
# backfill=easy|conservative is the rule of reservations: refused the same
# way on a policy that makes none (was: accepted, and meant nothing)
expect "sim-run-variant-backfill-needs-reservations-kai" 2 \
	"--policies 'kai:backfill=conservative': kai makes no reservations, so backfill means nothing to it (policies that do: fairway, slurm); leave the setting out, or give it to one of those" \
	"$FW" sim run --trace x --policies kai:backfill=conservative
# --help's --policies names every variant key variant_setting takes, and
# xfactor-cap=0 as the docs do (submit order), in the help's one form
# of an off ("0: off, ...")
sr_help=$("$FW" sim run --help | sed -n '/--policies A,B/,/--tick S/p')
sr_missing=""
for k in starve-after backfill reserve-depth xfactor-cap user-fair-share checkpoint-grace slices \
	model-deserved max-runtime gpu-hour-budget budget-safe estimate-depth; do
	grep -q -- "$k=" <<<"$sr_help" || sr_missing="$sr_missing $k"
done
if [ -z "$sr_missing" ] && tr -s ' \n' ' ' <<<"$sr_help" | grep -qF "xfactor-cap=S (0: off, submit order)"; then
	ok "sim-run-help-policies-lists-every-variant-key"
else
	bad "sim-run-help-policies-lists-every-variant-key: missing:${sr_missing:- none}; xfactor-cap=0 wording"
fi
# --help states every option's default, and says how to turn each feature
# off in one form (before: some said no default, --preemptible and the
# other switches did not say they are off, and 0 read "0: none", "(0 =
# off)", "0: it restarts from scratch" by turns): a switch (no value)
# says "default: off"; an option whose 0 turns its feature off says
# "0: off" (so does each such variant key); the outputs and --trace, which
# has none, are the only options without a default.  The list of options
# whose 0 is off is checked against the parser: each takes 0.
if "$FW" sim run --help | python3 -c '
import re, sys
text = sys.stdin.read()
body = text.split("\noptions:\n", 1)[1].split("\n\n", 1)[0]
opts, cur = {}, None
for line in body.splitlines():
    m = re.match(r"  (?:-h, )?(--[a-z-]+)(?: (\S+))?", line)
    if m:
        cur = m[1]
        opts[cur] = {"value": m[2], "text": line[len(m[0]):]}
    else:
        opts[cur]["text"] += " " + line.strip()
flat = {k: re.sub(r"\s+", " ", v["text"]) for k, v in opts.items()}
no_default = {"--trace", "--help", "--json", "--csv", "--report", "--log", "--jobs", "--shares"}
zero_off = {"--min-runtime", "--max-runtime", "--gpu-hour-budget", "--starve-after", "--xfactor-cap",
            "--reserve-depth", "--estimate-depth", "--checkpoint", "--checkpoint-grace", "--failures", "--flaky"}
bad = [k for k in opts if k not in no_default and "default" not in flat[k]]
bad += [k + " (a switch: default: off)" for k in opts if not opts[k]["value"] and k != "--help"
        and "default: off" not in flat[k]]
bad += [k + " (0: off)" for k in zero_off if "0: off" not in flat.get(k, "")]
bad += [k + " (says 0 = or 0: none)" for k in opts if re.search(r"0 = |0: none|0: it ", flat[k])]
pol = flat["--policies"]
bad += ["--policies " + v for v in ("starve-after", "reserve-depth", "xfactor-cap", "checkpoint-grace",
                                    "max-runtime", "gpu-hour-budget", "estimate-depth")
        if not re.search(re.escape(v) + r"=[A-Z]+ \(0: off", pol)]
assert len(opts) > 40, sorted(opts)
assert not bad, bad
print(" ".join(sorted(zero_off)))
' >"$SV/zero_off.txt"; then
	zo_bad=""
	for zo in $(cat "$SV/zero_off.txt"); do
		extra=""
		case $zo in --flaky) extra="--failures 1" ;; esac
		# shellcheck disable=SC2086
		"$FW" sim run --trace synthetic:3 --nodes 2x8 --tick 1h --policies fifo $extra "$zo" 0 >/dev/null 2>&1 ||
			zo_bad="$zo_bad $zo"
	done
	[ -z "$zo_bad" ] && ok "sim-run-help-states-every-default-and-off" ||
		bad "sim-run-help-states-every-default-and-off: refuses 0:$zo_bad"
else
	bad "sim-run-help-states-every-default-and-off"
fi
expect "sim-run-variant-backfill-needs-reservations-fifo" 2 \
	"--policies 'fifo:backfill=easy': fifo makes no reservations, so backfill means nothing to it" \
	"$FW" sim run --trace x --policies fairway,fifo:backfill=easy
"$FW" sim run --trace synthetic:3 --nodes 13x8 --tick 600 --policies fairway --reserve-depth 1 \
	--json "$SV/d1.json" >/dev/null 2>&1
"$FW" sim run --trace synthetic:3 --nodes 13x8 --tick 600 --policies fairway,fairway:reserve-depth=1,fairway:reserve-depth=0 \
	--json "$SV/dvar.json" >/dev/null 2>&1
if python3 - "$SV" <<'PY'
import json, sys
d = {k: json.load(open("%s/%s.json" % (sys.argv[1], k))) for k in ("default", "d1", "dvar")}
v = {p["policy"]: p for p in d["dvar"]["policies"]}
same = lambda a, b: all(a[k] == b[k] for k in ("jctMeanS", "occupancy", "byGpus", "fairnessJain"))
assert d["d1"]["reserveDepth"] == 1 and d["default"]["reserveDepth"] is None, "reserve_depth echoed"
assert v["fairway:reserve-depth=1"]["reserveDepth"] == 1 and v["fairway:reserve-depth=0"]["reserveDepth"] == 0
assert v["fairway"]["reserveDepth"] is None
assert same(v["fairway:reserve-depth=1"], d["d1"]["policies"][0]), "the variant is the run with --reserve-depth 1"
assert same(v["fairway"], d["default"]["policies"][0]), "the plain entry is the plain run"
assert not same(v["fairway:reserve-depth=0"], v["fairway"]), "no reservations changed nothing"
PY
then ok "sim-run-reserve-depth-reaches-the-engine"; else bad "sim-run-reserve-depth-reaches-the-engine"; fi
# --estimate-depth N / estimate-depth=N (YAML scheduler.estimateDepth): how
# many blocked jobs' estimates count the jobs ahead; estimates only: the
# variant's decisions and every job's start and end are the plain run's,
# some first estimates differ, and the flag is the variant
expect "sim-run-estimate-depth-range" 2 "--estimate-depth '-1': expected a whole number 0..100000 (0: none)" \
	"$FW" sim run --trace x --estimate-depth -1
expect "sim-run-estimate-depth-too-big" 2 "--estimate-depth '100001': expected a whole number 0..100000" \
	"$FW" sim run --trace x --estimate-depth 100001
expect "sim-run-variant-bad-estimate-depth" 2 "estimate-depth=2x: a whole number from 0 (none) to 100000" \
	"$FW" sim run --trace x --policies fairway:estimate-depth=2x
"$FW" sim run --trace synthetic:3 --nodes 13x8 --tick 600 --policies fairway,fairway:estimate-depth=0 \
	--json "$SV/evar.json" --jobs "$SV/evar.csv" >/dev/null 2>&1
"$FW" sim run --trace synthetic:3 --nodes 13x8 --tick 600 --policies fairway --estimate-depth 0 \
	--json "$SV/e0.json" --jobs "$SV/e0.csv" >/dev/null 2>&1
if python3 - "$SV" <<'PY'
import csv, json, sys
d = {k: json.load(open("%s/%s.json" % (sys.argv[1], k))) for k in ("evar", "e0")}
v = {p["policy"]: p for p in d["evar"]["policies"]}
same = lambda a, b: all(a[k] == b[k] for k in ("jctMeanS", "occupancy", "byGpus", "fairnessJain", "decisions"))
assert d["evar"]["estimateDepth"] is None and d["e0"]["estimateDepth"] == 0, "estimate_depth echoed"
assert v["fairway"]["estimateDepth"] is None and v["fairway:estimate-depth=0"]["estimateDepth"] == 0
assert same(v["fairway"], v["fairway:estimate-depth=0"]), "the depth changed a decision"
assert same(v["fairway:estimate-depth=0"], d["e0"]["policies"][0]), "the variant is the run with --estimate-depth 0"
rows = lambda f: {(r["policy"], r["job"]): r for r in csv.DictReader(open("%s/%s.csv" % (sys.argv[1], f)))}
r, r0 = rows("evar"), rows("e0")
moved = 0
for (p, j), x in r.items():
    if p != "fairway":
        continue
    y = r[("fairway:estimate-depth=0", j)]
    assert (x["start"], x["end"]) == (y["start"], y["end"]), j
    assert y["estimate"] == r0[("fairway", j)]["estimate"], j
    assert (x["estimate_kind"] == "unknown") == (y["estimate_kind"] == "unknown"), j
    moved += x["estimate"] != y["estimate"]
assert moved > 0, "no first estimate counted a job ahead"
PY
then ok "sim-run-estimate-depth-changes-estimates-only"; else bad "sim-run-estimate-depth-changes-estimates-only"; fi
# --xfactor-cap S / xfactor-cap=S (YAML scheduler.xfactorCap): the order of
# each queue's jobs; 0 = submit order; fifo and slurm keep their own
expect "sim-run-xfactor-cap-too-small" 2 "--xfactor-cap 59: 0 (submit order) or at least 60 seconds" \
	"$FW" sim run --trace x --xfactor-cap 59
expect "sim-run-variant-bad-xfactor-cap" 2 "xfactor-cap=30s: seconds or a duration like 90s, 10m, 2h, 1d or 1h30m, whole seconds: 0 (submit order) or 60 to 31536000 (365d)" \
	"$FW" sim run --trace x --policies fairway:xfactor-cap=30s
expect "sim-run-variant-xfactor-cap-needs-the-order" 2 \
	"--policies 'slurm:xfactor-cap=3600': slurm orders jobs its own way, so xfactor-cap means nothing to it (policies that do: fairway, kai)" \
	"$FW" sim run --trace x --policies slurm:xfactor-cap=3600
"$FW" sim run --trace synthetic:3 --nodes 13x8 --tick 600 --policies fairway --xfactor-cap 0 \
	--json "$SV/x0.json" >/dev/null 2>&1
"$FW" sim run --trace synthetic:3 --nodes 13x8 --tick 600 --policies fairway,fairway:xfactor-cap=0,fairway:xfactor-cap=43200 \
	--json "$SV/xvar.json" >/dev/null 2>&1
if python3 - "$SV" <<'PY'
import json, sys
d = {k: json.load(open("%s/%s.json" % (sys.argv[1], k))) for k in ("default", "x0", "xvar")}
v = {p["policy"]: p for p in d["xvar"]["policies"]}
same = lambda a, b: all(a[k] == b[k] for k in ("jctMeanS", "occupancy", "byGpus", "fairnessJain"))
assert d["x0"]["xfactorCapS"] == 0 and d["default"]["xfactorCapS"] is None, "xfactor_cap_s echoed"
assert v["fairway:xfactor-cap=0"]["xfactorCapS"] == 0 and v["fairway"]["xfactorCapS"] is None
assert same(v["fairway:xfactor-cap=0"], d["x0"]["policies"][0]), "the variant is the run with --xfactor-cap 0"
assert same(v["fairway:xfactor-cap=43200"], v["fairway"]), "12 h is fairway's own cap"
assert not same(v["fairway:xfactor-cap=0"], v["fairway"]), "submit order changed nothing"
PY
then ok "sim-run-xfactor-cap-reaches-the-engine"; else bad "sim-run-xfactor-cap-reaches-the-engine"; fi
# --checkpoint-grace S / checkpoint-grace=S (YAML scheduler.checkpointGrace):
# an eviction whose victims save within S waits for them; only policies
# that evict take it
expect "sim-run-checkpoint-grace-too-long" 2 "--checkpoint-grace '86401': expected seconds or a duration like 90s, 10m, 2h, 1d or 1h30m, whole seconds 0..86400" \
	"$FW" sim run --trace x --checkpoint-grace 86401
expect "sim-run-variant-bad-checkpoint-grace" 2 "checkpoint-grace=1d1s: seconds or a duration like 90s, 10m, 2h, 1d or 1h30m, whole seconds from 0 (off) to 86400 (1d)" \
	"$FW" sim run --trace x --policies fairway:checkpoint-grace=1d1s
expect "sim-run-variant-checkpoint-grace-needs-evictions" 2 \
	"--policies 'slurm:checkpoint-grace=600': slurm never evicts, so checkpoint-grace means nothing to it (policies that do: fairway, kai)" \
	"$FW" sim run --trace x --policies slurm:checkpoint-grace=600
expect "sim-run-checkpoint-grace-without-preemptible-says-so" 0 \
	"note: checkpoint-grace acts only on evictions for a waiting job, and without --preemptible no job may be evicted" \
	"$FW" sim run --trace synthetic:3 --nodes 13x8 --tick 3600 --policies fairway --checkpoint-grace 600
# --checkpoint alone acts on no eviction: a note, as for --min-runtime;
# none once --preemptible or --failures may evict
expect "sim-run-checkpoint-without-evictions-says-so" 0 \
	"fairway sim run: note: --checkpoint acts only on evicted jobs, and without --preemptible or --failures no job is evicted" \
	"$FW" sim run --trace synthetic:3 --nodes 13x8 --tick 3600 --policies fifo --checkpoint 600
for ev in --preemptible "--failures 3"; do
	if "$FW" sim run --trace synthetic:3 --nodes 13x8 --tick 3600 --policies fifo --checkpoint 600 $ev 2>&1 |
		grep -q -- "--checkpoint acts only"; then
		bad "sim-run-checkpoint-with-$(echo ${ev#--} | cut -d' ' -f1)-no-note"
	else
		ok "sim-run-checkpoint-with-$(echo ${ev#--} | cut -d' ' -f1)-no-note"
	fi
done
cgo="--trace synthetic:3 --nodes 13x8 --tick 300 --preemptible --min-runtime 3600 --checkpoint 1800"
"$FW" sim run $cgo --policies fairway,fairway:checkpoint-grace=900 --json "$SV/cgvar.json" >/dev/null 2>&1
"$FW" sim run $cgo --policies fairway --checkpoint-grace 900 --json "$SV/cg.json" >/dev/null 2>&1
if python3 - "$SV" <<'PY'
import json, sys
d = {k: json.load(open("%s/%s.json" % (sys.argv[1], k))) for k in ("cg", "cgvar")}
v = {p["policy"]: p for p in d["cgvar"]["policies"]}
off, on = v["fairway"], v["fairway:checkpoint-grace=900"]
assert d["cg"]["checkpointGraceS"] == 900 and d["cgvar"]["checkpointGraceS"] == 0, "the run's grace echoed"
assert off["checkpointGraceS"] == 0 and on["checkpointGraceS"] == 900, "each variant's grace echoed"
assert on["lostGpuS"] == d["cg"]["policies"][0]["lostGpuS"], "the variant is the run with --checkpoint-grace 900"
assert off["evictions"] > 10 and on["evictions"] > 10, (off["evictions"], on["evictions"])
# waiting for checkpoints loses less than half the work (121,500 -> 17,700 GPU-s when written)
assert on["lostGpuS"] * 2 < off["lostGpuS"], (on["lostGpuS"], off["lostGpuS"])
# the preemptors' wait is counted, and only with the grace
assert off["checkpointWaits"] == 0 and off["checkpointWaitJobH"] == 0, off["checkpointWaits"]
assert on["checkpointWaits"] > 0 and 0 < on["checkpointWaitJobH"] <= on["checkpointWaits"] * 300 / 3600 + 1e-6
# goodput per queue: its jobs' evictions and lost work add up to the run's
for p in (off, on):
    assert sum(q["evictions"] for q in p["byQueue"].values()) == p["evictions"]
    assert abs(sum(q["lostGpuH"] for q in p["byQueue"].values()) - p["lostGpuH"]) < 1e-6
PY
then ok "sim-run-checkpoint-grace-reaches-the-engine"; else bad "sim-run-checkpoint-grace-reaches-the-engine"; fi
# --slices K:LEVEL / slices=on|off (YAML tasks[i].slice): gangs in slices,
# counted, and with slices off counted split
expect "sim-run-slices-bad-form" 2 "--slices '2': give K:LEVEL, tasks per slice (1 to 65536) and the topology level" \
	"$FW" sim run --trace x --slices 2
# a level the fleet lacks is a flag error (exit 2), said once, with the levels to give
expect "sim-run-slices-unknown-level" 2 \
	"fairway sim run: error: --slices '2:rack': the fleet has no topology level \"rack\"; the valid levels: node (this fleet has none of its own: --racks K makes racks" \
	"$FW" sim run --trace synthetic:3 --nodes 13x8 --slices 2:rack
expect "sim-run-slices-unknown-level-lists-the-fleets" 2 \
	"fairway sim run: error: --slices '4:galaxy': the fleet has no topology level \"galaxy\"; the valid levels: rack, node"$'\n' \
	"$FW" sim run --trace synthetic:3 --nodes 4x8 --racks 2 --slices 4:galaxy
expect "sim-run-slices-level-typo-names-the-level" 2 \
	"fairway sim run: error: --slices '4:Rack': the fleet has no topology level \"Rack\" (did you mean \"rack\"?); the valid levels: rack, node"$'\n' \
	"$FW" sim run --trace synthetic:3 --nodes 4x8 --racks 2 --slices 4:Rack
expect "sim-run-variant-slices-needs-slices" 2 \
	"--policies 'fairway:slices=off': slices=on|off switches the slices of --slices K:LEVEL; give --slices too" \
	"$FW" sim run --trace x --policies fairway:slices=off
expect "sim-run-variant-bad-slices" 2 "slices=no: use on or off" \
	"$FW" sim run --trace x --slices 2:rack --policies fairway:slices=no
"$FW" sim run --trace synthetic:3 --nodes 13x8 --racks 4 --tick 600 --slices 2:rack \
	--policies fairway,fairway:slices=off,slurm --json "$SV/sl.json" >/dev/null 2>&1
if python3 - "$SV" <<'PY'
import json, sys
d = json.load(open("%s/sl.json" % sys.argv[1]))
v = {p["policy"]: p for p in d["policies"]}
assert d["slices"] == {"tasks": 2, "level": "rack"}, d.get("slices")
on, off = v["fairway"], v["fairway:slices=off"]
assert on["slices"] and not off["slices"] and v["slurm"]["slices"], "each variant's slices echoed"
assert on["sliceStarts"] > 20 and on["sliceStarts"] == off["sliceStarts"], (on["sliceStarts"], off["sliceStarts"])
assert on["sliceStartsSplit"] == 0 and v["slurm"]["sliceStartsSplit"] == 0, "a split slice"
assert off["sliceStartsSplit"] > 0, "without slices no gang split a pair: the measure measures nothing"
PY
then ok "sim-run-slices-reach-the-engine"; else bad "sim-run-slices-reach-the-engine"; fi
# --user-fair-share / user-fair-share=on|off (YAML scheduler.userFairShare):
# inside a queue the users take turns; fifo and slurm keep one line
expect "sim-run-variant-bad-user-fair-share" 2 "user-fair-share=yes: use on or off" \
	"$FW" sim run --trace x --policies fairway:user-fair-share=yes
expect "sim-run-variant-user-fair-share-needs-queue-lines" 2 \
	"--policies 'fifo:user-fair-share=on': fifo keeps one line across the queues, so user-fair-share means nothing to it (policies that do: fairway, kai)" \
	"$FW" sim run --trace x --policies fifo:user-fair-share=on
python3 - "$SV/users.csv" <<'PY'
import random, sys
random.seed(5)
rows, t = ["job_id,submit_time,duration,queue,user,gpus_per_task"], 0
for i in range(400):  # alice floods one queue, bob and carol trickle into it
    t += random.randint(10, 200)
    u = "alice" if i % 4 != 3 else random.choice(["bob", "carol"])
    rows.append("j%d,%d,%d,team,%s,%d" % (i, t, random.randint(600, 7200), u, random.choice([1, 2, 4, 8])))
open(sys.argv[1], "w").write("\n".join(rows) + "\n")
PY
"$FW" sim run --trace "$SV/users.csv" --format fairway --nodes 2x8 --policies fairway --user-fair-share \
	--json "$SV/u1.json" >/dev/null 2>&1
"$FW" sim run --trace "$SV/users.csv" --format fairway --nodes 2x8 \
	--policies fairway,fairway:user-fair-share=on,fifo --json "$SV/uvar.json" --jobs "$SV/ujobs.csv" >/dev/null 2>&1
if python3 - "$SV" <<'PY'
import csv, json, statistics, sys
d = {k: json.load(open("%s/%s.json" % (sys.argv[1], k))) for k in ("u1", "uvar")}
v = {p["policy"]: p for p in d["uvar"]["policies"]}
same = lambda a, b: all(a[k] == b[k] for k in ("jctMeanS", "occupancy", "byGpus", "fairnessJain"))
assert d["u1"]["userFairShare"] is True and d["uvar"]["userFairShare"] is False, "user_fair_share echoed"
assert v["fairway:user-fair-share=on"]["userFairShare"] is True and v["fairway"]["userFairShare"] is False
assert same(v["fairway:user-fair-share=on"], d["u1"]["policies"][0]), "the variant is the run with --user-fair-share"
user = {r["job_id"]: r["user"] for r in csv.DictReader(open("%s/users.csv" % sys.argv[1]))}
wait = {}
for r in csv.DictReader(open("%s/ujobs.csv" % sys.argv[1])):
    light = user[r["job"]] != "alice"
    wait.setdefault((r["policy"], light), []).append(float(r["wait_s"]))
med = {k: statistics.median(x) for k, x in wait.items()}
# bob's and carol's jobs wait less when users take turns, alice's more
assert med[("fairway:user-fair-share=on", True)] < 0.5 * med[("fairway", True)], med
assert med[("fairway:user-fair-share=on", False)] > med[("fairway", False)], med
PY
then ok "sim-run-user-fair-share-reaches-the-engine"; else bad "sim-run-user-fair-share-reaches-the-engine"; fi
# past use counts: alice held the one node for two days and her next job
# is older than bob's; when the node frees both hold nothing, yet bob's
# goes first with user-fair-share (her decayed usage, ~1.4 GPUs), hers
# without (the queue's own order)
printf 'job_id,submit_time,duration,queue,user,gpus_per_task\nalong,0,172800,team,alice,8\na2,50,3600,team,alice,8\nb1,100,3600,team,bob,8\n' >"$SV/past.csv"
"$FW" sim run --trace "$SV/past.csv" --format fairway --nodes 1x8 --policies fairway,fairway:user-fair-share=on \
	--jobs "$SV/pastj.csv" >/dev/null 2>&1
if python3 - "$SV/pastj.csv" <<'PY'
import csv, sys
st = {(r["policy"], r["job"]): int(r["start"]) for r in csv.DictReader(open(sys.argv[1]))}
assert st[("fairway", "a2")] == 172800 and st[("fairway", "b1")] == 176400, st
assert st[("fairway:user-fair-share=on", "b1")] == 172800 and st[("fairway:user-fair-share=on", "a2")] == 176400, st
PY
then ok "sim-run-user-fair-share-counts-past-use"; else bad "sim-run-user-fair-share-counts-past-use"; fi
# --model-limits: every queue may hold at most P % of its deserved GPUs of
# a model; at 0 no job lands on it, without the flag some do.  On 10 A100
# nodes beside the 2 H100s, at a 10-minute tick: on the 4-node fleet below
# (32 GPUs, 16 of them closed) the replay ran 440,000 cycles over 307
# simulated days, 4 minutes under ASan
printf 'nodes:\n  - {name: h0, gpus: 8, gpuModel: H100}\n  - {name: h1, gpus: 8, gpuModel: H100}\n  - {name: a0, gpus: 8, gpuModel: A100}\n  - {name: a1, gpus: 8, gpuModel: A100}\n' >"$SV/mfleet.yaml"
{ cat "$SV/mfleet.yaml"; for k in 2 3 4 5 6 7 8 9; do echo "  - {name: a$k, gpus: 8, gpuModel: A100}"; done; } \
	>"$SV/mfleet12.yaml"
"$FW" sim run --trace synthetic:3 --fleet "$SV/mfleet12.yaml" --policies fairway --model-limits H100=0 --tick 600 \
	--log "$SV/ml0.jsonl" --json "$SV/ml0.json" >/dev/null 2>&1
"$FW" sim run --trace synthetic:3 --fleet "$SV/mfleet12.yaml" --policies fairway --tick 600 \
	--log "$SV/ml1.jsonl" >/dev/null 2>&1
if python3 - "$SV" <<'PY'
import json, sys
def on_h100(f):
    starts = [json.loads(l) for l in open(f)]
    return len(starts), sum(any(n.startswith("h") for n in s["nodes"]) for s in starts)
n0, h0 = on_h100(sys.argv[1] + "/ml0.jsonl")
n1, h1 = on_h100(sys.argv[1] + "/ml1.jsonl")
assert n0 > 1000 and h0 == 0 and h1 > 100, (n0, h0, n1, h1)
assert json.load(open(sys.argv[1] + "/ml0.json"))["modelLimitsPct"] == {"H100": 0.0}
PY
then ok "sim-run-model-limits-keep-jobs-off-a-model"; else bad "sim-run-model-limits-keep-jobs-off-a-model"; fi
expect "sim-run-model-limits-bad-pair" 2 "--model-limits 'H100': expected MODEL=PCT pairs" \
	"$FW" sim run --trace synthetic:3 --model-limits H100
expect "sim-run-model-limits-twice" 2 "--model-limits: H100 is named twice" \
	"$FW" sim run --trace synthetic:3 --model-limits H100=5,H100=6
expect "sim-run-model-limits-unknown-model" 1 "error: --model-limits: B200=50: no node of the fleet has GPU model 'B200' (its models: H100, A100); name a model of the fleet" \
	"$FW" sim run --trace synthetic:3 --fleet "$SV/mfleet.yaml" --policies fairway --model-limits B200=50
# --model-deserved: each queue deserves P % of its deserved GPUs as model
# M.  prod holds both H100 nodes, research the A100s; research's r3 naming
# H100 waits for prod's jobs to end (99,020 s), or, deserving half its
# GPUs as H100s, takes one back at once (one eviction, model_reclaimed)
printf 'job_id,submit_time,duration,queue,gpus_per_task,gpu_model\np1,0,100000,prod,8,H100\np2,0,100000,prod,8,H100\nr1,100,100000,research,8,\nr2,100,100000,research,8,\nr3,1000,1000,research,8,H100\n' >"$SV/md.csv"
for v in off on; do
	"$FW" sim run --format fairway --trace "$SV/md.csv" --fleet "$SV/mfleet.yaml" --policies fairway --preemptible \
		$([ $v = on ] && echo --model-deserved H100=50) --json "$SV/md-$v.json" --jobs "$SV/md-$v.csv" >/dev/null 2>&1
done
if python3 - "$SV" <<'PY'
import csv, json, sys
d = sys.argv[1]
def r3(v):
    return next(r for r in csv.DictReader(open(f"{d}/md-{v}.csv")) if r["job"] == "r3")
off, on = json.load(open(d + "/md-off.json")), json.load(open(d + "/md-on.json"))
assert int(r3("off")["wait_s"]) == 99020 and off["policies"][0]["evictions"] == 0, (r3("off"), off["policies"][0]["evictions"])
assert int(r3("on")["wait_s"]) == 20 and on["policies"][0]["evictions"] == 1, (r3("on"), on["policies"][0]["evictions"])
assert on["modelDeservedPct"] == {"H100": 50.0} and "modelDeservedPct" not in off
PY
then ok "sim-run-model-deserved-claims-h100s-back"; else bad "sim-run-model-deserved-claims-h100s-back"; fi
# the variant model-deserved=off replays without the entries; both are
# measured against them: r3 waits short of research's 8 H100s without
"$FW" sim run --format fairway --trace "$SV/md.csv" --fleet "$SV/mfleet.yaml" --preemptible \
	--model-deserved H100=50 --policies fairway,fairway:model-deserved=off --json "$SV/md-v.json" >/dev/null 2>&1
if python3 - "$SV" <<'PY'
import json, sys
p = {x["policy"]: x for x in json.load(open(sys.argv[1] + "/md-v.json"))["policies"]}
on, off = p["fairway"], p["fairway:model-deserved=off"]
assert on["evictions"] == 1 and off["evictions"] == 0, (on["evictions"], off["evictions"])
# without: r3 waits from t=1020 (its first plan) to 100020 with research
# short of all it deserves as H100s (half its deserved GPUs, in milli-GPU
# rounded down); with: not at all
due = int(off["byQueue"]["research"]["deservedGpus"] * 1000 * 0.5) / 1000
assert 7.9 < due < 8.1 and abs(off["modelDeservedShortGpuH"] - due * 99000 / 3600) < 1e-6, \
    (due, off["modelDeservedShortGpuH"])
assert on["modelDeservedShortGpuH"] == 0, on["modelDeservedShortGpuH"]
PY
then ok "sim-run-model-deserved-variant-and-shortfall"; else bad "sim-run-model-deserved-variant-and-shortfall"; fi
expect "sim-run-model-deserved-variant-needs-the-flag" 2 \
	"--policies 'fairway:model-deserved=off': model-deserved=on|off switches the entries of --model-deserved M=P; give --model-deserved too" \
	"$FW" sim run --trace synthetic:3 --policies fairway:model-deserved=off
expect "sim-run-model-deserved-over-100" 2 "--model-deserved: the shares add up to 120 %, more than a queue's deserved GPUs; keep them to 100 in all" \
	"$FW" sim run --trace synthetic:3 --model-deserved H100=60,A100=60
expect "sim-run-model-deserved-bad-pair" 2 "--model-deserved 'H100=x': expected MODEL=PCT pairs, e.g. V100M32=50,T4=25 (each queue deserves PCT % of its deserved GPUs as that model, 0 to 100)" \
	"$FW" sim run --trace synthetic:3 --model-deserved H100=x
expect "sim-run-model-deserved-unknown-model" 1 "error: --model-deserved: B200=50: no node of the fleet has GPU model 'B200' (its models: H100, A100); name a model of the fleet" \
	"$FW" sim run --trace synthetic:3 --fleet "$SV/mfleet.yaml" --policies fairway --model-deserved B200=50
# --name-models: a share of the jobs naming no model name one, the same
# jobs in every run (a hash of the id), never one the model's GPUs cannot
# hold; --jobs says which
"$FW" sim run --trace synthetic:3 --fleet "$SV/mfleet.yaml" --policies fifo --name-models H100=30,A100=20 \
	--jobs "$SV/nm1.csv" --json "$SV/nm1.json" >/dev/null 2>&1
"$FW" sim run --trace synthetic:3 --fleet "$SV/mfleet.yaml" --policies fairway --name-models H100=30,A100=20 \
	--tick 600 --jobs "$SV/nm2.csv" >/dev/null 2>&1
if python3 - "$SV" <<'PY'
import csv, json, sys
d = sys.argv[1]
one = {r["job"]: (r["gpu_model"], int(r["gpus"])) for r in csv.DictReader(open(d + "/nm1.csv"))}
two = {r["job"]: r["gpu_model"] for r in csv.DictReader(open(d + "/nm2.csv"))}
assert {j: m for j, (m, g) in one.items()} == two
n = len(one)
share = lambda m: sum(1 for x, g in one.values() if x == m) / n
assert 0.25 < share("H100") < 0.35 and 0.15 < share("A100") < 0.25, (share("H100"), share("A100"))
assert all(g <= 16 for m, g in one.values() if m), "a job larger than a model's 16 GPUs names it"
assert json.load(open(d + "/nm1.json"))["nameModelsPct"] == {"H100": 30.0, "A100": 20.0}
PY
then ok "sim-run-name-models"; else bad "sim-run-name-models"; fi
expect "sim-run-name-models-over-100" 2 "--name-models: the shares add up to 110 %, more than all the jobs; keep them to 100 in all" \
	"$FW" sim run --trace synthetic:3 --name-models H100=60,A100=50
# --jobs: a row per job and policy; its estimate errors give the JSON's metric
"$FW" sim run --trace synthetic:3 --nodes 13x8 --policies slurm,fairway --tick 600 \
	--json "$SV/m.json" --jobs "$SV/jobs.csv" --shares "$SV/shares.csv" >/dev/null 2>&1
if python3 - "$SV" <<'PY'
import csv, json, sys
d = json.load(open("%s/m.json" % sys.argv[1]))
rows = list(csv.DictReader(open("%s/jobs.csv" % sys.argv[1])))
assert len(rows) == 2 * d["jobs"], (len(rows), d["jobs"])
for p in d["policies"]:
    mine = [r for r in rows if r["policy"] == p["policy"]]
    assert sum(1 for r in mine if r["start"]) == p["decisions"] - sum(int(r["evictions"]) for r in mine)
    e = sorted(abs(int(r["estimate_err_s"])) for r in mine if r["estimate_err_s"])
    assert e and e[(len(e) + 1) // 2 - 1] == p["startEstimates"]["absErrP50S"], p["policy"]
PY
then ok "sim-run-jobs-csv"; else bad "sim-run-jobs-csv"; fi
# --shares: the plans' fair shares and allocations give the JSON's fairness_jain,
# and scripts/fairness_bound.py recomputes it and finds a pick at least as fair
if python3 - "$SV" <<'PY'
import collections, csv, json, subprocess, sys
d = json.load(open("%s/m.json" % sys.argv[1]))
rows = list(csv.DictReader(open("%s/shares.csv" % sys.argv[1])))
assert {r["policy"] for r in rows} == {"slurm", "fairway"}, "both policies"
for p in d["policies"]:
    plans = collections.OrderedDict()
    for r in rows:
        if r["policy"] == p["policy"]:
            plans.setdefault((int(r["t"]), int(r["until"])), []).append((float(r["fair_gpus"]), float(r["alloc_gpus"])))
    keys = list(plans)
    assert all(a[1] == b[0] for a, b in zip(keys, keys[1:])), "each plan holds until the next"
    assert all(len(q) == len(d["policies"][0]["byQueue"]) for q in plans.values()), "a row per queue"
    assert all(sum(a for _, a in q) <= 104 + 1e-6 for q in plans.values()), "allocations fit"
    acc = tot = 0.0
    for (t, u), q in plans.items():
        xs = [a / f for f, a in q if f > 1e-9]
        if xs and sum(x * x for x in xs) > 0:
            acc += (u - t) * sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs)); tot += u - t
    assert abs(acc / tot - p["fairnessJain"]) < 1e-6, (acc / tot, p["fairnessJain"])
    if p["policy"] != "fairway":
        continue
    b = json.loads(subprocess.run([sys.executable, "scripts/fairness_bound.py", "--shares",
                                   "%s/shares.csv" % sys.argv[1], "--jobs", "%s/jobs.csv" % sys.argv[1],
                                   "--policy", p["policy"]], check=True, capture_output=True, text=True).stdout)
    assert abs(b["fairness_jain"] - p["fairnessJain"]) < 1e-6, b
    assert b["sizes_pack"] and b["fairest_choice_jain"] >= b["fairness_jain"] - 1e-12, b
PY
then ok "sim-run-shares-csv"; else bad "sim-run-shares-csv"; fi
# --shares when jobs never start: the replay plans on past the metrics'
# window (fifo on one node leaves most of synthetic:3 waiting), but no plan
# is written past its end, and no row holds for no time (docs/sim.md)
"$FW" sim run --trace synthetic:3 --nodes 1x8 --policies fifo --shares "$SV/s1x8.csv" --json "$SV/m1x8.json" >/dev/null 2>&1
if python3 - "$SV" <<'PY'
import csv, json, sys
p = json.load(open("%s/m1x8.json" % sys.argv[1]))["policies"][0]
rows = list(csv.DictReader(open("%s/s1x8.csv" % sys.argv[1])))
assert p["neverStarted"] > 0, "jobs never start"
assert rows and all(int(r["t"]) < int(r["until"]) <= p["windowS"][1] for r in rows), p["windowS"]
assert max(int(r["until"]) for r in rows) == p["windowS"][1], "the last plan holds until the window end"
PY
then ok "sim-run-shares-within-the-window"; else bad "sim-run-shares-within-the-window"; fi
# fairness_bound.py by hand: queues a and b, fair share 4 each; a runs its
# 8-GPU job, b waits with two 4-GPU jobs (Jain 0.5).  On 12 GPUs the fairest
# pick runs a's job and one of b's: x = (2, 1), Jain 9/10; on 8 GPUs no pick
# beats 0.5.
printf 'policy,t,until,queue,deserved_gpus,fair_gpus,alloc_gpus\np,0,100,a,4,4,8\np,0,100,b,4,4,0\n' >"$SV/hs.csv"
printf 'policy,job,queue,gpus,submit,start,end,wait_s,jct_s,evictions,estimate_kind,estimate,estimate_err_s\n%s\n%s\n%s\n' \
	p,j1,a,8,0,0,200,0,200,0,none,, p,j2,b,4,0,,,,,0,none,, p,j3,b,4,0,,,,,0,none,, >"$SV/hj.csv"
b12=$(python3 scripts/fairness_bound.py --shares "$SV/hs.csv" --jobs "$SV/hj.csv" --policy p --capacity 12)
b8=$(python3 scripts/fairness_bound.py --shares "$SV/hs.csv" --jobs "$SV/hj.csv" --policy p --capacity 8)
if [[ $b12 == *'"fairness_jain": 0.5, "fairest_choice_jain": 0.9}' && $b8 == *'"fairest_choice_jain": 0.5}' ]]; then
	ok "fairness-bound-hand-case"
else
	bad "fairness-bound-hand-case: $b12 / $b8"
fi
sed 's/^p,0,100,b/p,soon,100,b/' "$SV/hs.csv" >"$SV/hs-bad.csv"
expect "fairness-bound-bad-value" 1 "hs-bad.csv:3: invalid literal" \
	python3 scripts/fairness_bound.py --shares "$SV/hs-bad.csv" --jobs "$SV/hj.csv" --policy p
expect "fairness-bound-missing-file" 1 "cannot read $SV/none.csv" \
	python3 scripts/fairness_bound.py --shares "$SV/none.csv" --jobs "$SV/hj.csv" --policy p
expect "fairness-bound-no-such-policy" 1 "has no rows of policy 'q'" \
	python3 scripts/fairness_bound.py --shares "$SV/hs.csv" --jobs "$SV/hj.csv" --policy q
# ---- sim --max-runtime ----
# every queue's run-time limit: A (1000 s) reaches 95 s and ends at the next
# tick (100), as Slurm's TIMEOUT, not requeued; B starts on its GPUs then;
# C (95 s) and D (98 s, done before the tick past its limit) complete; the
# variant max-runtime=0 replays without the limit, the variant
# fifo:max-runtime=95 as the flag does
expect "sim-run-max-runtime-negative" 2 "--max-runtime '-5': expected seconds or a duration like 90s, 10m, 2h, 1d or 1h30m, whole seconds 0..31536000" \
	"$FW" sim run --trace x --max-runtime -5
expect "sim-run-max-runtime-not-a-number" 2 "--max-runtime 'abc': expected seconds or a duration like 90s, 10m, 2h, 1d or 1h30m, whole seconds 0..31536000" \
	"$FW" sim run --trace x --max-runtime abc
expect "sim-run-max-runtime-variant-bad-value" 2 "--policies: max-runtime=1h1.5s: seconds or a duration like 90s, 10m, 2h, 1d or 1h30m, whole seconds from 0 (none) to 31536000 (365d)" \
	"$FW" sim run --trace x --policies fifo:max-runtime=1h1.5s
expect "sim-run-max-runtime-in-help" 0 "--max-runtime S     run-time limit of every queue" "$FW" sim run --help
printf 'job_id,submission_time,duration,num_gpu\nA,0,1000,8\nB,5,50,8\nC,20,95,8\nD,30,98,4\n' >"$SV/lim.csv"
expect "sim-run-max-runtime-summary-line" 0 "run-time limit 1m35s: 1 job ended by it (0.2 GPU-h run, 2.0 GPU-h of their work cut)" \
	"$FW" sim run --trace "$SV/lim.csv" --nodes 1x8 --tick 10 --policies fifo,fifo:max-runtime=0 --max-runtime 95 \
	--json "$SV/lim.json" --jobs "$SV/limj.csv"
"$FW" sim run --trace "$SV/lim.csv" --nodes 1x8 --tick 10 --policies fifo:max-runtime=95 \
	--json "$SV/limv.json" --csv "$SV/limvm.csv" --report "$SV/limv.html" >"$SV/limv.out" 2>&1
"$FW" sim run --trace "$SV/lim.csv" --nodes 1x8 --tick 10 --policies fifo \
	--csv "$SV/lim0m.csv" --report "$SV/lim0.html" >"$SV/lim0.out" 2>&1
if python3 - "$SV" <<'PY'
import csv, json, sys
d = sys.argv[1]
j = json.load(open(d + "/lim.json"))
p = {x["policy"]: x for x in j["policies"]}
on, off = p["fifo"], p["fifo:max-runtime=0"]
assert j["maxRuntimeS"] == 95 and on["maxRuntimeS"] == 95 and off["maxRuntimeS"] == 0
assert on["timedOutJobs"] == 1 and off["timedOutJobs"] == 0, (on["timedOutJobs"], off["timedOutJobs"])
assert abs(on["timedOutGpuH"] - 8 * 100 / 3600) < 1e-9 and abs(on["timedOutCutGpuH"] - 8 * 900 / 3600) < 1e-9
assert off["timedOutGpuH"] == 0 and off["timedOutCutGpuH"] == 0
assert on["evictions"] == 0, on["evictions"]
# A counts as ended at 100 (JCTs 100, 145, 225, 318); the GPU-hours of the
# queues (work done) equal those of the runs
assert on["jctMeanS"] == (100 + 145 + 225 + 318) / 4 and off["jctMeanS"] == (1000 + 1045 + 1125 + 1218) / 4
for x in (on, off):
    assert abs(sum(q["gpuH"] for q in x["byQueue"].values()) - x["usedGpuH"]) < 1e-6, x["policy"]
rows = {(r["policy"], r["job"]): r for r in csv.DictReader(open(d + "/limj.csv"))}
a, b = rows[("fifo", "A")], rows[("fifo", "B")]
assert (a["end"], a["jct_s"], a["end_state"]) == ("100", "100", "timed_out"), a
assert (b["start"], b["end_state"]) == ("100", "completed"), b
assert [rows[("fifo", k)]["end_state"] for k in "CD"] == ["completed", "completed"]
assert rows[("fifo:max-runtime=0", "A")]["end"] == "1000" and rows[("fifo:max-runtime=0", "A")]["end_state"] == "completed"
v = json.load(open(d + "/limv.json"))
assert v["maxRuntimeS"] == 0 and v["policies"][0]["maxRuntimeS"] == 95
assert all(v["policies"][0][k] == on[k] for k in ("timedOutJobs", "jctMeanS", "occupancy", "byGpus")), "variant = flag"
PY
then ok "sim-run-max-runtime-ends-jobs"; else bad "sim-run-max-runtime-ends-jobs"; fi
if grep -qF "run-time limit 1m35s: 1 job ended by it" "$SV/limv.out" && ! grep -qF "run-time limit" "$SV/lim0.out"; then
	ok "sim-run-max-runtime-line-only-with-a-limit"
else
	bad "sim-run-max-runtime-line-only-with-a-limit"
fi
# the metrics CSV has the limit columns (total rows only; the budget's two
# follow them) and the report
# has the run-time limit rows only when a limit was in force
if python3 - "$SV" <<'PY'
import csv, sys
d = sys.argv[1]
for name, jobs, lim in (("limvm", "1", "95"), ("lim0m", "0", "0")):
    head = open(d + "/" + name + ".csv").readline().rstrip("\n").split(",")
    assert head[-6:-2] == ["timed_out_jobs", "timed_out_gpu_h", "timed_out_cut_gpu_h", "max_runtime_s"], head
    assert head[:3] == ["policy", "scope", "name"] and head[30] == "est_big_err_over_wait_p50", head
    rows = list(csv.DictReader(open(d + "/" + name + ".csv")))
    tot = [r for r in rows if r["scope"] == "total"]
    assert len(tot) == 1 and (tot[0]["timed_out_jobs"], tot[0]["max_runtime_s"]) == (jobs, lim), (name, tot)
    assert all(r["timed_out_jobs"] == "" and r["max_runtime_s"] == "" for r in rows if r["scope"] != "total")
assert abs(float(tot[0]["timed_out_gpu_h"])) < 1e-12
on = [r for r in csv.DictReader(open(d + "/limvm.csv")) if r["scope"] == "total"][0]
assert abs(float(on["timed_out_gpu_h"]) - 8 * 100 / 3600) < 1e-9 and abs(float(on["timed_out_cut_gpu_h"]) - 8 * 900 / 3600) < 1e-9
assert "Run-time limits" in open(d + "/limv.html").read()
assert "Run-time limits" not in open(d + "/lim0.html").read()
PY
then ok "sim-run-max-runtime-csv-columns-and-report"; else bad "sim-run-max-runtime-csv-columns-and-report"; fi
# a job's own limit (the generic trace's max_runtime): A (own 100 s) ends at
# exactly 100, its limit; B (none) beside it runs its full 1000 s; no queue
# limit, so the summary line counts the jobs' own
printf 'job_id,submit_time,duration,gpus_per_task,max_runtime\nA,0,1000,4,100\nB,0,1000,4,\n' >"$SV/own.csv"
expect "sim-run-own-limit-summary-line" 0 "jobs' own run-time limits (1 job has one): 1 job ended by them (0.1 GPU-h run, 1.0 GPU-h of their work cut)" \
	"$FW" sim run --trace "$SV/own.csv" --format fairway --nodes 1x8 --tick 10 --policies fifo \
	--json "$SV/own.json" --jobs "$SV/ownj.csv" --csv "$SV/ownm.csv" --report "$SV/own.html"
if python3 - "$SV" <<'PY'
import csv, json, sys
d = sys.argv[1]
j = json.load(open(d + "/own.json"))
p = j["policies"][0]
assert j["maxRuntimeS"] == 0 and j["jobLimits"] == 1 and p["maxRuntimeS"] == 0, (j["jobLimits"], p["maxRuntimeS"])
assert p["timedOutJobs"] == 1 and abs(p["timedOutGpuH"] - 4 * 100 / 3600) < 1e-9, p["timedOutJobs"]
assert abs(p["timedOutCutGpuH"] - 4 * 900 / 3600) < 1e-9 and p["evictions"] == 0
rows = {r["job"]: r for r in csv.DictReader(open(d + "/ownj.csv"))}
assert (rows["A"]["start"], rows["A"]["end"], rows["A"]["end_state"]) == ("0", "100", "timed_out"), rows["A"]
assert (rows["B"]["start"], rows["B"]["end"], rows["B"]["end_state"]) == ("0", "1000", "completed"), rows["B"]
tot = [r for r in csv.DictReader(open(d + "/ownm.csv")) if r["scope"] == "total"][0]
assert (tot["timed_out_jobs"], tot["timed_out_cut_gpu_h"], tot["max_runtime_s"]) == ("1", "1", "0"), tot
assert "Jobs with a limit of their own (trace max_runtime)</td><td class=\"dir\"></td><td>1</td>" in open(d + "/own.html").read()
PY
then ok "sim-run-own-limit-ends-its-job-only"; else bad "sim-run-own-limit-ends-its-job-only"; fi
printf 'job_id,submit_time,duration,gpus_per_task,max_runtime\nA,0,1000,4,100\nB,0,1000,4,2147483648\n' >"$SV/ownbad.csv"
expect "sim-run-own-limit-bad-value" 1 "ownbad.csv:3:12: max_runtime: '2147483648' is out of range 0..2147483647" \
	"$FW" sim run --trace "$SV/ownbad.csv" --format fairway --nodes 1x8 --policies fifo
# ---- end sim --max-runtime ----
# ---- sim --gpu-hour-budget ----
# every queue may use 1 GPU-h of decayed usage (7-day half-life h): A (qa,
# 8 GPUs, 600 s) leaves qa at 8 h/ln2 (1 - 2^(-600/h)) = 1.333 GPU-h, so B
# (qa, 8 GPUs, from 100) is held (over_budget) until that decays below 1
# GPU-h, at 600 + h log2(1.333) = 251314.7 s: it starts at the next tick,
# 251320; C (qb, 1 GPU, from 700) is under its budget and starts at 700
# (kai; fifo's strict line would keep it behind B).  The variant
# gpu-hour-budget=0 replays without the budget (B at 600), the variant
# kai:gpu-hour-budget=1 as the flag does.
expect "sim-run-gpu-hour-budget-negative" 2 "--gpu-hour-budget '-5': expected GPU-hours from 0 (none) to 1000000000, e.g. 500 or 0.5" \
	"$FW" sim run --trace x --gpu-hour-budget -5
expect "sim-run-gpu-hour-budget-not-a-number" 2 "--gpu-hour-budget '1e3': expected GPU-hours from 0 (none) to 1000000000" \
	"$FW" sim run --trace x --gpu-hour-budget 1e3
expect "sim-run-gpu-hour-budget-too-large" 2 "--gpu-hour-budget '1000000000.5': expected GPU-hours from 0 (none) to 1000000000" \
	"$FW" sim run --trace x --gpu-hour-budget 1000000000.5
expect "sim-run-gpu-hour-budget-variant-bad-value" 2 "--policies: gpu-hour-budget=lots: GPU-hours from 0 (none) to 1000000000" \
	"$FW" sim run --trace x --policies kai:gpu-hour-budget=lots
expect "sim-run-gpu-hour-budget-in-help" 0 "--gpu-hour-budget H each queue may use H GPU-hours of decayed usage" \
	"$FW" sim run --help
expect "sim-run-gpu-hour-budget-help-rule-of-thumb" 0 "hours): H/242 GPUs at 7 days" "$FW" sim run --help
printf 'job_id,submit_time,duration,gpus_per_task,queue\nA,0,600,8,qa\nB,100,100,8,qa\nC,700,10,1,qb\n' >"$SV/bud.csv"
expect "sim-run-gpu-hour-budget-summary-line" 0 "GPU-hour budget 1 per queue: 1 job held over it (over_budget)" \
	"$FW" sim run --trace "$SV/bud.csv" --format fairway --nodes 1x8 --tick 10 --policies kai,kai:gpu-hour-budget=0 \
	--gpu-hour-budget 1 --json "$SV/bud.json" --jobs "$SV/budj.csv"
"$FW" sim run --trace "$SV/bud.csv" --format fairway --nodes 1x8 --tick 10 --policies kai:gpu-hour-budget=1 \
	--json "$SV/budv.json" --jobs "$SV/budvj.csv" >"$SV/budv.out" 2>&1
"$FW" sim run --trace "$SV/bud.csv" --format fairway --nodes 1x8 --tick 10 --policies kai \
	--json "$SV/bud0.json" >"$SV/bud0.out" 2>&1
if python3 - "$SV" <<'PY'
import csv, json, math, sys
d = sys.argv[1]
h = 7 * 86400.0
u = 8 * h / math.log(2) * (1 - 2 ** (-600 / h))
want = (math.floor(600 + h * math.log2(u / 3600)) // 10 + 1) * 10
assert want == 251320, want
j = json.load(open(d + "/bud.json"))
p = {x["policy"]: x for x in j["policies"]}
on, off = p["kai"], p["kai:gpu-hour-budget=0"]
assert j["gpuHourBudget"] == 1 and on["gpuHourBudget"] == 1 and off["gpuHourBudget"] == 0, j["gpuHourBudget"]
assert on["overBudgetJobs"] == 1 and off["overBudgetJobs"] == 0, (on["overBudgetJobs"], off["overBudgetJobs"])
rows = {(r["policy"], r["job"]): r for r in csv.DictReader(open(d + "/budj.csv"))}
assert rows[("kai", "B")]["start"] == str(want), rows[("kai", "B")]
assert rows[("kai", "C")]["start"] == "700" and rows[("kai", "A")]["end"] == "600"
assert rows[("kai:gpu-hour-budget=0", "B")]["start"] == "600", rows[("kai:gpu-hour-budget=0", "B")]
v = json.load(open(d + "/budv.json"))
assert v["gpuHourBudget"] == 0 and v["policies"][0]["gpuHourBudget"] == 1
assert all(v["policies"][0][k] == on[k] for k in ("overBudgetJobs", "jctMeanS", "makespanS", "byGpus")), "variant = flag"
vr = {r["job"]: r["start"] for r in csv.DictReader(open(d + "/budvj.csv"))}
assert vr["B"] == str(want), vr
z = json.load(open(d + "/bud0.json"))
assert z["gpuHourBudget"] == 0 and z["policies"][0]["overBudgetJobs"] == 0
PY
then ok "sim-run-gpu-hour-budget-holds-a-queue"; else bad "sim-run-gpu-hour-budget-holds-a-queue"; fi
if grep -qF "GPU-hour budget 1 per queue: 1 job held over it" "$SV/budv.out" && ! grep -qF "GPU-hour budget" "$SV/bud0.out"; then
	ok "sim-run-gpu-hour-budget-line-only-with-a-budget"
else
	bad "sim-run-gpu-hour-budget-line-only-with-a-budget"
fi
# --budget-safe: A (qa, 8 GPUs x 100 s of 0.5 GPU-h at a 600 s half-life)
# leaves 1000 GPU-s, short of B's 4 GPUs x 300 s: B waits (budget_short)
# until A's usage decays to 600 GPU-s, at 299.6 s, and starts at the tick
# 300; without the flag at 0 (test_sim checks the formula).
printf 'job_id,submit_time,duration,expected_runtime,gpus_per_task,queue\nA,0,100,100,8,qa\nB,0,100,300,4,qa\n' >"$SV/safe.csv"
expect "sim-run-budget-safe-summary-line" 0 "GPU-hour budget 0.5 per queue: 1 job held over it (over_budget, or budget_short: --budget-safe)" \
	"$FW" sim run --trace "$SV/safe.csv" --format fairway --nodes 2x8 --tick 10 --policies kai --gpu-hour-budget 0.5 \
	--usage-half-life 600 --budget-safe --json "$SV/safe.json" --jobs "$SV/safej.csv"
if python3 - "$SV" <<'PY'
import csv, json, sys
d = sys.argv[1]
j = json.load(open(d + "/safe.json"))
assert j["budgetSafe"] is True and j["policies"][0]["overBudgetJobs"] == 1, j["budgetSafe"]
rows = {r["job"]: r for r in csv.DictReader(open(d + "/safej.csv"))}
assert rows["B"]["start"] == "300" and rows["A"]["start"] == "0", rows
PY
then ok "sim-run-budget-safe-waits-for-room"; else bad "sim-run-budget-safe-waits-for-room"; fi
expect "sim-run-budget-safe-in-help" 0 "--budget-safe       with --gpu-hour-budget: a job starts only if its whole" "$FW" sim run --help
# the variant key: kai and kai:budget-safe=on in one run, B at 0 and at 300
"$FW" sim run --trace "$SV/safe.csv" --format fairway --nodes 2x8 --tick 10 --policies kai,kai:budget-safe=on \
	--gpu-hour-budget 0.5 --usage-half-life 600 --json "$SV/safev.json" --jobs "$SV/safevj.csv" >/dev/null 2>&1
if python3 - "$SV" <<'PY'
import csv, json, sys
d = sys.argv[1]
j = json.load(open(d + "/safev.json"))
p = {x["policy"]: x for x in j["policies"]}
assert j["budgetSafe"] is False and p["kai"]["budgetSafe"] is False and p["kai:budget-safe=on"]["budgetSafe"] is True
rows = {(r["policy"], r["job"]): r["start"] for r in csv.DictReader(open(d + "/safevj.csv"))}
assert rows[("kai", "B")] == "0" and rows[("kai:budget-safe=on", "B")] == "300", rows
PY
then ok "sim-run-budget-safe-variant"; else bad "sim-run-budget-safe-variant"; fi
expect "sim-run-budget-safe-variant-bad-value" 2 "--policies: budget-safe=yes: use on or off" \
	"$FW" sim run --trace x --policies kai:budget-safe=yes
# budget-safe without any budget would change nothing: refused, as --flaky
# without --failures; a variant's budget-safe=on needs its replay to have one
expect "sim-run-budget-safe-needs-a-budget" 2 "--budget-safe needs --gpu-hour-budget H" \
	"$FW" sim run --trace x --budget-safe
expect "sim-run-budget-safe-variant-needs-a-budget" 2 \
	"--policies 'kai:budget-safe=on': budget-safe=on needs a GPU-hour budget, and this replay has none" \
	"$FW" sim run --trace x --policies kai,kai:budget-safe=on
expect "sim-run-budget-safe-with-a-variant-budget" 1 "--csv /nonexistent/x.csv: cannot write" \
	"$FW" sim run --trace synthetic:3 --budget-safe --policies fifo,kai:gpu-hour-budget=5 --csv /nonexistent/x.csv
# ---- end sim --gpu-hour-budget ----
rm -rf "$SV"
# node failures: bad values, shaping flags without a rate, and a run where
# every policy meets failures from the same list (each up to its own end)
expect "sim-run-bad-failures" 2 "--failures '-1': expected a number from 0 to 100000" \
	"$FW" sim run --trace synthetic:3 --failures -1
expect "sim-run-repair-needs-failures" 2 "give --failures R too" "$FW" sim run --trace synthetic:3 --repair 60
expect "sim-run-bad-flaky" 2 "--flaky '2': expected a number from 0 to 1" \
	"$FW" sim run --trace synthetic:3 --failures 5 --flaky 2
FJ=${TMPDIR:-/tmp}/fw-cli-fail.$$.json
expect "sim-run-failures" 0 "node failures hit" "$FW" sim run --trace synthetic:3 --nodes 13x8 \
	--policies fifo,fairway --failures 300 --repair 3600 --json "$FJ"
if python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
f = d["failureModel"]; p = d["policies"]
sys.exit(not (f["failures"] > 0 and f["ratePer1000"] == 300 and f["repairS"] == 3600 and
              all(0 < x["failures"] <= f["failures"] and x["failureHits"] > 0 and x["lostGpuH"] > 0
                  for x in p)))' "$FJ"; then
	ok "sim-run-failures-json"
else
	bad "sim-run-failures-json: $(head -c 300 "$FJ")"
fi
rm -f "$FJ"
# each job counts once in "N jobs started" (the trace has 2396); its
# restarts after failures are counted apart
expect "sim-run-failures-count-jobs-once" 0 "policy fifo     2396 jobs started (" "$FW" sim run \
	--trace synthetic:3 --nodes 13x8 --policies fifo --failures 300 --repair 3600
expect "sim-fgd-unknown-flag" 2 "unknown option '--bogus'" "$FW" sim fgd --bogus
# a file that is not there names its flag and the file it wants; sim run's
# --nodes NxG given to fgd's --nodes (a node list file) says so
expect "sim-fgd-missing-nodes-file-says-which" 1 \
	"13x8: cannot open: No such file or directory; check the path given to --nodes, the openb node list CSV (e.g. " \
	"$FW" sim fgd --pods tests/data/nosuch.csv --nodes 13x8
expect "sim-fgd-nodes-is-not-NxG" 1 "; --nodes here is a file, not NxG as in sim run" "$FW" sim fgd --pods p --nodes 13x8
expect "sim-fgd-duplicate-scorer" 2 "--scorers names 'fgd' twice" "$FW" sim fgd --pods p --nodes n --scorers fgd,fgd
expect "sim-fgd-unknown-scorer-lists-them" 2 "fairway sim fgd: error: --scorers: unknown scorer 'nope'; give a comma-separated list of: random, dotprod, clustering, packing, bestfit, fgd, fairway" \
	"$FW" sim fgd --pods p --nodes n --scorers fgd,nope
# --skip-bad is offered for a bad row, never for a header error (not skippable)
FD=$(mktemp -d)
printf 'sn,cpu_milli,memory_mib,gpu,model\nn1,96000,786432,8,V100M32\n' >"$FD/nodes.csv"
printf 'name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\np1,1000,1024,1,1000,\np2,1000\n' >"$FD/pods.csv"
printf 'nom,cpu_milli\np1,1000\n' >"$FD/hdr.csv"
expect "sim-fgd-bad-row-offers-skip-bad" 1 "(--skip-bad would skip 1 bad row(s) of $FD/pods.csv" \
	"$FW" sim fgd --pods "$FD/pods.csv" --nodes "$FD/nodes.csv" --seeds 1 --scorers fgd
# the intro on stdout comes before a failed run's error, through a pipe too
printf 'name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\np1,1000,1024,0,0,\n' >"$FD/cpu.csv"
fo=$("$FW" sim fgd --pods "$FD/cpu.csv" --nodes "$FD/nodes.csv" --seeds 1 --scorers fgd 2>&1 | cat)
if [ "$(head -1 <<<"$fo")" = "FGD openb experiment: cpu, 1 pod; 1 node, 8 GPUs" ] &&
	[ "$(tail -1 <<<"$fo")" = "fairway sim fgd: error: run of fgd failed: the pods request no GPU; give --pods a pod list with num_gpu above 0 (the experiment allocates GPUs)" ]; then
	ok "sim-fgd-intro-before-a-failed-runs-error"
else
	bad "sim-fgd-intro-before-a-failed-runs-error"; echo "$fo"
fi
# an output '-' is refused before any work, naming /dev/stdout (before: a
# file named '-' in the working directory, the summary on stdout)
fw_abs=$(cd "$(dirname "$FW")" && pwd)/fairway
for dash in "--json|sim run --trace synthetic:3 --nodes 2x8 --policies fifo" \
	"--csv|sim run --trace synthetic:3 --nodes 2x8 --policies fifo" \
	"--report|sim run --trace synthetic:3 --nodes 2x8 --policies fifo" \
	"--json|sim fgd --pods $FD/pods.csv --nodes $FD/nodes.csv --seeds 1 --scorers fgd"; do
	# shellcheck disable=SC2086
	expect "sim-output-dash-refused: ${dash#*|} ${dash%%|*}" 2 \
		"${dash%%|*} -: the summary goes to stdout, so '-' would be a file named '-' here; give ${dash%%|*} a path" \
		bash -c 'cd "$1" && shift && "$@"' _ "$FD" "$fw_abs" ${dash#*|} "${dash%%|*}" -
	[ -e "$FD/-" ] && bad "sim-output-dash-refused: a file '-' was written" && rm -f "$FD/-"
done
expect "sim-fgd-missing-pods-file-says-which" 1 "$FD/none.csv: cannot open: No such file or directory; check the path given to --pods, the openb pod list CSV" \
	"$FW" sim fgd --pods "$FD/none.csv" --nodes "$FD/nodes.csv" --seeds 1 --scorers fgd
out=$("$FW" sim fgd --pods "$FD/hdr.csv" --nodes "$FD/nodes.csv" --seeds 1 --scorers fgd 2>&1)
if grep -qF "missing from the header" <<<"$out" && ! grep -qF -- "--skip-bad" <<<"$out"; then
	ok "sim-fgd-header-error-no-skip-bad-hint"
else
	bad "sim-fgd-header-error-no-skip-bad-hint: $out"
fi
# --pods and --nodes swapped: each error says the file is the other list
printf 'name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\np1,1000,1024,1,1000,\n' >"$FD/p1.csv"
expect "sim-fgd-swapped-lists-pods-as-nodes" 1 "$FD/p1.csv:1:1: field sn: missing from the header (is this the right kind of file?); the file looks like a pod list: give it to --pods (--pods and --nodes swapped?)" \
	"$FW" sim fgd --pods "$FD/nodes.csv" --nodes "$FD/p1.csv" --seeds 1 --scorers fgd
expect "sim-fgd-swapped-lists-nodes-as-pods" 1 "the file looks like a node list: give it to --nodes (--pods and --nodes swapped?)" \
	"$FW" sim fgd --pods "$FD/nodes.csv" --nodes "$FD/nodes.csv" --seeds 1 --scorers fgd
# --check fails when nothing was compared (no summary found)
expect "sim-fgd-check-nothing-compared" 1 "--check fails: nothing was compared: no published summary" \
	env FAIRWAY_TRACES=/nonexistent "$FW" sim fgd --pods "$FD/pods.csv" --nodes "$FD/nodes.csv" --seeds 1 --scorers fgd --skip-bad --check
expect "sim-fgd-published-not-a-summary" 1 "$FD/nodes.csv:1: header: this is not a published summary; expected the columns workload, sc_policy, metric" \
	"$FW" sim fgd --pods "$FD/pods.csv" --nodes "$FD/nodes.csv" --seeds 1 --scorers fgd --skip-bad --published "$FD/nodes.csv"
# the node-score cache is only a speed-up: --no-cache gives the same runs
printf 'sn,cpu_milli,memory_mib,gpu,model\nn1,96000,786432,8,V100M32\nn2,96000,786432,8,V100M32\n' >"$FD/n2.csv"
printf 'name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\np1,1000,1024,1,1000,\np2,1000,1024,1,500,\np3,2000,2048,2,1000,\n' >"$FD/p3.csv"
for nc in cache no-cache; do
	"$FW" sim fgd --pods "$FD/p3.csv" --nodes "$FD/n2.csv" --seeds 1-3 --scorers fgd,bestfit \
		$([ $nc = no-cache ] && echo --no-cache) --json "$FD/$nc.json" >/dev/null 2>&1
done
if python3 -c 'import json,sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
a.pop("seconds", None), b.pop("seconds", None)
sys.exit(not (a == b and a.get("scorers")))' "$FD/cache.json" "$FD/no-cache.json"; then
	ok "sim-fgd-no-cache-same-runs"
else
	bad "sim-fgd-no-cache-same-runs"
fi
# sim fgd --json's keys are camelCase, as every --json of fairway (the CSVs keep theirs)
if python3 -c 'import json, re, sys
def keys(v):
    if isinstance(v, dict):
        for k, x in v.items():
            yield k
            yield from keys(x)
    elif isinstance(v, list):
        for x in v:
            yield from keys(x)
d = json.load(open(sys.argv[1]))
ks = set(keys(d))
bad = sorted(k for k in ks if not re.fullmatch("[a-z]+([A-Z][a-z]*)*", k))
assert not bad, bad
assert {"podsFile", "seedFirst", "typicalPods", "publishedFgdMean", "paperName", "publishedMean",
        "diffPp", "allocPct", "finalAllocPct", "curveAllocPctByArrivedPct"} <= ks, sorted(ks)
run = d["scorers"][0]["runs"][0]
assert len(run["curveAllocPctByArrivedPct"]) == 131 and run["placed"] + run["failed"] == run["pods"], run' "$FD/cache.json"; then
	ok "sim-fgd-json-camel-case"
else
	bad "sim-fgd-json-camel-case"
fi
expect "sim-fgd-bad-tolerance" 2 "--tolerance wants a number of percentage points >= 0, not '-1'" \
	"$FW" sim fgd --pods "$FD/p3.csv" --nodes "$FD/n2.csv" --tolerance -1
# an unwritable --json is refused before the experiment runs, with the OS
# reason, as sim run does; --json naming an input is a usage error
out=$("$FW" sim fgd --pods "$FD/p3.csv" --nodes "$FD/n2.csv" --seeds 1 --scorers fgd --json /nonexistent-dir/x.json 2>&1)
rc=$?
if [ $rc -eq 1 ] && grep -qF "fairway sim fgd: error: --json /nonexistent-dir/x.json: cannot write: No such file or directory" <<<"$out" &&
	! grep -q "fgd " <<<"$(grep -v error <<<"$out")"; then
	ok "sim-fgd-json-unwritable-refused-before-the-runs"
else
	bad "sim-fgd-json-unwritable-refused-before-the-runs: exit $rc: $out"
fi
cp "$FD/p3.csv" "$FD/p3-copy.csv"
expect "sim-fgd-json-over-an-input" 2 "--json $FD/./p3.csv is the --pods input" \
	"$FW" sim fgd --pods "$FD/p3.csv" --nodes "$FD/n2.csv" --seeds 1 --scorers fgd --json "$FD/./p3.csv"
cmp -s "$FD/p3.csv" "$FD/p3-copy.csv" && ok "sim-fgd-refused-json-keeps-the-input" || bad "sim-fgd-refused-json-keeps-the-input"
rm -rf "$FD"
expect "sim-unknown-experiment" 2 "unknown experiment 'walk'" "$FW" sim walk
expect "trace-help" 0 "sacct2fairway" "$FW" trace --help
# A command without its subcommand is a usage error: on stderr only, exit
# 2, a line saying what is missing; --help is the usage on stdout, exit 0.
# streams NAME WANT_RC OUT(empty|some) ERR_FIRST_LINE(prefix; "" = empty) CMD...
streams() {
	local name=$1 code=$2 out=$3 err=$4 rc
	shift 4
	"$@" >"${TMPDIR:-/tmp}/fw-cli-st.out" 2>"${TMPDIR:-/tmp}/fw-cli-st.err"
	rc=$?
	if [ "$rc" -ne "$code" ]; then
		bad "$name: exit $rc, want $code"
	elif [ "$out" = empty ] && [ -s "${TMPDIR:-/tmp}/fw-cli-st.out" ]; then
		bad "$name: stdout not empty: $(head -2 "${TMPDIR:-/tmp}/fw-cli-st.out")"
	elif [ "$out" = some ] && [ ! -s "${TMPDIR:-/tmp}/fw-cli-st.out" ]; then
		bad "$name: stdout empty"
	elif [ -z "$err" ] && [ -s "${TMPDIR:-/tmp}/fw-cli-st.err" ]; then
		bad "$name: stderr not empty: $(head -2 "${TMPDIR:-/tmp}/fw-cli-st.err")"
	elif [ -n "$err" ] && [ "$(head -1 "${TMPDIR:-/tmp}/fw-cli-st.err")" != "$err" ]; then
		bad "$name: stderr starts '$(head -1 "${TMPDIR:-/tmp}/fw-cli-st.err")', want '$err'"
	else
		ok "$name"
	fi
	rm -f "${TMPDIR:-/tmp}/fw-cli-st.out" "${TMPDIR:-/tmp}/fw-cli-st.err"
}
streams "trace-without-subcommand" 2 empty "fairway trace: error: missing the subcommand: sacct2fairway" "$FW" trace
streams "trace-help-on-stdout" 0 some "" "$FW" trace --help
streams "sim-without-experiment" 2 empty "fairway sim: error: missing the experiment: run or fgd" "$FW" sim
streams "sim-help-on-stdout" 0 some "" "$FW" sim --help
streams "fairway-without-command" 2 empty "fairway: error: missing the command" "$FW"
streams "fairway-help-on-stdout" 0 some "" "$FW" --help
# every error of `fairway plan` starts "fairway plan: error:", usage or not
streams "plan-bad-now-prefix" 2 empty \
	'fairway plan: error: --now: "X" is not a whole number of seconds; write seconds from 0 to 100000000000' "$FW" plan --now X
streams "plan-bad-config-prefix" 2 empty \
	"fairway plan: error: /nonexistent/bad.yaml: cannot open the config: No such file or directory; check the path and permissions" \
	"$FW" plan --config /nonexistent/bad.yaml
streams "plan-bad-policy-prefix" 2 empty "fairway plan: error: unknown policy 'nope' (try \`fairway policies\`)" \
	"$FW" plan --policy nope
expect "trace-sacct-help" 0 "  fairway trace sacct2fairway sacct.txt jobs.csv" "$FW" trace sacct2fairway --help
expect "trace-sacct-usage" 2 "usage: fairway trace sacct2fairway [--no-gpu-model] [--time-limits] [--json] SACCT_FILE OUT.csv|-" "$FW" trace sacct2fairway onlyone
expect "trace-sacct-converts" 0 "" "$FW" trace sacct2fairway tests/data/sacct_sample.txt "${TMPDIR:-/tmp}/fw-cli-sacct.csv"
if head -1 "${TMPDIR:-/tmp}/fw-cli-sacct.csv" | grep -q '^job_id,submit_time,duration'; then
	ok "trace-sacct-output-has-header"
else
	bad "trace-sacct-output-has-header"
fi
expect "sim-run-reads-converted-sacct" 0 "summary" \
	"$FW" sim run --format fairway --trace "${TMPDIR:-/tmp}/fw-cli-sacct.csv" --nodes 2x8 --policies fifo,fairway
# a JobID twice (sacct --duplicates, or two exports joined): refused at conversion, naming the sacct line
(cat tests/data/sacct_sample.txt; sed -n 2p tests/data/sacct_sample.txt) >"${TMPDIR:-/tmp}/fw-cli-sacct-dup.txt"
dup_line=$(wc -l <"${TMPDIR:-/tmp}/fw-cli-sacct-dup.txt")
expect "trace-sacct-repeated-jobid" 1 "fw-cli-sacct-dup.txt:$dup_line:1: JobID: '1001' repeats the job on line 2" \
	"$FW" trace sacct2fairway "${TMPDIR:-/tmp}/fw-cli-sacct-dup.txt" "${TMPDIR:-/tmp}/fw-cli-sacct-dup.csv"
if [ -e "${TMPDIR:-/tmp}/fw-cli-sacct-dup.csv" ]; then bad "trace-sacct-repeated-jobid-writes-nothing"; else ok "trace-sacct-repeated-jobid-writes-nothing"; fi
rm -f "${TMPDIR:-/tmp}/fw-cli-sacct-dup.txt"
# a heterogeneous job with a part still running (5+0) is left out whole,
# its COMPLETED part 5+1 too, and counted once as a job not ended
HT="${TMPDIR:-/tmp}/fw-cli-sacct-het.$$"
printf '%s\n' 'JobID|Submit|Start|End|Elapsed|AllocTRES|State' \
	'5+0|2024-03-01T10:00:00|2024-03-01T10:00:00|Unknown|00:10:00|gres/gpu=8|RUNNING' \
	'5+1|2024-03-01T10:00:00|2024-03-01T10:00:00|2024-03-01T10:05:00|00:05:00|gres/gpu=8|COMPLETED' \
	'1|2024-03-01T10:00:00|2024-03-01T10:00:00|2024-03-01T11:00:00|01:00:00|gres/gpu=1|COMPLETED' >"$HT.txt"
expect "trace-sacct-het-part-running-counts-one-job" 0 "1 job written; 1 left out: 0 never started, 1 not ended at the dump" \
	"$FW" trace sacct2fairway "$HT.txt" "$HT.csv"
if [ "$(cut -d, -f1 "$HT.csv" 2>/dev/null | tr '\n' ' ')" = "job_id 1 " ]; then ok "trace-sacct-het-part-running-left-out-whole"
else bad "trace-sacct-het-part-running-left-out-whole: $(cut -d, -f1 "$HT.csv" 2>&1 | tr '\n' ' ')"; fi
rm -f "$HT.txt" "$HT.csv"
# a time of the right form with a part out of range names the part (the
# export's format is right); a Start before its Submit is refused as an
# End before its Start is (Slurm resets a requeued job's Submit)
printf '%s\n' 'JobID|Submit|Start|Elapsed|AllocTRES|State' \
	'1|2024-13-01T10:00:00|2024-03-01T10:00:00|01:00:00|gres/gpu=1|COMPLETED' >"$HT.txt"
expect "trace-sacct-month-13-out-of-range" 1 "$(basename "$HT").txt:2:3: Submit: '2024-13-01T10:00:00': month 13 is out of range (1..12); fix the time, or drop the row" \
	"$FW" trace sacct2fairway "$HT.txt" "$HT.csv"
printf '%s\n' 'JobID|Submit|Start|Elapsed|AllocTRES|State' \
	'1|2024-02-03T10:00:00|2024-02-03T25:00:00|01:00:00|gres/gpu=1|COMPLETED' >"$HT.txt"
expect "trace-sacct-hour-25-out-of-range" 1 "Start: '2024-02-03T25:00:00': hour 25 is out of range (0..23)" \
	"$FW" trace sacct2fairway "$HT.txt" "$HT.csv"
printf '%s\n' 'JobID|Submit|Start|Elapsed|AllocTRES|State' \
	'1|2024-03-01T10:00:00|2024-03-01T09:05:00|02:00:00|gres/gpu=2|COMPLETED' >"$HT.txt"
expect "trace-sacct-start-before-submit" 1 "$(basename "$HT").txt:2:23: Start: '2024-03-01T09:05:00' is before Submit" \
	"$FW" trace sacct2fairway "$HT.txt" "$HT.csv"
if [ -e "$HT.csv" ]; then bad "trace-sacct-start-before-submit-writes-nothing"; else ok "trace-sacct-start-before-submit-writes-nothing"; fi
# a trace without its header line: its first row is read as the header,
# and the error says so and lists the columns (fairway and ITP formats)
printf 'a,0,100,1,1\n' >"$HT.csv"
expect "sim-run-trace-without-header-fairway" 1 "header: unknown column 'a': the first line is read as the header and names no column; add a header line first. The columns: job_id, submit_time, duration, gpus_per_task," \
	"$FW" sim run --trace "$HT.csv" --format fairway --nodes 2x8
expect "sim-run-trace-without-header-itp" 1 "header: no column 'job_id': the first line is read as the header and names no column; add a header line first: job_id,submission_time,duration,num_gpu" \
	"$FW" sim run --trace "$HT.csv" --nodes 2x8
# "multi-node" only where 9 GPUs span nodes: on 16-GPU nodes the 9+ row
# says "9+ GPUs" alone; on 8-GPU nodes "(multi-node)", as docs/results.md
printf 'job_id,submission_time,duration,num_gpu\na,0,100,12\nb,0,100,1\n' >"$HT.csv"
expect "sim-run-9-gpus-multi-node-on-8-gpu-nodes" 0 "  p95, 9+ GPUs (multi-node)" \
	"$FW" sim run --trace "$HT.csv" --nodes 2x8 --policies fifo
if "$FW" sim run --trace "$HT.csv" --nodes 2x16 --policies fifo 2>&1 | grep -q '^  p95, 9+ GPUs  *[0-9]' &&
	! "$FW" sim run --trace "$HT.csv" --nodes 2x16 --policies fifo 2>&1 | grep -q 'multi-node'; then
	ok "sim-run-9-gpus-not-multi-node-on-16-gpu-nodes"
else bad "sim-run-9-gpus-not-multi-node-on-16-gpu-nodes"; fi
rm -f "$HT.txt" "$HT.csv"
expect "jobs-list-empty-array-refused" 2 "--array is empty: give a job array's name" \
	"$FW" jobs list --array "" --server http://127.0.0.1:9
# the standalone converter names itself by its base name, not the build path
expect "sacct2fairway-usage-base-name" 2 "usage: fairway-sacct2fairway [--no-gpu-model]" "$B/sim/fairway-sacct2fairway" onlyone
if "$B/sim/fairway-sacct2fairway" onlyone 2>&1 | grep -qF "$B/"; then
	bad "sacct2fairway-usage-no-build-path"
else
	ok "sacct2fairway-usage-no-build-path"
fi
# ... and says that its h100 job can never start on the generated fleet
expect "sim-run-warns-of-a-gpu-model-no-node-has" 0 "a GPU model no node has (h100; the fleet has itp-gpu)" \
	"$FW" sim run --format fairway --trace "${TMPDIR:-/tmp}/fw-cli-sacct.csv" --nodes 2x8 --policies fifo
# a typed GPU (gres/gpu:h100) becomes gpu_model; --no-gpu-model leaves it out
if grep -q ',h100$' "${TMPDIR:-/tmp}/fw-cli-sacct.csv"; then
	ok "trace-sacct-keeps-gpu-model"
else
	bad "trace-sacct-keeps-gpu-model"
fi
expect "trace-sacct-no-gpu-model" 0 "" "$FW" trace sacct2fairway --no-gpu-model tests/data/sacct_sample.txt "${TMPDIR:-/tmp}/fw-cli-sacct.csv"
if grep -q '^1002,' "${TMPDIR:-/tmp}/fw-cli-sacct.csv" && ! grep -q 'h100' "${TMPDIR:-/tmp}/fw-cli-sacct.csv"; then
	ok "trace-sacct-no-gpu-model-drops-it"
else
	bad "trace-sacct-no-gpu-model-drops-it"
fi
expect "trace-sacct-unknown-option" 2 "usage: fairway trace sacct2fairway [--no-gpu-model]" \
	"$FW" trace sacct2fairway --bogus tests/data/sacct_sample.txt -
# --time-limits: Timelimit also as max_runtime (a last column; empty for
# Partition_Limit); the replay ends a job at it: 1001 (limit 4 h), made to
# run 5 h, ends at 4 h, timed out
"$FW" trace sacct2fairway --time-limits tests/data/sacct_sample.txt "${TMPDIR:-/tmp}/fw-cli-sacct-tl.csv" 2>/dev/null
if [ "$(head -1 "${TMPDIR:-/tmp}/fw-cli-sacct-tl.csv")" = "job_id,submit_time,duration,expected_runtime,queue,user,priority,tasks,gpus_per_task,cpu_milli,mem_mib,gpu_model,max_runtime" ] &&
	grep -q '^1001,0,7200,14400,.*,14400$' "${TMPDIR:-/tmp}/fw-cli-sacct-tl.csv" &&
	grep -q '^1005_3,.*,$' "${TMPDIR:-/tmp}/fw-cli-sacct-tl.csv" &&
	sed 's/^1001,0,7200,/1001,0,18000,/' "${TMPDIR:-/tmp}/fw-cli-sacct-tl.csv" >"${TMPDIR:-/tmp}/fw-cli-sacct-tl5h.csv" &&
	"$FW" sim run --format fairway --trace "${TMPDIR:-/tmp}/fw-cli-sacct-tl5h.csv" --nodes 2x8 --policies fifo \
		--jobs "${TMPDIR:-/tmp}/fw-cli-sacct-tlj.csv" >/dev/null 2>&1 &&
	grep -q '^fifo,1001,vision,1,0,0,14400,.*,timed_out$' "${TMPDIR:-/tmp}/fw-cli-sacct-tlj.csv"; then
	ok "trace-sacct-time-limits-become-max-runtime"
else
	bad "trace-sacct-time-limits-become-max-runtime"
fi
rm -f "${TMPDIR:-/tmp}/fw-cli-sacct-tl.csv" "${TMPDIR:-/tmp}/fw-cli-sacct-tl5h.csv" "${TMPDIR:-/tmp}/fw-cli-sacct-tlj.csv"
rm -f "${TMPDIR:-/tmp}/fw-cli-sacct.csv"
# errors name the command as every fairway command does ("fairway CMD: error:"),
# a usage error says what is wrong before the usage, and the output appears
# whole or not at all: a failed conversion keeps an earlier OUT, creates none
ST=$(mktemp -d)
# a misspelt flag names the near one (--no-gpu-models is --no-gpu-model)
expect "trace-sacct-unknown-option-near" 2 "unknown option '--no-gpu-models' (did you mean '--no-gpu-model'?)" \
	"$FW" trace sacct2fairway --no-gpu-models tests/data/sacct_sample.txt "${TMPDIR:-/tmp}/fw-cli-sacct.csv"
expect "trace-sacct-unknown-option-named" 2 "fairway trace sacct2fairway: error: unknown option '--bogus'" \
	"$FW" trace sacct2fairway --bogus tests/data/sacct_sample.txt -
expect "trace-sacct-stdin-refused" 2 "fairway trace sacct2fairway: error: SACCT_FILE cannot be '-'" \
	"$FW" trace sacct2fairway - "$ST/out.csv"
expect "trace-sacct-missing-file" 1 "fairway trace sacct2fairway: error: $ST/none.txt: cannot open: No such file or directory; give SACCT_FILE as the path of a file holding sacct's output" \
	"$FW" trace sacct2fairway "$ST/none.txt" "$ST/out.csv"
expect "trace-sacct-directory-input" 1 "fairway trace sacct2fairway: error: $ST: cannot read: Is a directory" \
	"$FW" trace sacct2fairway "$ST" "$ST/out.csv"
printf 'JobID|Submit|Start|Elapsed|AllocTRES\n1|2024-03-01T10:00:00|2024-03-01T10:00:00|01:00|gres/gpu=3,node=2\n' >"$ST/bad.txt"
echo PREV >"$ST/keep.csv"
expect "trace-sacct-bad-row-named" 1 "fairway trace sacct2fairway: error: $ST/bad.txt:2:49: AllocTRES: 'gres/gpu=3,node=2': the GPUs do not split evenly over the nodes (fairway gives every task of a job the same GPU count); fix NNodes or the GPU count, or drop the row" \
	"$FW" trace sacct2fairway "$ST/bad.txt" "$ST/keep.csv"
expect "trace-sacct-bad-row-no-output" 1 "error:" "$FW" trace sacct2fairway "$ST/bad.txt" "$ST/new.csv"
# real sacct prints sizes with decimals (mem=62.50G); a bad value names its key
printf 'JobID|Submit|Start|Elapsed|AllocTRES\n1|2024-03-01T10:00:00|2024-03-01T10:00:00|01:00|billing=16,cpu=16,gres/gpu=4,mem=62.50G,node=1\n' >"$ST/dec.txt"
expect "trace-sacct-decimal-mem" 0 "1,0,60,,,,0,1,4,16000,64000," "$FW" trace sacct2fairway "$ST/dec.txt" -
sed 's/62.50G/62.5X/' "$ST/dec.txt" >"$ST/badmem.txt"
expect "trace-sacct-bad-tres-value-names-its-key" 1 "$ST/badmem.txt:2:78: AllocTRES mem=: '62.5X' is not a size" \
	"$FW" trace sacct2fairway "$ST/badmem.txt" "$ST/keep.csv"
# a header without a needed column names it and the sacct command that has it
printf 'JobID|Submit|Start|AllocTRES\n' >"$ST/badmem.txt"
expect "trace-sacct-missing-column-says-what-to-run" 1 "$ST/badmem.txt:1:1: header: no column Elapsed (or End); the header needs Submit, Start, Elapsed (or End) and AllocTRES or ReqTRES: export it with sacct --parsable2 --format JobID,JobIDRaw,User,Account,Partition,Submit,Start,End,Elapsed,Timelimit,AllocTRES,ReqTRES,NNodes,State,Priority (docs/trace-format.md)" \
	"$FW" trace sacct2fairway "$ST/badmem.txt" "$ST/keep.csv"
rm -f "$ST/dec.txt" "$ST/badmem.txt"
expect "trace-sacct-out-is-the-input" 2 "OUT $ST/./bad.txt is SACCT_FILE $ST/bad.txt, and writing it would replace the input" \
	"$FW" trace sacct2fairway "$ST/bad.txt" "$ST/./bad.txt"
printf 'JobID|Submit|Start|Elapsed|AllocTRES\n1|2024-03-01T10:00:00|Unknown|01:00|gres/gpu=1\n' >"$ST/none_ran.txt"
expect "trace-sacct-no-job-is-an-error" 1 "none_ran.txt: no job to convert: 1 never started, 0 not ended when sacct ran, 0 without GPUs, 0 job steps" \
	"$FW" trace sacct2fairway "$ST/none_ran.txt" "$ST/new.csv"
expect "trace-sacct-write-error-says-why" 1 "fairway trace sacct2fairway: error: cannot write /dev/full: No space left on device; give OUT a path you may write, on a disk with room" \
	"$FW" trace sacct2fairway tests/data/sacct_sample.txt /dev/full
[ "$(cat "$ST/keep.csv")" = PREV ] && [ "$(ls -A "$ST" | sort | tr '\n' ' ')" = "bad.txt keep.csv none_ran.txt " ] &&
	ok "trace-sacct-failure-writes-nothing" || bad "trace-sacct-failure-writes-nothing: $(ls -A "$ST")"
expect "trace-sacct-counts-on-stderr" 0 "fairway trace sacct2fairway: 3 jobs written; 2 left out: 1 never started, 0 not ended at the dump (running, suspended or requeued: no end time), 1 without GPUs" \
	"$FW" trace sacct2fairway tests/data/sacct_sample.txt "$ST/keep.csv"
# a job still running when sacct ran (End Unknown, Elapsed its time so far)
# is left out and counted, not written as a job that ended at the dump; the
# parts of a heterogeneous job become one gang when one row can say so
T0=2024-03-01T10:00:00
{ echo 'JobID|JobIDRaw|Submit|Start|End|Elapsed|AllocTRES|NNodes|State'
  echo "1|1|$T0|$T0|2024-03-01T11:00:00|01:00:00|gres/gpu=1|1|COMPLETED"
  echo "2|2|$T0|$T0|Unknown|00:10:00|gres/gpu=8|1|RUNNING"
  echo "7+0|7|$T0|$T0|2024-03-01T11:00:00|01:00:00|gres/gpu=8|1|COMPLETED"
  echo "7+1|8|$T0|$T0|2024-03-01T11:00:00|01:00:00|gres/gpu=8|1|COMPLETED"
  echo "9+0|10|$T0|$T0|2024-03-01T11:00:00|01:00:00|gres/gpu=8|1|COMPLETED"
  echo "9+1|11|$T0|$T0|2024-03-01T11:00:00|01:00:00|gres/gpu=2|1|COMPLETED"; } >"$ST/live.txt"
expect "trace-sacct-running-job-left-out-and-counted" 0 "4 jobs written; 1 left out: 0 never started, 1 not ended at the dump (running, suspended or requeued: no end time), 0 without GPUs" \
	"$FW" trace sacct2fairway "$ST/live.txt" "$ST/live.csv"
if grep -q '^2,' "$ST/live.csv"; then bad "trace-sacct-running-job-not-written: $(cat "$ST/live.csv")"
else ok "trace-sacct-running-job-not-written"; fi
expect "trace-sacct-het-parts-one-gang" 0 "1 heterogeneous job (JobID N+K) each joined into one gang" \
	"$FW" trace sacct2fairway "$ST/live.txt" -
expect "trace-sacct-het-gang-row" 0 "7,0,3600,,,,0,2,8,0,0," "$FW" trace sacct2fairway "$ST/live.txt" -
expect "trace-sacct-het-unlike-parts-warned" 0 "warning: 1 heterogeneous job written as a job per part: the parts differ in shape" \
	"$FW" trace sacct2fairway "$ST/live.txt" -
# --json: the summary as one object on stdout, camelCase keys, the counts
# the text summary gives (before, only text on stderr, for a script to
# scrape); the warnings stay on stderr, the text summary does not
# (a Priority over 10^9 is cut and counted: priorityCut)
{ echo 'JobID|Submit|Start|Elapsed|AllocTRES|NNodes|State|Priority'
  echo "1|$T0|$T0|01:00:00|gres/gpu=1|1|COMPLETED|4000000000"
  echo "1.batch|$T0|$T0|01:00:00|gres/gpu=1|1|COMPLETED|"
  echo "2|$T0|Unknown|00:00:00|gres/gpu=1|1|PENDING|5"; } >"$ST/prio.txt"
sj_ok=yes
for sj in live prio; do
	"$FW" trace sacct2fairway --json "$ST/$sj.txt" "$ST/$sj-j.csv" >"$ST/$sj.json" 2>"$ST/$sj-j.err" || sj_ok="no: $sj --json exit $?"
	"$FW" trace sacct2fairway "$ST/$sj.txt" "$ST/$sj-t.csv" 2>"$ST/$sj-t.err" || sj_ok="no: $sj exit $?"
	python3 - "$ST/$sj.json" "$ST/$sj-t.err" "$ST/$sj-j.err" "$ST/$sj-j.csv" "$ST/$sj.txt" "$sj" <<'PY' || sj_ok="no: $sj"
import json, re, sys
j, text, jerr, csv, src, case = sys.argv[1:]
d = json.load(open(j))
keys = ["sacctFile", "out", "gpuModels", "timeLimits", "rows", "jobsWritten", "leftOut", "neverStarted",
        "notEnded", "withoutGpus", "jobSteps", "heterogeneousJoined", "heterogeneousSplit", "priorityCut"]
assert list(d) == keys, list(d)
assert all(re.fullmatch(r"[a-z]+([A-Z][a-z]+)*", k) for k in d), "camelCase"
assert d["sacctFile"] == src and d["out"] == csv and d["gpuModels"] is True and d["timeLimits"] is False
t = open(text).read()
m = re.search(r": (\d+) jobs? written; (\d+) left out: (\d+) never started, (\d+) not ended at the dump "
              r"\(running, suspended or requeued: no end time\), (\d+) without GPUs", t)
assert m, t
assert [int(x) for x in m.groups()] == [d[k] for k in ("jobsWritten", "leftOut", "neverStarted", "notEnded",
                                                       "withoutGpus")], (m.groups(), d)
assert d["jobsWritten"] == len(open(csv).read().splitlines()) - 1
assert d["leftOut"] == d["neverStarted"] + d["notEnded"] + d["withoutGpus"]
assert d["rows"] == len(open(src).read().splitlines()) - 1
joined = re.search(r"(\d+) heterogeneous jobs? \(JobID N\+K\) each joined", t)
assert d["heterogeneousJoined"] == (int(joined[1]) if joined else 0)
split = re.search(r"warning: (\d+) heterogeneous jobs? written as a job per part", t)
assert d["heterogeneousSplit"] == (int(split[1]) if split else 0)
cut = re.search(r"warning: (\d+) jobs? with a Priority above 1000000000", t)
assert d["priorityCut"] == (int(cut[1]) if cut else 0)
want = {"live": (6, 4, 1, 0, 1, 1, 1, 0), "prio": (3, 1, 1, 1, 0, 0, 0, 1)}[case]
assert tuple(d[k] for k in ("rows", "jobsWritten", "leftOut", "neverStarted", "notEnded", "heterogeneousJoined",
                            "heterogeneousSplit", "priorityCut")) == want, d
e = open(jerr).read().splitlines()
assert e and all(": warning: " in l for l in e), e
assert [l for l in t.splitlines() if ": warning: " in l] == e, (t, e)
PY
done
[ "$sj_ok" = yes ] && ok "trace-sacct-json-summary-counts-as-the-text" || bad "trace-sacct-json-summary-counts-as-the-text: $sj_ok"
# ... and with OUT '-' stdout is the CSV, so --json there is refused,
# saying what to do, before anything is read or written
streams "trace-sacct-json-with-stdout-out-refused" 2 empty \
	"fairway trace sacct2fairway: error: --json prints the summary on stdout, and OUT - writes the CSV there; give OUT a file (e.g. jobs.csv), or leave --json out (the summary is then text on stderr)" \
	"$FW" trace sacct2fairway --json "$ST/live.txt" -
rm -f "$ST/live.txt" "$ST/live.csv" "$ST"/live* "$ST"/prio*
expect "trace-sacct-standalone-prefix" 1 "fairway-sacct2fairway: error: $ST/none.txt: cannot open" \
	"$B/sim/fairway-sacct2fairway" "$ST/none.txt" "$ST/out.csv"
rm -rf "$ST"

if [ -f tests/bad_input/cases.txt ]; then
	while IFS=$'\t' read -r file sub; do
		[ -z "$file" ] || [ "${file:0:1}" = "#" ] && continue
		expect "bad-input $(basename "$file")" 2 "$sub" "$FW" plan --config "$file"
	done <tests/bad_input/cases.txt
else
	bad "tests/bad_input/cases.txt is missing"
fi

# An openb pod list read as a trace (--format openb) or by sim fgd: every
# refusal names FILE:LINE:COL: FIELD and says what to do, as the ITP and
# generic readers' do (before, e.g. "deletion_time: 50 is before
# creation_time 100" and "empty file: expected a header line", no fix).
OB=$(mktemp -d)
ob_hdr=name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time
ob_ok=p,1000,1024,1,1000,,LS,Running,0,100,0
: >"$OB/empty.csv"
printf '%s\n' name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time p,1,1,1,1000,0 >"$OB/missing_col.csv"
printf '%s\n' "$ob_hdr" p,1000,1024,-1,1000,,LS,Running,0,100,0 >"$OB/neg_gpu.csv"
printf '%s\n' "$ob_hdr" p,1000,1024,1,1000,,LS,Running,100,50,0 >"$OB/backwards.csv"
printf '%s\r\n' "$ob_hdr" "$ob_ok" q,1000,1024,1,1000,,LS,Running,0,x,0 >"$OB/crlf.csv"
{ printf '\xef\xbb\xbf'; printf '%s\n' "$ob_hdr" "$ob_ok" q,1000,1024,1,2000,,LS,Running,0,100,0; } >"$OB/bom.csv"
printf '%s\n' "$ob_hdr" p,1000,1024,1,1000,,LS,Running,0,99999999999999999999999,0 >"$OB/huge.csv"
printf '%s\n' "$ob_hdr" "$ob_ok" "$ob_ok" >"$OB/dup.csv"
printf '%s\n' "$ob_hdr" p,1000,1024,1,1000,,LS,Running,,100,0 >"$OB/no_time.csv"
printf '%s\n' "$ob_hdr" p,1000,1024,1,1000,,LS,Running,0,100 >"$OB/short.csv"
printf '%s\n' "$ob_hdr" p,abc,1024,1,1000,,LS,Running,0,100,0 >"$OB/non_numeric.csv"
printf '%s\n' "$ob_hdr" p,1000,1024,2,500,,LS,Running,0,100,0 >"$OB/multi_gpu_share.csv"
while IFS='|' read -r ob_f ob_want; do
	expect "sim-run-openb-bad-trace-says-what-to-do: $ob_f" 1 "$OB/$ob_f.csv$ob_want" \
		"$FW" sim run --format openb --trace "$OB/$ob_f.csv" --nodes 2x8 --policies fifo
done <<'OBEOF'
empty|: header: the file is empty; an openb pod list is a header line (name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec) and a row per pod
missing_col|:1:1: gpu_spec: missing from the header (is this the right kind of file?); add it: an openb pod list names name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec (any order, more columns allowed)
neg_gpu|:2:13: num_gpu: -1 is out of range 0..1024; give a value in that range
backwards|:2:36: deletion_time: 50 is before creation_time 100; fix the pod's times, or leave it out
crlf|:3:34: deletion_time: 'x' is not a whole number of seconds in 0..1000000000000; write it in decimal digits
bom|:3:15: gpu_milli: 2000 is out of range 0..1000; give a value in that range
huge|:2:34: deletion_time: '99999999999999999999999' is not a whole number of seconds in 0..1000000000000; write it in decimal digits
dup|:3:1: name: duplicate pod name "p": it already appeared on line 2; give each row its own pod name, or drop the repeated row
no_time|:2:32: creation_time: is empty: a pod needs creation_time and deletion_time to be replayed as a trace; give both, or leave the pod out
short|:2:37: row: 10 fields, but the header has 11; give each row one field per header column
non_numeric|:2:3: cpu_milli: "abc" is not a decimal integer; write a whole number 0..1000000000 in decimal digits
multi_gpu_share|:2:15: gpu_milli: 500 with num_gpu 2: a multi-GPU pod takes whole GPUs (1000); give gpu_milli 1000, or num_gpu 1 for a share of one GPU
OBEOF
# sim fgd reads the same pod lists: its refusals say what to do too
printf 'sn,cpu_milli,memory_mib,gpu,model\nn1,96000,786432,8,V100M32\n' >"$OB/nodes.csv"
expect "sim-fgd-openb-dup-says-what-to-do" 1 "$OB/dup.csv:3:1: field name: duplicate pod name \"p\": it already appeared on line 2; give each row its own pod name" \
	"$FW" sim fgd --pods "$OB/dup.csv" --nodes "$OB/nodes.csv" --seeds 1 --scorers fgd
expect "sim-fgd-openb-empty-nodes-says-what-to-do" 1 "$OB/empty.csv: field header: the file is empty; an openb node list is a header line (sn,cpu_milli,memory_mib,gpu,model) and a row per node" \
	"$FW" sim fgd --pods "$OB/bom.csv" --nodes "$OB/empty.csv" --seeds 1 --scorers fgd
rm -rf "$OB"
# the generic reader: a JSONL number past 64 bits names its key and the
# range to give (before: "row: not JSON: too big integer; write each row
# as one JSON object", which it is); a CSV quote left open says to close it
GB=$(mktemp -d)
printf '%s\n' '{"job_id":"a","submit_time":0,"duration":99999999999999999999999,"gpus_per_task":1}' >"$GB/huge.jsonl"
printf '%s\n' '{"job_id":"a","submit_time":0,"duration":1,"gpus_per_task":1, "priority" : -99999999999999999999}' >"$GB/huge_neg.jsonl"
printf '%s\n' job_id,submit_time,duration,gpus_per_task '"a,0,10,1' >"$GB/quote.csv"
expect "sim-run-jsonl-huge-number-names-key" 1 \
	"$GB/huge.jsonl:1:64: duration: the number is too big (past 2^63); give a value in the key's range (docs/trace-format.md" \
	"$FW" sim run --format fairway --trace "$GB/huge.jsonl" --nodes 2x8 --policies fifo
expect "sim-run-jsonl-huge-negative-names-key" 1 "$GB/huge_neg.jsonl:1:" \
	"$FW" sim run --format fairway --trace "$GB/huge_neg.jsonl" --nodes 2x8 --policies fifo
expect "sim-run-jsonl-huge-negative-names-key: field" 1 ": priority: the number is too big (past 2^63)" \
	"$FW" sim run --format fairway --trace "$GB/huge_neg.jsonl" --nodes 2x8 --policies fifo
expect "sim-run-csv-open-quote-says-close-it" 1 \
	"$GB/quote.csv:2:1: row: quoted field is not closed on this line (multi-line fields are not supported); close the quote, or write the value without it" \
	"$FW" sim run --format fairway --trace "$GB/quote.csv" --nodes 2x8 --policies fifo
rm -rf "$GB"
# sacct output given to sim run as it is (what a Slurm user tries first):
# the header error says to convert it, and how (before: only "no column
# 'job_id'" or "unknown column", and no word of sacct2fairway)
for sf in itp openb fairway; do
	expect "sim-run-sacct-file-says-convert-it: --format $sf" 1 \
		"tests/data/sacct_sample.txt:1:1: header: the file looks like sacct --parsable2 output, not a trace: convert it first (fairway trace sacct2fairway tests/data/sacct_sample.txt jobs.csv), then replay --trace jobs.csv --format fairway" \
		"$FW" sim run --format "$sf" --trace tests/data/sacct_sample.txt --nodes 2x8 --policies fifo
done
# --topo FILE: every refusal says what to do (before: "no header
# (expected a header and one line per host)", "has 3 fields, the header
# has 4", "switch 'S 2' is ... not a plain name", with no fix)
TP=$(mktemp -d)
: >"$TP/empty.csv"
printf 'ip,DSW,PSW,ASW\n' >"$TP/header_only.csv"
printf 'ip,DSW,PSW,ASW\nh1,G1,P1\n' >"$TP/short.csv"
printf 'ip,DSW,PSW,ASW\r\nh1,G1,P1,S1\r\nh2,G1,P1,"S 2"\r\n' >"$TP/space.csv"
printf 'ip\nh1\nh2\n' >"$TP/no_tiers.csv"
while IFS='|' read -r tp_f tp_want; do
	expect "sim-run-topo-bad-file-says-what-to-do: $tp_f" 1 "$TP/$tp_f.csv$tp_want" \
		"$FW" sim run --trace synthetic:3 --nodes 2x8 --topo "$TP/$tp_f.csv" --policies fifo
done <<'TPEOF'
empty|: header: no header; a topology file is a header (the host's column, then one per switch tier: ip,DSW,PSW,ASW) and one line per host (HOST,SWITCH,...)
header_only|:1: host: no hosts; a topology file is a header
short|:2:7: row: has 3 fields, the header has 4; give each host one switch per tier
space|:3:10: asw: switch 'S 2' is empty, longer than 63 bytes or not a plain name; name the switch in printable ASCII without spaces, quotes, backslashes or commas
no_tiers|:1:1: header: needs a host column and 1..8 switch tiers, got 1 columns; write the host's column, then a column per tier
TPEOF
rm -rf "$TP"

# fairway-health-sim: help, bad flags, an unwritable --out refused before
# any replay, and a tiny run whose document replaces FILE only when whole.
HS=$B/sim/fairway-health-sim
HS_TMP=$(mktemp -d)
HS_TINY=(--seeds 1 --holdout 0 --no-sensitivity --no-cluster03 --days 1 --nodes 16)
expect "health-sim-help" 0 "--lemon-gang N" "$HS" --help
# its help lists --out with its default and ends with examples, as every
# fairway help does (before: --out only in the usage line, no example)
expect "health-sim-help-lists-out" 0 "  --out FILE     write the document to FILE (default, or -: stdout)" "$HS" --help
expect "health-sim-help-has-examples" 0 "  fairway-health-sim --seeds 1 --holdout 0 --days 2" "$HS" --help
expect "health-sim-unknown-flag" 2 "fairway-health-sim: error: unknown option '--bogus'" "$HS" --bogus
# its flag errors read as \`fairway sim run\`'s: "error:", then where the
# usage is; a misspelt flag is named (before: no "error:", "; see --help",
# and --sead, 2 edits from --seeds and from --load, got no hint)
hs_out=$("$HS" --sead 1 2>&1)
hs_rc=$?
if [ $hs_rc = 2 ] && [ "$hs_out" = "fairway-health-sim: error: unknown option '--sead' (did you mean '--seeds'?)
run \`fairway-health-sim --help\` for usage" ]; then
	ok "health-sim-flag-error-as-sim-run"
else
	bad "health-sim-flag-error-as-sim-run: exit $hs_rc: $hs_out"
fi
expect "sim-run-sead-says-error-and-usage" 2 "fairway sim run: error: unknown option '--sead'" "$FW" sim run --sead 1
expect "health-sim-no-cluster03-hinted" 2 "unknown option '--no-cluster3' (did you mean '--no-cluster03'?)" "$HS" --no-cluster3
expect "health-sim-bad-value-says-error" 2 "fairway-health-sim: error: --seeds needs a whole number" "$HS" --seeds 2.5
expect "health-sim-joined-value-says-error" 2 "fairway-health-sim: error: --no-sensitivity takes no value" "$HS" --no-sensitivity=1
# --out and --traces without a value say so (before: "unknown or incomplete
# option", as if the flag did not exist); --out - is stdout, its default
expect "health-sim-out-needs-value" 2 "--out needs a value (a FILE, or - for stdout)" "$HS" --seeds 1 --out
expect "health-sim-traces-needs-value" 2 "--traces needs a value (a DIR)" "$HS" --traces
expect "health-sim-bad-seeds" 2 "--seeds needs a number in [1, 100]" "$HS" --seeds 0
expect "health-sim-bad-silent" 2 "--silent needs a number in [0, 1]" "$HS" --silent 1.5
expect "health-sim-bad-crash" 2 "--crash needs a duration from 1 s to 1 day in whole seconds, not '0'" "$HS" --crash 0
expect "health-sim-missing-detect" 2 "--detect needs a duration from 0 s to 30 days" "$HS" --detect
# duration flags take the config's durations (docs/config.md), one parser
# for both; a bad one is refused naming the flag, its range and the forms
expect "health-sim-duration-forms" 2 \
	"--repair needs a duration from 0 s to 30 days in whole seconds, not '4 hours': write seconds (300) or a number with a unit s, m, h, d (90s, 10m, 2h, 1d, 1h30m)" \
	"$HS" --repair "4 hours"
for dv in "--crash|1.5s" "--crash|-0" "--crash|-5m" "--detect|31d" "--flap-down|2d" "--lemon-window|0s" "--probation|1e3" \
	"--gpu-repair|" "--flap-hold|h" "--restart|8d"; do
	expect "health-sim-bad-duration: ${dv%%|*} '${dv#*|}'" 2 "${dv%%|*} needs a duration from " "$HS" "${dv%%|*}" "${dv#*|}"
done
expect "health-sim-help-says-durations" 0 "A duration S is seconds (300) or a number with a unit s, m, h, d" "$HS" --help
expect "health-sim-bad-gpu-faults" 2 "--gpu-faults needs a number in [0, 1]" "$HS" --gpu-faults -0.1
expect "health-sim-empty-value-is-no-number" 2 "--rate needs a number in [0, 1000]" "$HS" --rate ""
# numbers in plain decimal digits, as every fairway flag takes them (strtod
# read '1e1', '0x5', ' 5', '+2' and 'inf' as values), and the refusal echoes
# the value given
for hv in "--seeds|1e1" "--seeds|0x5" "--rate| 5" "--load|+0.5" "--flaky|inf" "--days|1." "--rate|-0"; do
	expect "health-sim-plain-decimal: ${hv%%|*} '${hv#*|}'" 2 "${hv%%|*} needs a number in [" "$HS" "${hv%%|*}" "${hv#*|}"
done
expect "health-sim-bad-value-is-echoed" 2 "--seeds needs a number in [1, 100], not 'abc' (decimal digits, e.g. 1)" \
	"$HS" --seeds abc
expect "health-sim-range-without-exponent" 2 "--flaky needs a number in [0, 1]" "$HS" --flaky
expect "health-sim-bad-gpu-repair" 2 "--gpu-repair needs a duration from 1 s to 365 days" "$HS" --gpu-repair 0
expect "health-sim-fraction-refused" 2 "--seeds needs a whole number in [1, 100], not 1.5" "$HS" --seeds 1.5
expect "health-sim-unwritable-out" 1 "fairway-health-sim: error: --out $HS_TMP/no/such/dir/r.md: cannot write: No such file or directory" \
	"$HS" --seeds 1 --out "$HS_TMP/no/such/dir/r.md"
# a traces directory the user names must hold cluster03.csv (exit 1, before
# any replay); only the default path may be missing (the run is skipped)
expect "health-sim-traces-missing" 1 "fairway-health-sim: error: --traces $HS_TMP/none: No such file or directory; give the directory that holds microsoft-itp/cluster03.csv, or pass --no-cluster03" \
	"$HS" --seeds 1 --traces "$HS_TMP/none"
expect "health-sim-traces-without-cluster03" 1 "--traces $HS_TMP: cannot read $HS_TMP/microsoft-itp/cluster03.csv: No such file or directory" \
	"$HS" --seeds 1 --traces "$HS_TMP"
expect "health-sim-traces-env-missing" 1 "FAIRWAY_TRACES=$HS_TMP/none: No such file or directory" \
	env FAIRWAY_TRACES="$HS_TMP/none" "$HS" --seeds 1
expect "health-sim-traces-missing-no-cluster03" 0 "llm-fleet seed 1" \
	"$HS" "${HS_TINY[@]}" --traces "$HS_TMP/none" --out "$HS_TMP/nc.md"
# --out - is stdout (before: a file named '-' in the working directory)
hs_abs=$(cd "$(dirname "$HS")" && pwd)/fairway-health-sim
hs_dash=$(cd "$HS_TMP" && "$hs_abs" "${HS_TINY[@]}" --out - 2>/dev/null)
if grep -q "^## LLM fleet: acceptance" <<<"$hs_dash" && [ ! -e "$HS_TMP/-" ]; then
	ok "health-sim-out-dash-is-stdout"
else
	bad "health-sim-out-dash-is-stdout: $(ls "$HS_TMP")"
fi
echo old >"$HS_TMP/r.md"
expect "health-sim-tiny-run" 0 "llm-fleet seed 1" "$HS" --seeds 1 --holdout 1 --no-sensitivity \
	--no-cluster03 --days 2 --nodes 16 --out "$HS_TMP/r.md"
if grep -q "^## LLM fleet: acceptance" "$HS_TMP/r.md" && grep -q "^## LLM fleet: seeds 2..2" "$HS_TMP/r.md" &&
	[ -z "$(ls -A "$HS_TMP" | grep '^\.r\.md\.')" ]; then
	ok "health-sim-document-whole"
else
	bad "health-sim-document-whole: $(head -c 200 "$HS_TMP/r.md"); $(ls "$HS_TMP")"
fi
# Every setting of the failure and health models reaches the run, and the
# document's setup says which were used (in units that fit them).
"$HS" --seeds 1 --holdout 0 --no-sensitivity --no-cluster03 --days 2 --nodes 16 --load 0.5 --flaky 0.1 \
	--repair 2h --history 30 --restart 120 --probation 1h30m --flap-window 1d --flap-hold 3600s \
	--flap-threshold 1 --lemon-window=10d --lemon-threshold 5 --lemon-gang 32 --out "$HS_TMP/set.md" >/dev/null 2>&1
set_ok=1
for want in "at 50% offered load" "10% of nodes flaky at 10x, repair 2.0 h" "30 days of history" "costs 120 s on top" \
	"with these settings, not its defaults (probation 90 min after a" "1 failure within 1 day holds a node suspect for 1 h" \
	"5 incidents within" "10 days make a node a lemon" "jobs of 32+ GPUs"; do
	tr '\n' ' ' <"$HS_TMP/set.md" | tr -s ' ' | grep -qF -- "$want" || { set_ok=0; echo "  missing: $want"; }
done
[ $set_ok = 1 ] && ok "health-sim-settings-reach-the-run" || bad "health-sim-settings-reach-the-run"
# --lemon-threshold 0 turns lemons off (health.h): the setup says so, and
# names no incident count that would make a lemon
"$HS" "${HS_TINY[@]}" --lemon-threshold 0 --out "$HS_TMP/nolemon.md" >/dev/null 2>&1
if tr '\n' ' ' <"$HS_TMP/nolemon.md" | tr -s ' ' | grep -qF "lemons off (--lemon-threshold 0: no node is ever a lemon)" &&
	! grep -q "0 incidents" "$HS_TMP/nolemon.md"; then
	ok "health-sim-lemon-threshold-0-says-off"
else
	bad "health-sim-lemon-threshold-0-says-off: $(grep -i -m2 lemon "$HS_TMP/nolemon.md")"
fi
# "Reading the numbers" is formatted from the run: in a reduced run it points
# at no section the run left out, and its figures are the tables' own
"$HS" --seeds 2 --holdout 0 --no-cluster03 --no-sensitivity --days 1 --nodes 16 --out "$HS_TMP/reduced.md" >/dev/null 2>&1
notes=$(sed -n '/^## Reading the numbers/,$p' "$HS_TMP/reduced.md")
if [ -n "$notes" ] && ! grep -qE "held-out section|held-out seeds'|sensitivity table|silent-fault table|cluster03" <<<"$notes"; then
	ok "health-sim-notes-name-only-sections-run"
else
	bad "health-sim-notes-name-only-sections-run: $(grep -E -m3 "held-out section|held-out seeds'|sensitivity table|silent-fault|cluster03" <<<"$notes")"
fi
"$HS" --seeds 2 --holdout 2 --days 2 --nodes 48 --rate 30 --no-cluster03 --out "$HS_TMP/notes.md" >/dev/null 2>&1
lost_col() { grep -F "| $1 |" "$HS_TMP/notes.md" | sed -n "${2}p" | awk -F'|' -v c="$3" '{ gsub(/ /, "", $c); print $c }'; }
acc=$(lost_col "GPU-hours lost to failures" 1 5)
held=$(lost_col "GPU-hours lost to failures" 2 5)
two=$(lost_col "lemons at 2 incidents in 120 days" 1 8)
notes=$(sed -n '/^## Reading the numbers/,$p' "$HS_TMP/notes.md" | tr '\n' ' ' | tr -s ' ')
if [ -n "$acc" ] && [ -n "$held" ] && [ -n "$two" ] && grep -qF "acceptance seeds' $acc" <<<"$notes" &&
	grep -qF "2 held-out seeds' $held" <<<"$notes" && grep -qF "rule at 2 incidents ($two lost" <<<"$notes"; then
	ok "health-sim-notes-quote-the-tables"
else
	bad "health-sim-notes-quote-the-tables: acceptance $acc, held-out $held, 2 incidents $two: $notes"
fi
# The cluster03 no-harm run (the other health tests skip it): both
# placements replay the whole trace at 21 x 8 with the same failures
C03=${FAIRWAY_TRACES:-../shared/traces}/microsoft-itp/cluster03.csv
if [ -f "$C03" ]; then
	"$HS" --seeds 1 --days 1 --nodes 16 --holdout 0 --no-sensitivity --out "$HS_TMP/c03.md" >/dev/null 2>&1
	jobs=$(python3 -c 'import csv,sys; print(sum(1 for _ in csv.reader(open(sys.argv[1]))) - 1)' "$C03")
	if grep -q '^## cluster03 (21 x 8): no harm' "$HS_TMP/c03.md" &&
		grep -qE "^\| 1 \| blind \| $jobs \| [0-9]+ \|.*\| $jobs \|" "$HS_TMP/c03.md" &&
		grep -qE "^\| 1 \| aware \| $jobs \| [0-9]+ \|.*\| $jobs \|" "$HS_TMP/c03.md" &&
		grep -qE '^\| occupancy \| [0-9.]+% \| [0-9.]+% \|' "$HS_TMP/c03.md"; then
		ok "health-sim-cluster03-no-harm-run"
	else
		bad "health-sim-cluster03-no-harm-run: $(sed -n '/cluster03/,+12p' "$HS_TMP/c03.md" | head -14)"
	fi
else
	echo "SKIP health-sim-cluster03-no-harm-run: $C03 not found (set FAIRWAY_TRACES)"
fi
# --out through a symlink replaces the link's target (the link stays a link,
# also when it dangles or is relative to another directory); a FIFO is
# written through, never replaced.  Only files in $HS_TMP, never a device.
HS_ARGS=(--seeds 1 --holdout 0 --no-sensitivity --no-cluster03 --days 1 --nodes 16)
echo keep >"$HS_TMP/target.md"
ln -s target.md "$HS_TMP/link.md"
mkdir "$HS_TMP/sub"
ln -s ../dangling.md "$HS_TMP/sub/link.md"
expect "health-sim-out-symlink" 0 "llm-fleet seed 1" "$HS" "${HS_ARGS[@]}" --out "$HS_TMP/link.md"
expect "health-sim-out-dangling-symlink" 0 "llm-fleet seed 1" "$HS" "${HS_ARGS[@]}" --out "$HS_TMP/sub/link.md"
if [ -L "$HS_TMP/link.md" ] && [ -L "$HS_TMP/sub/link.md" ] &&
	grep -q "^## LLM fleet: acceptance" "$HS_TMP/target.md" &&
	grep -q "^## LLM fleet: acceptance" "$HS_TMP/dangling.md" &&
	[ ! -e "$HS_TMP/target.md.tmp" ] && [ ! -e "$HS_TMP/link.md.tmp" ]; then
	ok "health-sim-out-symlink-keeps-the-link"
else
	bad "health-sim-out-symlink-keeps-the-link: $(ls -l "$HS_TMP" "$HS_TMP/sub")"
fi
mkfifo "$HS_TMP/fifo.md"
timeout 20 cat "$HS_TMP/fifo.md" >"$HS_TMP/from-fifo.md" &  # bounded: a replaced FIFO never gets a writer
HS_CAT=$!
expect "health-sim-out-fifo" 0 "llm-fleet seed 1" "$HS" "${HS_ARGS[@]}" --out "$HS_TMP/fifo.md"
wait "$HS_CAT" 2>/dev/null
if [ -p "$HS_TMP/fifo.md" ] && grep -q "^## LLM fleet: acceptance" "$HS_TMP/from-fifo.md" &&
	[ ! -e "$HS_TMP/fifo.md.tmp" ]; then
	ok "health-sim-out-fifo-written-through"
else
	bad "health-sim-out-fifo-written-through: $(ls -l "$HS_TMP")"
fi
# a fleet too small for jobs >= 256 GPUs: every ETTR mean and change is n/a,
# --out /dev/stdout through a pipe is written through (it tried a
# temporary file named after the pipe); a seed where no job finished has
# n/a as its mean JCT, not nan
out=$("$HS" --seeds 1 --days 1 --nodes 8 --holdout 0 --no-cluster03 --no-sensitivity --out /dev/stdout 2>/dev/null | cat)
if grep -q '^# Health-aware placement' <<<"$out" && ! grep -qiw "nan" <<<"$out"; then
	ok "health-sim-out-dev-stdout-piped-no-nan"
else
	bad "health-sim-out-dev-stdout-piped-no-nan: $(grep -iw -m3 nan <<<"$out" | head -3)"
fi
# never nan (all tables: acceptance, no-agent line, holdout, sensitivity)
out=$("$HS" --seeds 1 --days 3 --nodes 32 --holdout 1 --silent 0.5 --no-cluster03 2>/dev/null)
if grep -qF "| mean ETTR of jobs >= 256 GPUs | n/a | n/a | n/a | >= +5 pp | n/a (no such job) |" <<<"$out" &&
	grep -qF "No job of 256 GPUs or more ran" <<<"$out" && ! grep -qiw "nan" <<<"$out"; then
	ok "health-sim-no-big-jobs-prints-n/a"
else
	bad "health-sim-no-big-jobs-prints-n/a: $(grep -iw -m3 "nan" <<<"$out")"
fi
# silent faults: the setup says so, and the blind runs crash-loop
expect "health-sim-silent-run" 0 "llm-fleet seed 1" "$HS" --seeds 1 --holdout 0 --no-sensitivity \
	--no-cluster03 --days 2 --nodes 16 --rate 300 --silent 1 --detect 3600 --out "$HS_TMP/s.md"
if grep -q "^- Silent faults: 100% of the failures leave the node Ready" "$HS_TMP/s.md" &&
	grep -q "^Health-aware without the agent" "$HS_TMP/s.md"; then
	ok "health-sim-silent-setup"
else
	bad "health-sim-silent-setup: $(grep -i silent "$HS_TMP/s.md" | head -3)"
fi
# GPU failures: the setup says so, and the two runs differ
expect "health-sim-gpu-run" 0 "llm-fleet seed 1" "$HS" --seeds 1 --holdout 0 --no-sensitivity \
	--no-cluster03 --days 2 --nodes 16 --rate 300 --gpu-faults 1 --out "$HS_TMP/g.md"
if grep -q "^- GPU failures: 100% of the failures strike one GPU" "$HS_TMP/g.md"; then
	ok "health-sim-gpu-setup"
else
	bad "health-sim-gpu-setup: $(grep -i gpu "$HS_TMP/g.md" | head -3)"
fi
# NVLink flaps: bad values refused; a run whose setup says flaps are in
expect "health-sim-bad-flaps" 2 "--flaps needs a number in [0, " "$HS" --flaps -1
expect "health-sim-bad-flap-down" 2 "--flap-down needs a duration from 1 s to 1 day in whole seconds, not '0'" "$HS" --flap-down 0
expect "health-sim-flap-down-joined-duration" 2 "--flap-down needs a duration from 1 s to 1 day in whole seconds, not '25h'" "$HS" --flap-down=25h
# (values joined with '=' here: the same run, as a user may type it)
expect "health-sim-flap-run" 0 "llm-fleet seed 1" "$HS" --seeds=1 --holdout 0 --no-sensitivity \
	--no-cluster03 --days 2 --nodes 16 --flaps=300 --flap-down=300 --out="$HS_TMP/f.md"
if grep -q "^- NVLink flaps: 300.00 per 1,000 node-days on top of the failures" "$HS_TMP/f.md" &&
	grep -q "links down 5 min" "$HS_TMP/f.md"; then
	ok "health-sim-flap-setup"
else
	bad "health-sim-flap-setup: $(grep -i flap "$HS_TMP/f.md" | head -3)"
fi
expect "health-sim-equals-value-checked" 2 "--seeds needs a number in [1, 100]" "$HS" --seeds=0
expect "health-sim-equals-empty" 2 "--out= has an empty value" "$HS" --out=
expect "health-sim-bare-flag-with-value" 2 "--no-sensitivity takes no value" "$HS" --no-sensitivity=yes
rm -rf "$HS_TMP"

# fairway-agent and fairway-slurm take --flag=value too; bare flags refuse one
AG=$B/agent/fairway-agent
if [ -x "$AG" ]; then
	expect "agent-equals-value" 0 '"node":"n-eq"' env FAKE_NVML_GPUS=1 "$AG" --nvml="$B/agent/libfake_nvml.so" --node=n-eq --wait=0
	# an --nvml library that cannot be loaded is named, with dlopen's reason and what to do
	expect "agent-nvml-typo" 2 "--nvml /typo/libnvidia-ml.so.1: dlopen: /typo/libnvidia-ml.so.1: cannot open shared object file" \
		"$AG" --nvml /typo/libnvidia-ml.so.1
	expect "agent-nvml-not-a-library" 2 "or drop --nvml to load it from the library path" "$AG" --nvml /etc/passwd --watch
	expect "agent-equals-range" 2 "--interval needs a whole number from 1 to 86400" "$AG" --watch --interval=0
	# an empty or blank-led number is no number (strtol read "" as 0)
	expect "agent-empty-number-refused" 2 "--nvlinks needs a whole number from 0 to" "$AG" --nvlinks ""
	expect "agent-blank-number-refused" 2 "--nvlinks needs a whole number from 0 to" "$AG" --nvlinks " 3"
	expect "agent-equals-empty" 2 "--server= has an empty value" "$AG" --server=
	expect "agent-bare-flag-with-value" 2 "--watch takes no value" "$AG" --watch=1
	# its help's URL is the daemon's default address (fairway serve --listen)
	expect "agent-help-names-the-daemon-port" 0 "http://127.0.0.1:8642" "$AG" --help
	# a flag that does nothing in this mode is refused, naming the flag it goes with
	expect "agent-count-without-watch" 2 "--count goes with --watch" "$AG" --count 3 --nvml /nonexistent
	expect "agent-interval-without-watch" 2 "--interval goes with --watch" "$AG" --interval 5 --nvml /nonexistent
	for f in --pretty --watch "--node n1" "--nvml /x" "--wait 0" "--nvlinks 4"; do
		# shellcheck disable=SC2086 # the flag and its value are two words
		expect "agent-assess-refuses-${f%% *}" 2 "${f%% *} goes with a report taken on this node, not with --assess" \
			"$AG" --assess /nonexistent.json $f
	done
	# --assess with --server is refused as that, token or none: the token is not what is wrong
	expect "agent-assess-server-no-token" 2 "--assess prints a verdict; it does not send one (drop --server)" \
		env -u FAIRWAY_TOKEN_FILE "$AG" --assess /nonexistent.json --server http://127.0.0.1:1
	expect "agent-assess-takes-damping" 1 "--assess /nonexistent.json: cannot read: No such file or directory" \
		"$AG" --assess /nonexistent.json --probation 60
	# a report with impossible values is refused, naming the field with the GPU's place in the list
	AC=tests/fuzz/corpus/agent
	expect "agent-assess-negative-ecc" 1 "$AC/ecc_negative.json: gpus[3].ecc_uncorrectable.volatile: must be >= 0" \
		"$AG" --assess "$AC/ecc_negative.json"
	expect "agent-assess-index-twice" 1 "gpus[1].index: GPU 0 is listed twice (also gpus[0]); list each GPU once" \
		"$AG" --assess "$AC/index_twice.json"
	expect "agent-assess-index-beyond" 1 "gpus[1].index: must be a GPU index from 0 to 1 (the report lists 2 GPUs)" \
		"$AG" --assess "$AC/index_beyond.json"
	expect "agent-assess-negative-time" 1 "time_negative.json: time: must be >= 0" "$AG" --assess "$AC/time_negative.json"
	# what cannot be read is named with its flag and why, not as line -1 or "empty"
	AG_TMP=$(mktemp -d)
	expect "agent-assess-directory" 1 "--assess $AG_TMP: cannot read: Is a directory" "$AG" --assess "$AG_TMP"
	expect "agent-token-file-directory" 2 "cannot read the token file $AG_TMP: it is a directory" \
		"$AG" --server http://127.0.0.1:1 --token-file "$AG_TMP"
	expect "agent-token-env-empty-is-unset" 2 "--server needs --token-file FILE (the daemon's bearer token) or FAIRWAY_TOKEN_FILE" \
		env FAIRWAY_TOKEN_FILE= "$AG" --server http://127.0.0.1:1
	# --watch --count 2 against no server: a retry is announced only when one follows
	if [ -f "$B/agent/libfake_nvml.so" ]; then
		echo token >"$AG_TMP/tok"
		out=$(timeout 20 "$AG" --nvml "$B/agent/libfake_nvml.so" --node n1 --watch --interval 1 --count 2 --wait 0 \
			--server http://127.0.0.1:1 --token-file "$AG_TMP/tok" 2>&1 >/dev/null)
		if [ "$(grep -c 'not sent' <<<"$out")" = 2 ] && [ "$(grep -c 'next try in 1s$' <<<"$out")" = 1 ] &&
			[ "$(grep -Ec '^fairway-agent: report of 20[0-9]{2}-[01][0-9]-[0-3][0-9]T[0-9:]{8}Z not sent' <<<"$out")" = 2 ] &&
			tail -1 <<<"$out" | grep -qF "that was the last report"; then
			ok "agent-watch-no-retry-after-the-last"
		else
			bad "agent-watch-no-retry-after-the-last: $out"
		fi
	fi
	rm -rf "$AG_TMP"
	expect "agent-help-says-what-goes-with-assess" 0 "only --probation and" "$AG" --help
fi
# The client against what is not the API (tests/fuzz/fuzz_client.c
# holds it to this on any answers): a proxy's HTML page, a daemon of
# another version, an escape sequence in a name.  A stand-in server on a
# free port; stopped by its PID.
NOT_API=$(mktemp -d)
python3 -c '
import http.server, json, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        p = self.path.split("?")[0]
        body = {"/v1/queues": json.dumps({"items": []}),
                "/v1/nodes": json.dumps({"nodes": [{"name": "n\u001b[2J1", "gpus": 8}], "figures": {}})}.get(
            p, "<html><head><title>502 Bad Gateway</title></head></html>")
        self.send_response(200)
        self.end_headers()
        self.wfile.write(body.encode())
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
open(sys.argv[1] + "/port", "w").write(str(s.server_port))
s.serve_forever()
' "$NOT_API" &
NOT_API_PID=$!
for _ in $(seq 50); do [ -s "$NOT_API/port" ] && break; sleep 0.1; done
NOT_API_URL=http://127.0.0.1:$(cat "$NOT_API/port" 2>/dev/null)
expect "client-html-answer-is-an-error" 1 \
	"answered 200 with a body that is not JSON: '<html><head><title>502 Bad Gateway</title></head></html>' (is --server the URL of \`fairway serve\`" \
	"$FW" jobs list --server "$NOT_API_URL"
expect "client-html-answer-json-is-an-error" 1 "answered 200 with a body that is not JSON" \
	"$FW" stats --json --server "$NOT_API_URL"
expect "client-other-version-no-empty-table" 1 "answered without the list \"queues\" (no such member): a daemon of another version?" \
	"$FW" queues --server "$NOT_API_URL"
if out=$("$FW" nodes --server "$NOT_API_URL" 2>&1) && grep -qF 'n?[2J1' <<<"$out" && ! grep -q $'\x1b' <<<"$out"; then
	ok "client-control-bytes-masked"
else
	bad "client-control-bytes-masked"; echo "$out" | head -3
fi
kill "$NOT_API_PID" 2>/dev/null
wait "$NOT_API_PID" 2>/dev/null
printf '%0300d\n' 0 >"$NOT_API/long.tok"
expect "client-token-too-long-refused-not-cut" 2 "the token is longer than the 255 bytes a token may have" \
	"$FW" queues delete q --server http://127.0.0.1:1 --token-file "$NOT_API/long.tok"
printf 'abc\001def\n' >"$NOT_API/ctl.tok"
expect "client-token-control-byte-refused" 2 "the token's byte 3 is 0x01, not printable ASCII" \
	"$FW" queues delete q --server http://127.0.0.1:1 --token-file "$NOT_API/ctl.tok"
rm -rf "$NOT_API"
SL=$B/connectors/slurm/fairway-slurm
if [ -x "$SL" ]; then
	expect "slurm-equals-config" 2 "/nonexistent.yaml: cannot open the config" "$SL" run --config=/nonexistent.yaml
	expect "slurm-bad-interval" 2 "--interval needs a number of seconds" "$SL" run --config x --interval=abc
	expect "slurm-bad-cycles" 2 "--cycles needs a whole number from 1" "$SL" run --config x --cycles 2.5
	expect "slurm-zero-cycles" 2 "--cycles needs a whole number from 1" "$SL" run --config x --cycles=0
	expect "slurm-bare-flag-with-value" 2 "--quiet takes no value" "$SL" run --quiet=1
	expect "slurm-bad-usage" 2 "--usage takes slurm (Slurm's decayed usage, the default) or config" "$SL" run --config x --usage=sshare
	expect "slurm-help-usage" 0 "--usage config:" "$SL" --help
	# a bad option names the tool's own flag (--opt; fairway serve's is
	# --backend-opt); options are parsed before Slurm is contacted, so no
	# slurm.conf is needed
	expect "slurm-opt-error-names-opt" 2 "fairway-slurm: error: --opt: field comments: comments=0: expected a whole number" \
		env -u SLURM_CONF "$SL" run --config examples/cluster.yaml --opt comments=0
	expect "slurm-opt-unknown-key-names-opt" 2 "fairway-slurm: error: --opt: field colour: unknown option 'colour'" \
		env -u SLURM_CONF "$SL" ping --opt colour=red
	# --opt given twice: both lists count (the second used to replace the
	# first, so a bad key before a good one went unread)
	expect "slurm-opt-twice-both-read" 2 "fairway-slurm: error: --opt: field colour: unknown option 'colour'" \
		env -u SLURM_CONF "$SL" ping --opt colour=red --opt partitions=gpu
	# the dry run, and the words and flags each command takes (a word or
	# flag a command did not take was ignored)
	expect "slurm-help-plan-dry-run" 0 "plan is a dry run" "$SL" --help
	expect "slurm-run-extra-word" 2 "run takes no NODE or other word" "$SL" run --config x gpu001
	expect "slurm-plan-extra-word" 2 "plan takes no NODE or other word" "$SL" plan --config x now
	expect "slurm-resume-no-node" 2 "resume takes a NODE: fairway-slurm resume gpu001 (got 0 words after resume)" \
		"$SL" resume
	expect "slurm-drain-no-reason" 2 "drain takes a NODE and a REASON" "$SL" drain gpu001
	expect "slurm-drain-three-words" 2 "(got 3 words after drain)" "$SL" drain gpu001 bad fan
	expect "slurm-unknown-command-hint" 2 "unknown command 'plna' (did you mean 'plan'?)" "$SL" plna --config x
	expect "slurm-json-is-plans" 2 "--json is not run's: run takes --config, --policy, --usage, --interval" \
		"$SL" run --config x --json
	expect "slurm-plan-no-interval" 2 "--interval is not plan's: plan takes --config, --policy, --usage, --json, --opt" \
		"$SL" plan --config x --interval 2
	expect "slurm-ping-no-config" 2 "--config is not ping's: ping takes --opt" "$SL" ping --config x
	expect "slurm-plan-json-bare" 2 "--json takes no value" "$SL" plan --config x --json=1
	expect "slurm-unknown-policy-lists" 2 "unknown policy 'fairwya' (did you mean 'fairway'?) (policies: fairway, fifo" \
		"$SL" plan --config examples/cluster.yaml --policy fairwya
	expect "slurm-no-conf-names-opt" 2 "no Slurm configuration: set SLURM_CONF=/etc/slurm/slurm.conf (its path) or pass --opt conf=PATH" \
		env -u SLURM_CONF "$SL" ping
	# a YAML's nodes: and jobs: are Slurm's under fairway-slurm: said, not
	# dropped unsaid (the note comes before Slurm is contacted)
	expect "slurm-config-nodes-jobs-noted" 2 "examples/cluster.yaml: its nodes: (18) and jobs: (" \
		env -u SLURM_CONF "$SL" plan --config examples/cluster.yaml
	expect "slurm-plan-needs-config" 2 "plan needs --config FILE: fairway's YAML" env -u SLURM_CONF "$SL" plan
	SLT=$(mktemp -d)
	expect "serve-slurm-backend-opt-error-names-backend-opt" 2 \
		"backend slurm: --backend-opt: field comments: comments=0: expected a whole number" \
		env -u SLURM_CONF timeout 20 "$FW" serve --backend slurm --state "$SLT/st" --listen 127.0.0.1:0 \
		--backend-opt comments=0
	rm -rf "$SLT"
fi
# the scripts the docs name: --help before anything is installed or built,
# and a bad argument refused, not passed on (fuzz.sh's SECONDS to libFuzzer,
# gpu_check.sh's OUTDIR to mkdir)
expect "script-fuzz-help" 0 "scripts/fuzz.sh [SECONDS] — run every libFuzzer target" bash scripts/fuzz.sh --help
expect "script-fuzz-bad-seconds" 2 "scripts/fuzz.sh: SECONDS '1m' is not a whole number of seconds; e.g. scripts/fuzz.sh 300" \
	bash scripts/fuzz.sh 1m
expect "script-results-help" 0 "usage: results.py [-h] [--fairway FAIRWAY] [--out OUT]" bash scripts/results.sh --help
expect "script-gpu-check-help" 0 "scripts/gpu_check.sh OUTDIR — fairway-agent against the real NVML" bash scripts/gpu_check.sh --help
expect "script-gpu-check-unknown-option" 2 "scripts/gpu_check.sh: unknown option '--out'; usage: scripts/gpu_check.sh OUTDIR" \
	bash scripts/gpu_check.sh --out
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
