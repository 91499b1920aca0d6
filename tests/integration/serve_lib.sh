# tests/integration/serve_lib.sh — shared by the serve_*.sh tests (sourced,
# not run: it is not executable).  Starts `fairway serve` on 127.0.0.1 with
# a temporary state directory and stops exactly the PIDs it started.
FW=${FW:-$1/tools/fairway}
T=$(mktemp -d /tmp/fw-serve-test.XXXXXX)
PASS=0
FAIL=0
PIDS=()

ok() { PASS=$((PASS + 1)); echo "PASS $1"; }
bad() { FAIL=$((FAIL + 1)); echo "FAIL $1${2:+: $2}"; }
check() { # check NAME CONDITION-COMMAND...
	local name=$1
	shift
	if "$@"; then ok "$name"; else bad "$name"; fi
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# start_daemon STATE_DIR PORT [extra flags...]: waits until it answers.
start_daemon() {
	local dir=$1 port=$2
	shift 2
	"$FW" serve --state "$dir" --listen "127.0.0.1:$port" --period "${PERIOD:-0.2s}" "$@" \
		>>"$T/daemon.log" 2>&1 &
	DPID=$!
	PIDS+=("$DPID")
	for _ in $(seq 1 100); do
		curl -sf "http://127.0.0.1:$port/v1/health" >/dev/null 2>&1 && return 0
		kill -0 "$DPID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

stop_daemon() { # graceful: SIGTERM, wait
	kill -TERM "$DPID" 2>/dev/null
	wait "$DPID" 2>/dev/null
}

kill_daemon() { # a crash: SIGKILL, wait; kill's status (0: it was there)
	local rc=0
	kill -KILL "$DPID" 2>/dev/null || rc=$?
	wait "$DPID" 2>/dev/null
	return "$rc"
}

cleanup() {
	for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT

# req METHOD PATH [BODY]: sets CODE and BODY (authorised with $TOKEN when set)
req() {
	local m=$1 p=$2 b=${3-} out
	local args=(-s -o "$T/body" -w '%{http_code}' -X "$m" "http://127.0.0.1:$PORT$p")
	[ -n "${TOKEN-}" ] && args+=(-H "Authorization: Bearer $TOKEN")
	[ -n "$b" ] && args+=(-H 'Content-Type: application/json' --data-binary "$b")
	CODE=$(curl "${args[@]}")
	BODY=$(cat "$T/body")
}

# metric NAME: the value of the sample NAME (with its labels) on /metrics
metric() { curl -s "http://127.0.0.1:$PORT/metrics" | awk -v m="$1" '$1 == m {print $2}'; }

jfield() { # jfield EXPR: python expression over j (the last BODY)
	python3 -c "import json,sys; j=json.loads(sys.argv[1]); print($1)" "$BODY" 2>/dev/null
}

# becomes NAME PATH PYTHON-CONDITION: wait (up to 5 s) until GET PATH
# satisfies the condition over j; the last body stays in BODY.
becomes() {
	local name=$1 path=$2 cond=$3
	for _ in $(seq 1 50); do
		req GET "$path"
		[ "$CODE" = 200 ] && [ "$(jfield "bool($cond)")" = True ] && {
			ok "$name"
			return 0
		}
		sleep 0.1
	done
	bad "$name" "GET $path: $BODY"
	return 1
}

# node_is NAME NODE CONDITION, job_is NAME JOB CONDITION: becomes for
# /v1/nodes/NODE and /v1/jobs/JOB.
node_is() { becomes "$1" "/v1/nodes/$2" "$3"; }
job_is() { becomes "$1" "/v1/jobs/$2" "$3"; }

finish() {
	echo "$PASS passed, $FAIL failed"
	[ "$FAIL" -eq 0 ]
}
