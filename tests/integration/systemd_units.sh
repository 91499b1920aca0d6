#!/usr/bin/env bash
# tests/integration/systemd_units.sh BUILD_DIR — the systemd units in
# contrib/systemd as an operator installs them: `systemd-analyze verify`
# finds no error or unknown key (with the build's binaries in place of
# /usr/local/bin), and each unit's ExecStart, expanded the way systemd
# expands it (${VAR} one word, $VAR split on spaces), runs: fairway serve
# answers on a free port with its store in the state directory, the
# agent's command line (fake NVML, one report) reaches it, and SIGTERM
# stops the daemon with exit 0.  Stops exactly the PIDs it started.
set -uo pipefail
B=${1:-build-asan}
source "$(dirname "$0")/serve_lib.sh" "$B"
AGENT=$B/agent/fairway-agent
FAKE=$B/agent/libfake_nvml.so
U=contrib/systemd

# 1. systemd's own reading of the units
if command -v systemd-analyze >/dev/null; then
	for u in fairway fairway-agent; do
		sed -e "s#/usr/local/bin/fairway-agent#$(realpath "$AGENT")#" -e "s#/usr/local/bin/fairway #$(realpath "$FW") #" \
			"$U/$u.service" >"$T/$u.service"
		out=$(systemd-analyze verify "$T/$u.service" 2>&1)
		rc=$?
		if [ "$rc" -eq 0 ] && [ -z "$out" ]; then ok "verify_$u"; else bad "verify_$u" "$(head -3 <<<"$out")"; fi
	done
else
	echo "SKIP verify: no systemd-analyze on this machine (not counted)"
fi

# execstart UNIT: the ExecStart words, expanded from the environment as
# systemd would, one per line
execstart() {
	python3 - "$U/$1.service" <<'PY'
import os, re, shlex, sys
line = next(l for l in open(sys.argv[1]) if l.startswith("ExecStart="))[len("ExecStart="):].strip()
out = []
for w in shlex.split(line):
    m = re.fullmatch(r"\$([A-Za-z_][A-Za-z0-9_]*)", w)
    if m:  # $VAR: split into words, nothing when unset
        out += os.environ.get(m.group(1), "").split()
        continue
    out.append(re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", lambda g: os.environ.get(g.group(1), ""), w))
print("\n".join(out))
PY
}

# 2. fairway.service's command line: the paths an install would have
# become this test's (the binary, the example fleet, a state directory,
# a free port); the daemon must answer and keep its store there
PORT=$(free_port)
mkdir -p "$T/state" && chmod 700 "$T/state"
mapfile -t cmd < <(STATE_DIRECTORY=$T/state FAIRWAY_OPTS="--period 0.2s" execstart fairway)
for i in "${!cmd[@]}"; do
	case ${cmd[$i]} in
	/usr/local/bin/fairway) cmd[$i]=$FW ;;
	/etc/fairway/fairway.yaml) cmd[$i]=examples/cluster.yaml ;;
	127.0.0.1:8642) cmd[$i]=127.0.0.1:$PORT ;;
	esac
done
check "serve_execstart_expands" [ "${cmd[1]}" = serve -a "${cmd[-2]}" = --period -a "${cmd[-1]}" = 0.2s ]
"${cmd[@]}" >"$T/daemon.log" 2>&1 &
DPID=$!
PIDS+=("$DPID")
up=0
for _ in $(seq 1 100); do
	curl -sf "http://127.0.0.1:$PORT/v1/health" >/dev/null 2>&1 && up=1 && break
	kill -0 "$DPID" 2>/dev/null || break
	sleep 0.1
done
if [ "$up" -eq 1 ]; then ok serve_unit_command_answers; else bad serve_unit_command_answers "$(tail -3 "$T/daemon.log")"; fi
check "serve_unit_store_in_state_dir" [ -f "$T/state/token" ]

# 3. fairway-agent.service's command line, pointed at that daemon: its
# agent token as systemd hands it over (LoadCredential), a fake NVML with a
# fatal XID on GPU 1, one report
mkdir -p "$T/cred" && cp "$T/state/agent-token" "$T/cred/token" && chmod 600 "$T/cred/token"
mapfile -t acmd < <(FAIRWAY_SERVER=http://127.0.0.1:$PORT CREDENTIALS_DIRECTORY=$T/cred \
	FAIRWAY_AGENT_OPTS="--node a100-0 --nvml $FAKE --count 1 --wait 0" execstart fairway-agent)
acmd[0]=$AGENT
FAKE_NVML_XID=1:79 timeout 60 "${acmd[@]}" >"$T/agent.out" 2>"$T/agent.err"
rc=$?
if [ "$rc" -eq 0 ]; then ok agent_unit_command_exit_0; else bad agent_unit_command_exit_0 "exit $rc: $(head -3 "$T/agent.err")"; fi
node_is "agent_unit_report_reached_daemon" a100-0 'j["badGpus"] == [1] and "GPU 1 XID 79" in j["healthReason"]'

# 4. systemctl stop: SIGTERM, exit 0
kill -TERM "$DPID"
rc=124
for _ in $(seq 1 100); do
	if ! kill -0 "$DPID" 2>/dev/null; then
		wait "$DPID"
		rc=$?
		break
	fi
	sleep 0.1
done
check "serve_sigterm_exit_0" [ "$rc" -eq 0 ]

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
