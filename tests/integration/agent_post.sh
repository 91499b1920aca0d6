#!/usr/bin/env bash
# tests/integration/agent_post.sh BUILD_DIR — fairway-agent --server: the
# agent, reading the fake NVML (tests/fake_nvml), sends its reports to a
# real `fairway serve` (embedded default cluster, 127.0.0.1, temp state;
# tests/integration/serve_lib.sh starts and stops exactly its PID), and
# GET /v1/nodes/{name} shows what docs/health.md predicts: a transient XID
# leaves the node schedulable with a "suspect" reason and health "suspect"
# (big gangs avoid it), a fatal XID or ECC
# error masks that GPU, every GPU bad makes the node unhealthy (held), a
# clean report (heartbeat) clears the health record.  A wrong token is
# refused with the file named, a non-zero exit and no change; an unknown
# node, a --node that is not a name (not one URL path segment: "..", "a/b",
# 64 bytes; exit 2, nothing sent), a missing token file and bad flag
# combinations are clear errors; a --server with a trailing /v1 reaches
# the same daemon; no NVML sends nothing; a server that is down is exit 1 one-shot, and
# --watch keeps going.  Prints PASS/FAIL lines and "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/serve_lib.sh "$1"

B=$1
AGENT=$B/agent/fairway-agent
FAKE=$B/agent/libfake_nvml.so
S=$T/state
PORT=$(free_port)
URL=http://127.0.0.1:$PORT
unset FAIRWAY_TOKEN_FILE

if [ ! -x "$AGENT" ] || [ ! -f "$FAKE" ] || [ ! -x "$FW" ]; then
	bad "agent_post_build" "$AGENT, $FAKE or $FW not built"
	finish
	exit 1
fi
if ! start_daemon "$S" "$PORT"; then
	bad "daemon starts" "$(tail -5 "$T/daemon.log")"
	finish
	exit 1
fi
ok "daemon starts"

# A node of the embedded cluster, and its GPU count (the fake reports as many).
req GET /v1/nodes
NODE=$(jfield '[n["name"] for n in j["nodes"] if n["healthy"]][0]')
NG=$(jfield '[n["gpus"] for n in j["nodes"] if n["name"] == "'"$NODE"'"][0]')
check "GET /v1/nodes names a healthy node ($NODE, $NG GPUs)" [ -n "$NODE" -a "${NG:-0}" -gt 1 ]

agent() { # agent [ENV=V...] -- ARGS: the agent against the fake NVML; sets RC
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1") && shift; done
	shift
	env "${envs[@]}" FAKE_NVML_GPUS="$NG" timeout 30 "$AGENT" --nvml "$FAKE" "$@" >"$T/out" 2>"$T/err"
	RC=$?
}
has() { grep -qF -- "$2" "$1"; }
POST=(--node "$NODE" --server "$URL" --token-file "$S/token")

# 1. no NVML (the driver not loaded): says so, sends nothing, exit 0;
# an --nvml library that cannot be loaded: exit 2, nothing sent either
agent FAKE_NVML_INIT_FAIL=1 -- "${POST[@]}"
check "no NVML with --server: exit 0" [ "$RC" -eq 0 ]
check "no NVML with --server: says nothing was sent" has "$T/err" "nothing sent to $URL"
agent -- "${POST[@]}" --nvml "$T/nope/libnvidia-ml.so.1"
check "--nvml typo with --server: exit 2" [ "$RC" -eq 2 ]
check "--nvml typo with --server: names the path" has "$T/err" "--nvml $T/nope/libnvidia-ml.so.1: dlopen: $T/nope/libnvidia-ml.so.1: cannot open shared object file"
sleep 0.5
node_is "no NVML: the node's health is untouched" "$NODE" 'j["healthy"] and j["healthReason"] == "" and j["badGpus"] == []'

# 2. a transient XID (62) on GPU 1: suspect; the node stays schedulable with no bad GPU
agent FAKE_NVML_XID=1:62 -- "${POST[@]}"
check "transient XID posted: exit 0" [ "$RC" -eq 0 ]
check "the JSON report is still printed on stdout" has "$T/out" '"node_health":"suspect"'
node_is "transient XID: healthy, suspect reason naming XID 62, no bad GPU" "$NODE" \
	'j["healthy"] and j["schedulable"] and j["badGpus"] == [] and j["healthReason"].startswith("suspect:") and "GPU 1 XID 62" in j["healthReason"]'
node_is "transient XID: the scheduler plans with the node as suspect" "$NODE" 'j["health"] == "suspect"'

# 3. a wrong token: refused, the file named, non-zero exit, nothing changes
echo wrong-token-wrong-token >"$T/bad-token"
chmod 600 "$T/bad-token"
health() { jfield 'j["healthy"], j["healthReason"], j["badGpus"]'; }
before=$(health)
agent FAKE_NVML_XID="$(seq -s, -f '%g:79' 0 $((NG - 1)))" -- --node "$NODE" --server "$URL" --token-file "$T/bad-token"
check "wrong token: exit 1" [ "$RC" -eq 1 ]
check "wrong token: says 401 and names the token file" bash -c "grep -qF '401' '$T/err' && grep -qF '$T/bad-token' '$T/err'"
check "wrong token: points at the agent token (--agent-token-file), not the admin one" \
	grep -qF 'default STATE_DIR/agent-token' "$T/err"
sleep 0.6
req GET "/v1/nodes/$NODE"
check "wrong token: the node's health is unchanged ($before)" [ "$(health)" = "$before" ]

# 4. a fatal XID (79) on GPU 3: that GPU is masked, the node keeps the others
agent FAKE_NVML_XID=3:79 -- "${POST[@]}" --quiet
check "fatal XID posted: exit 0" [ "$RC" -eq 0 ]
check "--quiet prints nothing on stdout" [ ! -s "$T/out" ]
node_is "fatal XID: badGpus [3], node still healthy and schedulable" "$NODE" \
	'j["healthy"] and j["schedulable"] and j["badGpus"] == [3] and "GPU 3 XID 79" in j["healthReason"]'

# 5. uncorrectable ECC on GPU 2: that GPU is masked
agent FAKE_NVML_ECC=2:4 -- "${POST[@]}" --quiet
node_is "ECC uncorrectable: badGpus [2], reason names it" "$NODE" \
	'j["badGpus"] == [2] and "GPU 2 ECC uncorrectable 4" in j["healthReason"]'

# 6. every GPU fatal: the node is unhealthy and held
agent FAKE_NVML_XID="$(seq -s, -f '%g:79' 0 $((NG - 1)))" -- "${POST[@]}" --quiet
check "every GPU bad posted: exit 0" [ "$RC" -eq 0 ]
node_is "every GPU bad: healthy false, not schedulable, reason unhealthy" "$NODE" \
	'not j["healthy"] and not j["schedulable"] and j["healthReason"].startswith("unhealthy:") and len(j["badGpus"]) == '"$NG"

# 7. a clean report (the heartbeat) clears the health record, and the
# backend returns the node fairway drained (backend.h release())
agent -- "${POST[@]}" --quiet
node_is "clean report: healthy again, no bad GPU, \"$NG GPUs ok\"" "$NODE" \
	'j["healthy"] and j["badGpus"] == [] and j["healthReason"] == "healthy: '"$NG"' GPUs ok"'
node_is "clean report: the scheduler plans with the node as healthy" "$NODE" 'j["health"] == "healthy"'
node_is "clean report: the node fairway drained is schedulable again" "$NODE" 'j["schedulable"]'

# 8. NVLink link 2 of GPU 0 down: suspect, named
agent FAKE_NVML_NVLINK_DOWN=0:2 -- "${POST[@]}" --quiet
node_is "NVLink down: healthy, suspect reason naming the link" "$NODE" \
	'j["healthy"] and j["healthReason"].startswith("suspect:") and "GPU 0 NVLink 2 down" in j["healthReason"]'

# 8b. GPU 1 fallen off the bus: the daemon masks it and the reason says so
agent FAKE_NVML_HANDLE_ERR=1:15 -- "${POST[@]}" --quiet
node_is "lost GPU: badGpus [1], reason naming it" "$NODE" \
	'j["badGpus"] == [1] and "GPU 1 lost (GPU is lost)" in j["healthReason"]'

# 8b'. a failed row remap on GPU 2: masked, and the reason names it
agent FAKE_NVML_REMAP=2:2 -- "${POST[@]}" --quiet
node_is "row remap failed: badGpus [2], reason naming it" "$NODE" \
	'j["badGpus"] == [2] and "GPU 2 row remap failed" in j["healthReason"]'

# 8c. ... and reset: it answers again at the 2nd report, so the daemon
# gets it back on probation (suspect, no bad GPU)
agent FAKE_NVML_HANDLE_ERR=1:15 FAKE_NVML_FAULTS_UNTIL=1 -- "${POST[@]}" --quiet --watch --interval 1 --count 2 --wait 0
node_is "lost GPU reset: no bad GPU, suspect on probation" "$NODE" \
	'j["badGpus"] == [] and j["healthy"] and j["healthReason"] == "suspect: suspect GPUs 1"'

# 9. --watch: every report is sent (three, one per second)
agent FAKE_NVML_XID=1:62 -- "${POST[@]}" --watch --interval 1 --count 3 --wait 0
check "--watch --count 3 to the daemon: exit 0, three JSON lines" [ "$RC" -eq 0 -a "$(wc -l <"$T/out")" -eq 3 ]
node_is "--watch: the last report is the daemon's (suspect, probation)" "$NODE" \
	'j["healthy"] and j["healthReason"] == "suspect: suspect GPUs 1"'

# 9b. --server with a trailing /v1 or /v1/ (as `fairway --server` takes
# it) reaches the same daemon: it once posted to /v1/v1/nodes/..., a 404
link=1
for u in "$URL/v1" "$URL/v1/"; do
	agent FAKE_NVML_NVLINK_DOWN=0:$link -- --node "$NODE" --server "$u" --token-file "$S/token" --quiet
	check "--server $u: exit 0" [ "$RC" -eq 0 ]
	node_is "--server $u: the daemon has the report (GPU 0 NVLink $link down)" "$NODE" \
		'"GPU 0 NVLink '"$link"' down" in j["healthReason"]'
	link=$((link + 2))
done

# 10. usage and configuration errors
agent -- --node ghost --server "$URL" --token-file "$S/token"
check "unknown node: exit 1" [ "$RC" -eq 1 ]
check "unknown node: the daemon's 404 is echoed with what to do" \
	bash -c "grep -qF 'no node named \"ghost\"' '$T/err' && grep -qF -- '--node NAME' '$T/err'"
# a node name is exactly one path segment: what the daemon would refuse as
# a name is refused before anything is sent ("--node .." went to
# /v1/health, a 64-byte name was cut to 63), and a dotted name reaches
# its own route whole
for n in .. . a/b "a b" "$(printf 'n%.0s' $(seq 64))"; do
	agent FAKE_NVML_XID=1:62 -- --node "$n" --server "$URL" --token-file "$S/token"
	check "--node '${n:0:12}': exit 2 before any request, naming --node" \
		bash -c "[ $RC -eq 2 ] && grep -qF -- '--node \"${n:0:40}' '$T/err' && ! grep -q 'refused\|answered\|reach' '$T/err'"
done
agent -- --node .. --server "$URL" --token-file "$S/token"
check "--node ..: says why" grep -qF 'must not be ".." (a name is one URL path segment)' "$T/err"
agent -- --node gpu.x-1 --server "$URL" --token-file "$S/token"
check "a dotted --node reaches its own route: the daemon's 404 names it" \
	bash -c "[ $RC -eq 1 ] && grep -qF 'no node named \"gpu.x-1\"' '$T/err'"
agent -- --node "$NODE" --server "$URL" --token-file "$T/missing-token"
check "missing token file: exit 2, the file named" bash -c "[ $RC -eq 2 ] && grep -qF '$T/missing-token' '$T/err'"
check "missing token file: points at the agent token" grep -qF '`fairway serve --agent-token-file`, default STATE_DIR/agent-token' "$T/err"
: >"$T/empty-token"
agent -- --node "$NODE" --server "$URL" --token-file "$T/empty-token"
check "an empty token file: exit 2, the file named, nothing sent" \
	bash -c "[ $RC -eq 2 ] && grep -qF 'the token file $T/empty-token is empty' '$T/err' && ! grep -q 'answered\|reach' '$T/err'"
agent -- --server "$URL"
check "--server without --token-file: exit 2, says so" bash -c "[ $RC -eq 2 ] && grep -qF -- '--token-file' '$T/err'"
agent -- --quiet
check "--quiet without --server: exit 2" [ "$RC" -eq 2 ]
"$AGENT" --help >"$T/help" 2>&1
check "--help teaches --server, --token-file, --quiet with an example" bash -c \
	"grep -qF -- '--server URL' '$T/help' && grep -qF -- '--token-file FILE' '$T/help' && grep -qF -- '--quiet' '$T/help' && grep -qF -- '--server http://' '$T/help'"

# 11. the server goes away: one-shot exit 1 with a clear message ...
stop_daemon
agent FAKE_NVML_XID=1:62 -- "${POST[@]}"
check "server down, one-shot: exit 1" [ "$RC" -eq 1 ]
check "server down: says it cannot reach it and what to check" \
	bash -c "grep -qF 'cannot reach $URL' '$T/err' && grep -qF 'fairway serve' '$T/err' && grep -qF -- '--server' '$T/err'"
check "server down: the report is still printed" has "$T/out" '"node_health":"suspect"'
# ... and --watch logs each failure and keeps going
agent -- "${POST[@]}" --watch --interval 1 --count 2 --wait 0
check "server down, --watch: every report printed, every failure logged, exit 1" bash -c \
	"[ $RC -eq 1 ] && [ \$(wc -l <'$T/out') -eq 2 ] && [ \$(grep -c 'not sent: cannot reach' '$T/err') -eq 2 ] && [ \$(grep -c 'next try in 1s\$' '$T/err') -eq 1 ] && [ \$(grep -Ec '^fairway-agent: report of 20[0-9]{2}-[0-9-]{5}T[0-9:]{8}Z not sent' '$T/err') -eq 2 ] && tail -1 '$T/err' | grep -qF 'that was the last report'"

finish
