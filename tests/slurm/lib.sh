# tests/slurm/lib.sh — shared by tests/integration/slurm_*.sh and
# bench/bench_slurm.sh: a lab cluster in a temp directory that is stopped
# on every exit path, the fairway-slurm driver in the background, PASS/FAIL
# bookkeeping and small squeue helpers.  Source it; it sets -u, not -e.
#
#   lab_up [NODES]        start a lab (tests/slurm/lab.sh) in $T/lab, or
#                         print "SKIP ..." and exit 0 when this machine cannot
#   fw_start [args...]    start fairway-slurm run in the background ($FWPID)
#   fw_stop               SIGTERM it and wait; fw_kill9 kills it with -9
#   serve_up N            start `fairway serve --backend slurm` on the lab
#                         ($SPID, killed on every exit path; its URL in
#                         $URL), nodes gpu001..N on one switch in its config;
#                         serve_down SIGTERMs it and waits
#   watch_bg CMD [args...] run a sampler in the background ($MONPID, killed
#                         on every exit path); watch_stop stops it
#   ok NAME / bad NAME WHY    record a PASS / FAIL line
#   on_node NAME JOB NODE check that a job runs (or ran) on NODE
#   finish                print "N passed, N failed" and exit accordingly
set -u
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
B=$(cd "${1:-$SRC/build}" 2>/dev/null && pwd || echo "${1:-$SRC/build}")
FWS=$B/connectors/slurm/fairway-slurm
LAB_SH=$SRC/tests/slurm/lab.sh
T=$(mktemp -d /tmp/fw-slurm-test.XXXXXX)
chmod 755 "$T" # munged wants every directory above its socket world-executable
PASSED=0 FAILED=0 SKIPPED=0 FWPID= MONPID= SPID=
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}

cleanup() {
	[ -n "$MONPID" ] && kill "$MONPID" 2>/dev/null
	[ -n "$FWPID" ] && kill -KILL "$FWPID" 2>/dev/null
	[ -n "$SPID" ] && kill -KILL "$SPID" 2>/dev/null
	[ -d "$T/lab" ] && "$LAB_SH" stop "$T/lab" >/dev/null 2>&1
	[ "${KEEP:-0}" = 1 ] || rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ok() { echo "PASS $1"; PASSED=$((PASSED + 1)); }
bad() { echo "FAIL $1: $2"; FAILED=$((FAILED + 1)); }
skip() { echo "SKIP $1: $2"; SKIPPED=$((SKIPPED + 1)); }
finish() {
	echo "$PASSED passed, $FAILED failed"
	[ "$FAILED" -eq 0 ]
	exit
}

lab_up() {
	local why
	if [ ! -x "$FWS" ]; then
		skip "${TEST_NAME:-slurm}" "fairway-slurm is not built in $B (libslurm-dev missing at configure time?)"
		finish
	fi
	if ! why=$("$LAB_SH" check); then
		skip "${TEST_NAME:-slurm}" "no Slurm lab on this machine: $why"
		finish
	fi
	NODES=${1:-16} "$LAB_SH" start "$T/lab" || { bad lab_start "see $T/lab/log"; KEEP=1; finish; }
	# shellcheck disable=SC1091
	. "$T/lab/env.sh"
}

fw_start() {
	"$FWS" run --config "${FW_CONFIG:-$SRC/tests/slurm/fairway.yaml}" --interval "${FW_INTERVAL:-0.5}" "$@" \
		>>"$T/fairway.log" 2>&1 &
	FWPID=$!
}
fw_stop() {
	[ -n "$FWPID" ] || return 0
	kill -TERM "$FWPID" 2>/dev/null
	wait "$FWPID" 2>/dev/null
	FWPID=
}
serve_up() {
	local n=$1 i
	{
		sed -n '/^scheduler/,$p' "$SRC/tests/slurm/fairway.yaml"
		echo "nodes:"
		for i in $(seq "$n"); do
			printf '  - {name: gpu%03d, gpus: 8, gpuModel: h100, cpu: 64, memory: 500Gi, topology: {switch: s1}}\n' "$i"
		done
	} >"$T/serve.yaml"
	"$B/tools/fairway" serve --backend slurm --backend-opt "conf=$SLURM_CONF" --backend-opt partitions=gpu \
		--config "$T/serve.yaml" --state "$T/state" --listen 127.0.0.1:0 --port-file "$T/port" --period 500ms \
		>>"$T/serve.log" 2>&1 &
	SPID=$!
	wait_until 20 'test -s "$T/port"' || bad serve_start "no port: $(tail -3 "$T/serve.log")"
	URL="http://127.0.0.1:$(cat "$T/port" 2>/dev/null)"
}
serve_down() {
	[ -n "$SPID" ] || return 0
	kill -TERM "$SPID" 2>/dev/null
	wait "$SPID" 2>/dev/null
	SPID=
}
fw_kill9() {
	kill -KILL "$FWPID" 2>/dev/null
	wait "$FWPID" 2>/dev/null
	FWPID=
}

watch_bg() {
	"$@" &
	MONPID=$!
}
watch_stop() {
	[ -n "$MONPID" ] || return 0
	kill "$MONPID" 2>/dev/null
	wait "$MONPID" 2>/dev/null
	MONPID=
}

# wait_until SECONDS 'SHELL CONDITION': evaluate it every 0.2 s
wait_until() {
	local end=$((SECONDS + $1))
	while ((SECONDS < end)); do eval "$2" && return 0; sleep 0.2; done
	return 1
}

# submit N ACCOUNT SECONDS [sbatch options...]: N one-GPU sleep jobs
submit() {
	local n=$1 acct=$2 secs=$3 i
	shift 3
	for ((i = 0; i < n; i++)); do
		sbatch -Q -A "$acct" --gres=gpu:1 -t 1 -o /dev/null "$@" --wrap "sleep $secs" || return 1
	done
}

# GPUs fairway has given ACCOUNT: running jobs plus released ones (priority
# > 0) that Slurm is about to run
gpus_of() {
	squeue -h -A "$1" -t R,PD,CG -o '%T %Q %b %D' |
		awk '$1 != "PENDING" || $2 > 0 { n = $3; sub(/.*:/, "", n); g += n * $4 } END { print g + 0 }'
}
# gone JOB: no longer in squeue (ended); running JOB: running now;
# started JOB: running, or already ran and ended
gone() { [ -z "$(squeue -h -j "$1" -o %i 2>/dev/null)" ]; }
running() { squeue -h -j "$1" -t R -o %i 2>/dev/null | grep -q .; }
started() { gone "$1" || running "$1"; }
# on_node NAME JOB NODE: the job runs (or ran) on NODE, within 20 s
on_node() {
	local n
	if ! wait_until 20 "started $2"; then
		bad "$1" "job $2 did not start: $(squeue -h -j "$2" -o '%T %Q %R %k')"
		return
	fi
	n=$(squeue -h -t all -j "$2" -o %N)
	if [ "$n" = "$3" ]; then ok "$1"; else bad "$1" "job $2 ran on '$n', not $3"; fi
}
pending_of() { squeue -h -A "$1" -t PD -o '%Q' | awk '$1 == 0' | wc -l; }
no_jobs() { [ -z "$(squeue -h -o %i | head -1)" ]; }
cancel_all() {
	scancel -u root 2>/dev/null
	wait_until 30 no_jobs
}
