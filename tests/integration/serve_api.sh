#!/usr/bin/env bash
# tests/integration/serve_api.sh BUILD_DIR — `fairway serve` end to end on
# 127.0.0.1: security (token file mode, bearer token, body cap), every
# endpoint of the API with good and bad requests (4xx naming the field,
# nothing half-applied), the local backend running jobs in wall-clock
# time, reservations and health reports reaching the plan (a maintenance
# window drains its nodes and returns them when it ends or is deleted; a
# node's fault history makes it a lemon), /metrics, the OpenAPI file
# against the served routes, the CLI, and restart restoring everything.
# Last, on a one-node fleet: local jobs with a non-zero exitCode fail, and
# the third failure makes the node suspect, also after a restart; the
# queue settings preemptible: false, gpuModelDeserved (a queue below the
# GPUs of a model it deserves evicts for them: model_reclaimed),
# scheduler.userFairShare and
# scheduler.checkpointGrace (an eviction waits for a checkpoint) and
# scheduler.starveAfter (a starving gang holds its queue's limit: a later
# job waits with limit_held, named so in every answer and table); store
# writes made to fail (SQLite triggers: a cancel's, a submission's or a
# cycle's) leave nothing half-applied, count nothing in /metrics and leave
# the usage save due; and before the first plan the cycle-result
# endpoints answer without leaking (nodes: 503 with the cycles' error;
# fair share: an empty list).
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/serve_lib.sh "$1"

S=$T/state
PORT=$(free_port)

# decisions_for NODE: the store's decision log for a node, "kind reason | text" a line
decisions_for() {
	python3 -c 'import sqlite3, sys
for k, r, t in sqlite3.connect(sys.argv[1]).execute(
        "SELECT kind, reason, text FROM decisions WHERE node = ? ORDER BY id", (sys.argv[2],)):
    print(k, r, "|", t)' "$S/fairway.db" "$1"
}
# the texts of the evict decisions in the job bodies given as arguments, for a
# python3 -c check that follows: "$EVICT_TEXTS"'assert ...' "$A1" "$A2"
EVICT_TEXTS='import json, re, sys
texts = [d["text"] for b in sys.argv[1:] for d in json.loads(b).get("decisions", []) if d["kind"] == "evict"]
'

# --- startup and security ----------------------------------------------------
echo "0123456789abcdef0123" >"$T/loose-token"
chmod 644 "$T/loose-token"
"$FW" serve --state "$S" --listen "127.0.0.1:$PORT" --token-file "$T/loose-token" >"$T/loose.log" 2>&1
rc=$?
check "a token file readable by others is refused (exit 2)" [ "$rc" -eq 2 ]
check "the refusal says how to fix it" grep -q "chmod 600" "$T/loose.log"
"$FW" serve --state "$S" --listen "127.0.0.1:$PORT" --agent-token-file "$T/loose-token" >"$T/loose.log" 2>&1
rc=$?
check "an agent token file readable by others is refused (exit 2)" [ "$rc" -eq 2 ] &&
	check "... naming the flag and the file" grep -q -- "--agent-token-file $T/loose-token has permissions 644.*chmod 600" "$T/loose.log"
chmod 600 "$T/loose-token"
"$FW" serve --state "$S" --listen "127.0.0.1:$PORT" --token-file "$T/loose-token" \
	--agent-token-file "$T/loose-token" >"$T/loose.log" 2>&1
rc=$?
check "the same token for admin and agents is refused (exit 2)" [ "$rc" -eq 2 ] &&
	check "... saying the agent token needs its own" grep -q "agent token is the admin token" "$T/loose.log"

if ! start_daemon "$S" "$PORT"; then
	bad "daemon starts" "$(tail -5 "$T/daemon.log")"
	finish
	exit 1
fi
ok "daemon starts and answers /v1/health"
check "default token file is created with mode 0600" [ "$(stat -c %a "$S/token")" = 600 ]
# one daemon per state directory (an flock on STATE_DIR/lock)
PORT2=$(free_port)
timeout 10 "$FW" serve --state "$S" --listen "127.0.0.1:$PORT2" >"$T/second.log" 2>&1
rc=$?
check "a second daemon on the same --state refuses to start (exit 2)" [ "$rc" -eq 2 ] &&
	check "... naming the directory and the PID that holds it" grep -q -- "--state $S is in use by another fairway serve (PID $DPID" "$T/second.log"
# a second daemon on the port in use (its own --state): one line that names
# the port and what to do, exit 2 as the other start errors, and none of
# libmicrohttpd's own words
timeout 10 "$FW" serve --state "$T/state-port" --listen "127.0.0.1:$PORT" >"$T/port.log" 2>&1
rc=$?
check "a second daemon on a port in use: exit 2, one line naming the port and what to do" \
	bash -c "[ $rc -eq 2 ] && [ \"\$(cat '$T/port.log')\" = 'fairway serve: error: port 127.0.0.1:$PORT is in use: stop the other process or pick another --listen' ]"
# a client that speaks TLS to the plain-HTTP port: libmicrohttpd's message
# reaches the daemon's log as one line of its own format, no HTML page
# (the bytes of a TLS record header, then a line end, so the request line
# is complete and malformed at once: a real handshake's timing made this
# check flaky)
timeout 5 bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT && printf '\\x16\\x03\\x01\\x02\\x00 hello\\r\\n\\r\\n' >&3 && cat <&3 >/dev/null" 2>/dev/null
check "a TLS client's garbage: logged as 'fairway serve: http: ...' in words, no HTML" bash -c \
	"for _ in \$(seq 1 100); do grep -q '^fairway serve: http: ' '$T/daemon.log' && break; sleep 0.1; done
	grep -q '^fairway serve: http: ' '$T/daemon.log' && ! grep -q '<html>\\|^Error processing\\|MHD_OPTION' '$T/daemon.log' ||
	{ grep -n 'http\\|html\\|Error\\|MHD' '$T/daemon.log' | head -5 >&2; false; }"
hexport=$(printf '%04X' "$PORT")
check "it listens on 127.0.0.1 only (/proc/net/tcp)" bash -c \
	"grep -q ' 0100007F:$hexport 00000000:0000 0A' /proc/net/tcp && ! grep -q ' 00000000:$hexport 00000000:0000 0A' /proc/net/tcp"

req POST /v1/queues '{"name":"q1"}'
check "mutating without a token: 401 naming Authorization" [ "$CODE" = 401 -a "$(jfield 'j["error"]["field"]')" = Authorization ]
TOKEN=wrong-token-wrong-token
req POST /v1/queues '{"name":"q1"}'
check "mutating with a wrong token: 401" [ "$CODE" = 401 ]
# the agents' token (--agent-token-file; default DIR/agent-token): node
# health only, so a GPU node never holds the admin token
check "default agent token file is created with mode 0600" [ "$(stat -c %a "$S/agent-token")" = 600 ]
check "the agent token differs from the admin token" [ "$(cat "$S/agent-token")" != "$(cat "$S/token")" ]
TOKEN=$(cat "$S/agent-token")
req POST /v1/nodes/h100-015/health '{"healthy":true,"reason":"healthy: 8 GPUs ok"}'
check "agent token: may report node health (200)" [ "$CODE" = 200 ]
req POST /v1/queues '{"name":"q1"}'
check "agent token: 403 EPERM on any other mutating endpoint, saying which token" \
	[ "$CODE" = 403 -a "$(jfield 'j["error"]["code"]')" = EPERM ] &&
	check "agent token: the refusal names the health endpoint" grep -q "only report node health" <<<"$BODY"
req POST /v1/cycle ''
check "agent token: no cycle either (403)" [ "$CODE" = 403 ]
req DELETE /v1/jobs/anything
check "agent token: no cancel either (403)" [ "$CODE" = 403 ]
TOKEN=$(cat "$S/token")
req POST /v1/nodes/h100-015/health '{"healthy":true,"reason":"healthy: 8 GPUs ok"}'
check "admin token: may report node health too (200)" [ "$CODE" = 200 ]
req GET /v1/queues
check "reads need no token" [ "$CODE" = 200 ]
python3 -c 'print("{\"name\":\"" + "x"*(2<<20) + "\"}")' >"$T/big.json"
CODE=$(curl -s -o "$T/body" -w '%{http_code}' -X POST -H "Authorization: Bearer $TOKEN" \
	--data-binary @"$T/big.json" "http://127.0.0.1:$PORT/v1/queues")
check "a body over 1 MiB: 413" [ "$CODE" = 413 ]
req GET /v1/nope
check "unknown path: 404 ENOROUTE" [ "$CODE" = 404 -a "$(jfield 'j["error"]["code"]')" = ENOROUTE ]
req GET /v1/no-such-thing-here
check "... the message says where the routes are (the /v1 prefix, --routes)" \
	grep -qF 'no such endpoint: /v1/no-such-thing-here; the API'"'"'s paths begin /v1 (GET /v1/health, /v1/jobs, /v1/queues, /v1/nodes, /v1/plan, ...) and the metrics are GET /metrics: `fairway serve --routes` lists every route' <<<"$(jfield 'j["error"]["message"]')"
# an operator's first curl: a path without its /v1, with one too many, or
# a typo, names the route meant
for pm in /health:/v1/health /healthz:/v1/health /jobs:/v1/jobs /v1/job:/v1/jobs /v1/metrics:/metrics; do
	req GET "${pm%%:*}"
	check "GET ${pm%%:*}: 404, did you mean ${pm#*:}" \
		[ "$CODE" = 404 -a "$(jfield '"(did you mean '"${pm#*:}"'?)" in j["error"]["message"]')" = True ]
done
# a name longer than a name may be, in any path that takes one: 400 naming
# name and the limit, not 404 (the route is there)
LONG=$(python3 -c 'print("x" * 5000)')
for mp in "GET /v1/jobs" "DELETE /v1/jobs" "GET /v1/queues" "DELETE /v1/queues" "GET /v1/reservations" \
	"DELETE /v1/reservations" "GET /v1/nodes"; do
	req ${mp% *} "${mp#* }/$LONG"
	check "${mp% *} ${mp#* }/<5000 x>: 400 ERANGE naming name and the limit" \
		[ "$CODE" = 400 -a "$(jfield 'j["error"]["code"], j["error"]["field"], j["error"]["message"].startswith("the name in the URL path is longer than 63 characters (it has 5000)")')" = "ERANGE name True" ]
done
req POST "/v1/nodes/$LONG/health" '{"healthy":true}'
check "POST /v1/nodes/<5000 x>/health: 400 naming name" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = name ]
req POST /v1/jobs "{\"name\":\"$LONG\",\"queue\":\"llm\",\"tasks\":[{\"gpus\":1}]}"
check "POST /v1/jobs with a 5000-character name: 400 ERANGE naming name and the limit" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], j["error"]["message"]')" = "name is longer than 63 bytes (it has 5000); shorten it" ]
req PATCH /v1/queues
check "wrong method: 405" [ "$CODE" = 405 ]
check "... whose message names the methods the path takes" \
	[ "$(jfield 'j["error"]["message"]')" = "PATCH is not allowed on /v1/queues; it takes GET, HEAD, POST (docs/openapi.yaml)" ]
curl -s -o /dev/null -D "$T/h405" -X PATCH "http://127.0.0.1:$PORT/v1/queues"
check "a 405 names the path's methods: Allow: GET, HEAD, POST" grep -q $'^Allow: GET, HEAD, POST\r$' "$T/h405"
curl -s -o /dev/null -D "$T/h401" -X POST "http://127.0.0.1:$PORT/v1/queues"
check "a 401 names the scheme: WWW-Authenticate: Bearer realm=\"fairway\"" \
	grep -q $'^WWW-Authenticate: Bearer realm="fairway"\r$' "$T/h401"
for scheme in bearer BEARER 'Bearer  '; do
	CODE=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "Authorization: $scheme $TOKEN" \
		"http://127.0.0.1:$PORT/v1/cycle")
	check "the auth scheme in any case, then spaces (RFC 7235): '$scheme <token>' is accepted (200)" [ "$CODE" = 200 ]
done
curl -s -I "http://127.0.0.1:$PORT/v1/health" >"$T/hhead"
check "HEAD on a GET route: 200 with the GET's headers" \
	bash -c "grep -q '^HTTP/1.1 200' '$T/hhead' && grep -q '^Content-Type: application/json' '$T/hhead'"
curl -s -I "http://127.0.0.1:$PORT/v1/cycle" >"$T/hhead"
check "HEAD on a POST-only route: 405, Allow: POST" \
	bash -c "grep -q '^HTTP/1.1 405' '$T/hhead' && grep -q $'^Allow: POST\r$' '$T/hhead'"

# --- queues ------------------------------------------------------------------------
req POST /v1/queues '{"name":"team-a","parent":"research","deserved":{"gpu":8},"overQuotaWeight":{"gpu":2}}'
check "create a queue: 201" [ "$CODE" = 201 ]
req GET /v1/queues/team-a
check "read it back with its parent and quota" [ "$(jfield 'j["parent"], j["deserved"]["gpu"]')" = "research 8.0" ]
req POST /v1/queues '{"name":"team-a"}'
check "create it again: 409 naming name" [ "$CODE" = 409 -a "$(jfield 'j["error"]["field"]')" = name ]
req POST /v1/queues '{"name":"bad","deserved":{"gpu":-1}}'
check "negative quota: 400 naming deserved.gpu" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = deserved.gpu ]
req POST /v1/queues '{"name":"bad","deserved":{"gpu":4},"limit":{"gpu":2}}'
check "limit below quota: 400 naming limit, both values and the fix" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = limit \
	-a "$(jfield 'j["error"]["message"]')" = "limit.gpu (2) is below deserved.gpu (4): raise the limit, or lower deserved" ]
req POST /v1/queues '{"name":"bad","parent":"nowhere"}'
check "unknown parent: 400 naming parent (the core's validation)" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = parent ]
req POST /v1/queues '{"name":"bad","colour":"red"}'
check "unknown field: 400 naming it" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = colour ]
check "... the message names it and lists a queue's valid fields" [ "$(jfield 'j["error"]["message"]')" = \
	'unknown field "colour"; the valid fields are name, parent, priority, deserved, limit, overQuotaWeight, minRuntime, defaultRuntime, maxRuntime, defaultCheckpointInterval, usage, usageAt, preemptible, gpuModelLimits, gpuModelDeserved, gpuHourBudget, usageGpuHours, fairshare, children' ]
req POST /v1/queues '{"name":"bad","deserved":{"gpus":2}}'
check "a typo in a nested member: 400 naming deserved.gpus, the nearest field and deserved's" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], j["error"]["message"]')" = \
	'deserved.gpus unknown field "gpus" (did you mean "gpu"?); the valid fields of deserved are gpu, cpu, memory' ]
req POST /v1/queues '{"name":"bad",'
check "broken JSON: 400 naming body" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = body ]
req PUT /v1/queues/research '{"parent":"team-a"}'
check "a parent cycle: 400, the tree unchanged" [ "$CODE" = 400 ]
check "... told from research, with the path and what to do" [ "$(jfield 'j["error"]["field"], j["error"]["message"]')" = \
	'parent queue "research" would be its own ancestor (research -> team-a -> research); give it another parent (or none: top-level), or first move "team-a" out from under it' ]
req GET /v1/queues/research
check "research still has no parent" [ "$(jfield '"parent" in j')" = False ]
req GET /v1/queues
nq=$(jfield 'len(j["queues"])')
check "no rejected queue was half-created" [ "$nq" = 7 ]
req DELETE /v1/queues/research
check "delete a queue with children: 409" [ "$CODE" = 409 ]
req PUT /v1/queues/team-a '{"parent":"research","deserved":{"gpu":16}}'
check "update a queue: 200, new quota" [ "$CODE" = 200 -a "$(jfield 'j["deserved"]["gpu"]')" = 16.0 ]
req PATCH /v1/queues/team-a '{"limit":{"gpu":40}}'
check "PATCH a queue: 200, only the limit changes (parent, quota, weight kept)" \
	[ "$CODE" = 200 -a "$(jfield 'j.get("parent"), j["deserved"]["gpu"], j["limit"]["gpu"], j["overQuotaWeight"]["gpu"]')" = "research 16.0 40.0 1.0" ]
req PATCH /v1/queues/team-a '{"limit":{"gpu":null}}'
check "PATCH a member to null: it takes its default (no GPU limit)" \
	[ "$CODE" = 200 -a "$(jfield 'j["limit"]["gpu"], j["deserved"]["gpu"]')" = "None 16.0" ]
# a word from the config, Slurm or the job's own answer for a member the
# API names otherwise: the member it means, and why (nothing changes)
foreign_key() { # NAME METHOD PATH BODY FIELD WANT (a substring of the message)
	req "$2" "$3" "$4"
	check "$1" [ "$CODE" = 400 -a "$(WANT=$6 jfield 'j["error"]["field"], __import__("os").environ["WANT"] in j["error"]["message"]')" = "$5 True" ]
}
foreign_key "POST a queue in the config's shape (resources.gpu.quota): 400, did you mean deserved" POST /v1/queues \
	'{"name":"cfg-shape","resources":{"gpu":{"quota":8}}}' resources \
	'unknown field "resources" (did you mean "deserved"? the config'"'"'s resources.gpu.quota is the API'"'"'s deserved.gpu); the valid fields are'
foreign_key "PATCH a queue's weight: 400, did you mean overQuotaWeight" PATCH /v1/queues/team-a '{"weight":2}' weight \
	'unknown field "weight" (did you mean "overQuotaWeight"?); the valid fields are'
foreign_key "POST a job with Slurm's partition: 400, did you mean queue" POST /v1/jobs \
	'{"partition":"team-a","tasks":[{"count":1,"gpus":1}]}' partition \
	'(did you mean "queue"? a Slurm partition is a fairway queue)'
foreign_key "POST a job with Slurm's time: 400, did you mean maxRuntime" POST /v1/jobs \
	'{"queue":"team-a","time":60,"tasks":[{"count":1,"gpus":1}]}' time \
	'(did you mean "maxRuntime"? Slurm'"'"'s --time is the job'"'"'s own maxRuntime)'
foreign_key "POST a job with the answer's timeLimit: 400, did you mean maxRuntime" POST /v1/jobs \
	'{"queue":"team-a","timeLimit":60,"tasks":[{"count":1,"gpus":1}]}' timeLimit \
	'(did you mean "maxRuntime"? timeLimit is the daemon'"'"'s answer'
foreign_key "... a foreign word where its member is not (a task's weight): no hint" POST /v1/jobs \
	'{"queue":"team-a","tasks":[{"count":1,"gpus":1,"weight":1}]}' 'tasks[0].weight' \
	'unknown field "weight"; the valid fields of tasks[0] are'
req GET /v1/queues/cfg-shape
check "... and the refused queue was not created" [ "$CODE" = 404 ]
req PATCH /v1/queues/team-a '{"limit":{"gpu":4}}'
check "PATCH a limit below the quota: 400 naming limit" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = limit ]
req PATCH /v1/queues/team-a '{"colour":"red"}'
check "PATCH with an unknown field: 400 naming it" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = colour ]
req PATCH /v1/queues/team-a '{"maxRunTime":60}'
check "PATCH maxRunTime: 400, did you mean maxRuntime" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = maxRunTime ] &&
	check "... (the message)" grep -q '^unknown field "maxRunTime" (did you mean "maxRuntime"?); the valid fields are name, ' <<<"$(jfield 'j["error"]["message"]')"
req GET /v1/queues/team-a
check "... the refused patches changed nothing" [ "$(jfield 'j.get("parent"), j["deserved"]["gpu"], j["limit"]["gpu"]')" = "research 16.0 None" ]
req PATCH /v1/queues/no-such-queue '{"priority":1}'
check "PATCH an unknown queue: 404 naming name" [ "$CODE" = 404 -a "$(jfield 'j["error"]["field"]')" = name ]

# --- jobs --------------------------------------------------------------------------
req POST /v1/jobs '{"queue":"team-a","tasks":[{"gpu":1}]}'
check "a job's task with gpu for gpus: 400 naming tasks[0].gpu, the nearest field and a task's" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], j["error"]["message"]')" = \
	'tasks[0].gpu unknown field "gpu" (did you mean "gpus"?); the valid fields of tasks[0] are count, gpus, gpuFraction, cpu, memory, gpuModel, nodeSelector, slice' ]
req POST /v1/jobs '{"queue":"team-a","colour":"red","tasks":[{"gpus":1}]}'
check "a job with an unknown field: 400, the message lists a job's fields" [ "$CODE" = 400 -a "$(jfield 'j["error"]["message"]')" = \
	'unknown field "colour"; the valid fields are name, queue, user, priority, preemptible, spread, runtime, minMember, requiredLevel, preferredLevel, tasks, exitCode, checkpointInterval, maxRuntime, nodeSelector, array' ]
req POST /v1/jobs '{"queue":"research","tasks":[{"gpus":1}]}'
check "submit to an inner queue: 400 naming queue" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = queue ]
req POST /v1/jobs '{"queue":"team-a","tasks":[{"gpus":1}],"minMember":2}'
check "minMember above the task count: 400 naming minMember" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = minMember ]
req POST /v1/jobs '{"queue":"team-a","tasks":[{"gpus":1,"count":0}]}'
check "a task group of 0 tasks: 400 naming tasks[0].count" [ "$(jfield 'j["error"]["field"]')" = "tasks[0].count" ]
for bad in -1 256 '"x"'; do
	req POST /v1/jobs "{\"queue\":\"team-a\",\"exitCode\":$bad,\"tasks\":[{\"gpus\":1}]}"
	check "exitCode $bad: 400 naming exitCode" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = exitCode ]
done
req POST /v1/jobs '{"queue":"team-a","tasks":[{"gpus":1},{"count":2}]}'
check "a task group that asks for nothing: 400 naming tasks[1]" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = "tasks[1]" ]
req POST /v1/jobs '{"name":"cpu-only","queue":"team-a","tasks":[{"cpu":2}]}'
check "a job of CPU only is a job (201)" [ "$CODE" = 201 ]
req DELETE /v1/jobs/cpu-only
req POST /v1/jobs '{"name":"never-ran","queue":"vision","tasks":[{"count":18,"gpus":8}]}' # the whole fleet: waits
# wait until a plan has seen it pending, so that the cancel below is newer
# than the last plan: reading it must still say cancelled, not the plan's
# pending (it did when a cycle fell between the submit and the cancel)
for _ in $(seq 1 50); do
	req GET /v1/jobs/never-ran
	[ "$(jfield 'j.get("reason")')" != not_yet_considered ] && break
	sleep 0.1
done
req DELETE /v1/jobs/never-ran
req GET /v1/jobs/never-ran
check "a job cancelled while pending has no startTime" [ "$(jfield 'j["state"], "startTime" in j')" = "cancelled False" ]
"$FW" jobs list --state cancelled --server "http://127.0.0.1:$PORT" >"$T/cancelled" 2>&1
check "... and fairway jobs list shows its START as -" grep -q "^never-ran .* cancelled .* -$" "$T/cancelled"
req POST /v1/jobs '{"name":"huge","queue":"vision","tasks":[{"gpus":16}]}'
check "a task no node can hold: 400 naming tasks[0].gpus, nothing kept" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = "tasks[0].gpus" ] &&
	check "... saying why" grep -q 'a task of 16 GPUs fits on no node: the largest has 8, so the job could never start' <<<"$BODY"
req POST /v1/jobs '{"name":"huge","queue":"vision","tasks":[{"count":18,"gpus":8},{"count":1,"gpus":8}]}'
check "two groups that each fit the fleet alone but need more GPUs together: 400 naming tasks" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = tasks ] &&
	check "... saying why" grep -q "the job's task groups need 152 GPUs all at once and the nodes they may take (by their models and nodeSelectors) have 144, so it could never start" <<<"$BODY"
# 36 tasks of 4 GPUs on 18 nodes: two a node, 100 CPUs where the largest has 96
req POST /v1/jobs '{"name":"huge","queue":"vision","tasks":[{"count":18,"gpus":4,"cpu":50},{"count":18,"gpus":4,"cpu":50}]}'
check "two groups whose GPUs fit together, their CPUs never: accepted" [ "$CODE" = 201 ]
req POST /v1/jobs '{"queue":"team-a","tasks":[{"gpus":2,"gpuFraction":0.5}]}'
check "a fraction of two GPUs: 400 naming tasks[0].gpuFraction" [ "$(jfield 'j["error"]["field"]')" = "tasks[0].gpuFraction" ]
req POST /v1/jobs '{"queue":"team-a","requiredLevel":"galaxy","tasks":[{"gpus":1}]}'
check "an unknown topology level: 400 naming requiredLevel" [ "$(jfield 'j["error"]["field"]')" = requiredLevel ]
check "... and the cluster's levels" [ "$(jfield 'j["error"]["message"]')" = \
	'"galaxy" is not a topology level of this cluster (its levels: block, rack, nvlink); use one of them or "node"' ]
req POST /v1/jobs '{"queue":"team-a","runtime":600,"tasks":[{"gpus":1}]}'
check "a job without a name gets one" [ "$CODE" = 201 -a -n "$(jfield 'j["name"]')" ]
auto=$(jfield 'j["name"]')
k=${auto#job-}
req POST /v1/jobs "{\"name\":\"job-$((k + 1))\",\"queue\":\"team-a\",\"tasks\":[{\"gpus\":1}]}"
req POST /v1/jobs '{"queue":"team-a","tasks":[{"gpus":1}]}'
check "an unnamed job skips a job-N a client took: 201 job-$((k + 2))" [ "$CODE" = 201 -a "$(jfield 'j["name"]')" = "job-$((k + 2))" ]
req DELETE "/v1/jobs/job-$((k + 1))"
req DELETE "/v1/jobs/job-$((k + 2))"
req POST /v1/jobs '{"name":"short","queue":"team-a","user":"u","runtime":3,"tasks":[{"count":1,"gpus":1}]}'
check "submit a job: 201" [ "$CODE" = 201 ]
req POST /v1/jobs '{"name":"short","queue":"team-a","tasks":[{"gpus":1}]}'
check "same name again: 409 naming name" [ "$CODE" = 409 -a "$(jfield 'j["error"]["field"]')" = name ]
check "... saying its state (pending, or running: a cycle may have started it) and what to do" \
	grep -Eqx 'a job named "short" already exists \((pending|running)\); give this one another name, or none: the daemon names it job-N' \
	<<<"$(jfield 'j["error"]["message"]')"
req POST /v1/cycle
check "POST /v1/cycle runs a cycle now" [ "$CODE" = 200 ]
req GET /v1/jobs/short
# running, or on a loaded machine already done (its 3 s passed): it ran on one node either way
check "the job starts on a node" [ "$(jfield 'j["state"] in ("running", "done")')" = True -a "$(jfield 'len(j["nodes"])')" = 1 ]
sleep 4.2
req POST /v1/cycle
req GET /v1/jobs/short
check "after its 3 s runtime it is done (wall-clock time)" [ "$(jfield 'j["state"]')" = done ]
req POST /v1/jobs '{"name":"short","queue":"team-a","tasks":[{"gpus":1}]}'
check "its name again once it is done: 409, saying it is kept until min-job-age forgets it" \
	[ "$CODE" = 409 ] && check "... (the message)" grep -q '^a job named "short" already exists (done, kept with its name until the backend forgets it: --backend-opt min-job-age); give this one another name' <<<"$(jfield 'j["error"]["message"]')"
req GET "/v1/jobs?state=done"
check "listed with ?state=done" [ "$(jfield '"short" in [x["name"] for x in j["jobs"]]')" = True ]
req GET "/v1/jobs?state=sideways"
check "a bad ?state: 400 naming state" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = state ]
req GET /v1/jobs/llm-pretrain-64
check "a waiting job has a reason and an expected start field" \
	[ "$(jfield 'j["state"], "reason" in j, "expectedStart" in j')" = "pending True True" ]
req GET /v1/jobs/huge
check "... and explained: a reason, and why its start is unknown" [ -n "$(jfield 'j["reason"], j["unknownWhy"]')" ] &&
	check "... the GPUs are there, the CPU and memory for all its tasks at once are not" \
	[ "$(jfield 'j["unknownWhy"]')" = never_fits ] &&
	check "... (the text)" grep -q "it needs 144 GPUs and this cluster can never hold it: 144 are usable in one place it may use, but no set of nodes there has the CPU, memory and room for all its tasks at once" <<<"$BODY"
req DELETE /v1/jobs/huge
req DELETE "/v1/jobs/$auto"
check "cancel a job: 200" [ "$CODE" = 200 ]
req DELETE "/v1/jobs/$auto"
check "cancel it again: 409 EENDED (not EEXIST), naming the job" \
	[ "$CODE" = 409 -a "$(jfield 'j["error"]["code"], j["error"]["field"]')" = "EENDED name" ] &&
	check "... saying how and when it ended and that nothing was done" \
	grep -Eq "^job \"$auto\" has already ended \(cancelled at 20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z\): there is nothing to cancel \(\`fairway jobs show $auto\` or GET /v1/jobs/$auto says how it ended\)\$" \
	<<<"$(jfield 'j["error"]["message"]')"
msg=$(jfield 'j["error"]["message"]')
req GET "/v1/jobs/$auto"
check "... and the job is as it was: cancelled, at the time the refusal gave" python3 -c 'import json, sys, time
j = json.loads(sys.argv[1])
sys.exit(not (j["state"] == "cancelled" and time.strftime("(cancelled at %Y-%m-%dT%H:%M:%SZ)", time.gmtime(j["endTime"])) in sys.argv[2]))' \
	"$BODY" "$msg"
req DELETE /v1/jobs/no-such-job
check "cancel an unknown job: 404" [ "$CODE" = 404 ]
req DELETE /v1/queues/team-a
check "delete the (now empty) queue: 200" [ "$CODE" = 200 ]

# --- nodes, health, reservations ------------------------------------------------------
req GET /v1/nodes
check "18 nodes listed with GPU figures" [ "$(jfield 'len(j["nodes"]), j["figures"]["gpusTotal"]')" = "18 144.0" ]
req POST /v1/nodes/h100-015/health '{"healthy":false,"reason":"XID 79","badGpus":[3.0]}'
check "report a node unhealthy (a GPU index written 3.0 is whole): 200" [ "$CODE" = 200 ]
req POST /v1/nodes/h100-015/health '{"healthy":"no"}'
check "a bad health report: 400 naming healthy" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = healthy ]
req POST /v1/nodes/h100-015/health '{"healthy":false,"badGpus":[99]}'
check "a GPU index out of range: 400 naming badGpus[0]" [ "$(jfield 'j["error"]["field"]')" = "badGpus[0]" ] &&
	check "... and the node's range" grep -q "node h100-015 has GPUs 0 to 7, not 99" <<<"$BODY"
req POST /v1/nodes/h100-015/health '{"healthy":false,"badGpus":[-1]}'
check "a negative GPU index: 400 naming the node's range, as one too high does" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["message"]')" = "node h100-015 has GPUs 0 to 7, not -1" ]
req POST /v1/nodes/h100-015/health '{"healthy":true,"suspect":"yes"}'
check "a bad suspect flag: 400 naming suspect" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = suspect ]
req POST /v1/nodes/h100-010/health '{"healthy":true,"badGpus":[2,8]}'
check "a bad GPU the node does not have: 400 naming badGpus[1] and the node's GPUs" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = "badGpus[1]" ] && check "... (GPUs 0 to 7)" grep -q "has GPUs 0 to 7" <<<"$BODY"
req POST /v1/nodes/h100-010/health '{"healthy":false,"suspect":true}'
check "suspect with healthy false: 400 naming suspect" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = suspect ]
req POST /v1/nodes/h100-010/health "{\"healthy\":false,\"at\":$(($(date +%s) + 90000))}"
check "an at more than a day ahead: 400 naming at" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = at ]
req GET /v1/nodes/h100-010
check "... the refused reports changed nothing" [ "$(jfield 'j["healthy"], j["badGpus"]')" = "True []" ]
req POST /v1/nodes/ghost/health '{"healthy":false}'
check "health for an unknown node: 404" [ "$CODE" = 404 ]
for rs in '\u2028 line separator' '\u0085 C1 control' '\u00a0 non-ASCII space' '\u202e bidirectional control'; do
	req POST /v1/nodes/h100-010/health "{\"healthy\":false,\"reason\":\"fan${rs%% *}ok\"}"
	check "a health reason with ${rs#* }: 400 naming reason, saying which character" \
		[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], "one line" in j["error"]["message"]')" = "reason True" ] &&
		check "... (${rs#* } named)" grep -q "${rs#* }" <<<"$BODY"
done
req POST /v1/nodes/h100-010/health '{"healthy":false,"badGpus":[1,1]}'
check "badGpus [1,1]: 400 naming badGpus[1], GPU 1 listed twice (as the config refuses it)" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], "listed twice" in j["error"]["message"]')" = "badGpus[1] True" ]
req GET /v1/nodes/h100-010
check "... and changed nothing" [ "$(jfield 'j["healthy"], j["badGpus"]')" = "True []" ]
now=$(date +%s)
req POST /v1/reservations "{\"kind\":\"maintenance\",\"nodes\":[\"h100-014\"],\"start\":$((now + 100)),\"end\":$((now + 3600)),\"reason\":\"BIOS \u2066x\"}"
check "a reservation reason with a bidi isolate (U+2066): 400 naming reason" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], "U+2066" in j["error"]["message"]')" = "reason True" ]
req POST /v1/reservations "{\"kind\":\"maintenance\",\"nodes\":[\"h100-014\"],\"start\":$((now - 5)),\"end\":$((now + 3600)),\"reason\":\"BIOS\"}"
check "a maintenance window: 201" [ "$CODE" = 201 ]
mid=$(jfield 'j["id"]')
k=${mid#rsv-}
req POST /v1/reservations "{\"id\":\"rsv-$((k + 1))\",\"kind\":\"maintenance\",\"nodes\":[\"h100-000\"],\"start\":$((now + 90000)),\"end\":$((now + 90060))}"
req POST /v1/reservations "{\"kind\":\"maintenance\",\"nodes\":[\"h100-000\"],\"start\":$((now + 90100)),\"end\":$((now + 90160))}"
check "an unnamed reservation skips an rsv-N a client took: 201 rsv-$((k + 2))" [ "$CODE" = 201 -a "$(jfield 'j["id"]')" = "rsv-$((k + 2))" ]
req DELETE "/v1/reservations/rsv-$((k + 1))"
req DELETE "/v1/reservations/rsv-$((k + 2))"
req POST /v1/reservations "{\"kind\":\"queue\",\"queue\":\"vision\",\"nodes\":[\"h100-014\"],\"start\":$now,\"end\":$((now + 60))}"
check "an overlapping reservation on the same node: 409 naming nodes[0]" [ "$CODE" = 409 -a "$(jfield 'j["error"]["field"]')" = "nodes[0]" ]
req POST /v1/reservations "{\"kind\":\"queue\",\"queue\":\"nowhere\",\"nodes\":[\"h100-013\"],\"start\":$now,\"end\":$((now + 60))}"
check "a reservation for an unknown queue: 400 naming queue" [ "$(jfield 'j["error"]["field"]')" = queue ]
req POST /v1/reservations "{\"kind\":\"job\",\"nodes\":[\"h100-013\"],\"start\":$now,\"end\":$((now - 60))}"
check "a reservation that ends before it starts: 400" [ "$CODE" = 400 ]
req POST /v1/reservations '{"kind":"maintenance","nodes":["h100-013"],"start":0,"end":1}'
check "a reservation entirely in the past: 400 naming end" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = end ]
check "... its message names the end as a UTC date beside the number, and the daemon's clock too" \
	[ "$(jfield '__import__("re").search(r"\b1 \(1970-01-01T00:00:01Z\) is in the past \(the daemon.s clock says \d+, \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)", j["error"]["message"]) is not None')" = True ]
req POST /v1/reservations "{\"kind\":\"maintenance\",\"nodes\":[\"h100-013\",\"h100-012\",\"h100-013\"],\"start\":$((now + 90000)),\"end\":$((now + 90060))}"
check "the same node twice in one reservation: 400 naming nodes[2]" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = "nodes[2]" ]
req POST /v1/reservations "{\"kind\":\"job\",\"job\":\"rsv-job\",\"nodes\":[\"a100-1\"],\"start\":$((now - 1)),\"end\":$((now + 3600))}"
check "a job reservation: 201" [ "$CODE" = 201 ]
req POST /v1/cycle
req GET /v1/nodes/h100-015
check "the unhealthy node is held and named unhealthy" [ "$(jfield 'j["healthy"], j["schedulable"], j["badGpus"]')" = "False False [3]" ]
req GET /v1/nodes/h100-014
check "the node in maintenance is not schedulable, and draining" [ "$(jfield 'j["schedulable"], j["health"]')" = "False draining" ]
decisions_for h100-014 >"$T/dec14"
check "the open window drained its node in the backend, jobs left to finish, the window named" \
	grep -qx "drain drain_finish | drain: maintenance window $mid (BIOS); nothing new lands and its [0-9]* running jobs\\? may finish" "$T/dec14"
decisions_for h100-015 >"$T/dec15"
check "the unhealthy node's drain names the node, not its index" \
	grep -qx 'drain drain_requeue | drain: node "h100-015" is unhealthy; its [0-9]* running \(job is\|jobs are\) evicted and requeued' "$T/dec15"
req POST /v1/jobs '{"name":"other-a100","queue":"vision","runtime":600,"tasks":[{"gpus":8,"gpuModel":"A100"}]}'
req POST /v1/jobs '{"name":"rsv-job","queue":"ranking","runtime":600,"tasks":[{"gpus":8,"gpuModel":"A100"}]}'
req POST /v1/cycle
req GET /v1/jobs/rsv-job
rj=$(jfield 'j["state"], j.get("nodes")')
req GET /v1/jobs/other-a100
check "the job reservation: its job starts on the reserved node, another job does not" \
	[ "$rj" = "running ['a100-1']" -a "$(jfield 'j["state"]')" = pending ]
req POST /v1/reservations "{\"kind\":\"maintenance\",\"nodes\":[\"a100-0\"],\"start\":$((now + 300)),\"end\":$((now + 900))}"
check "a maintenance window to come: 201" [ "$CODE" = 201 ]
req POST /v1/jobs '{"name":"runs-into","queue":"vision","runtime":3600,"tasks":[{"gpus":2,"gpuModel":"A100"}]}'
req POST /v1/jobs '{"name":"fits-before","queue":"vision","runtime":60,"tasks":[{"gpus":2,"gpuModel":"A100"}]}'
req POST /v1/cycle
req GET /v1/jobs/runs-into
ri=$(jfield 'j["state"]')
req GET /v1/jobs/fits-before
check "before a window: a job that ends before it starts there, one that would run into it waits" \
	[ "$ri" = pending -a "$(jfield 'j["state"], j.get("nodes")')" = "running ['a100-0']" ]
node_is "a window to come: its node is in service, leaves when the window opens and is back when it ends" a100-0 \
	"j['schedulable'] and j['leavesAt'] == $((now + 300)) and j['backAt'] == $((now + 900))"
req GET /v1/jobs/runs-into
check "... the job that would run into it is expected from the window's end, not before" \
	[ "$(jfield 'j.get("expectedStart", 0) >= '$((now + 900)))" = True ]
"$FW" nodes list --server "http://127.0.0.1:$PORT" >"$T/nodes-leaving" 2>&1
check "... fairway nodes: the node leaves in 5m (or 4m59s)" grep -Eq "^a100-0 .* leaves in (5m|4m[0-5][0-9]s) " "$T/nodes-leaving"
"$FW" nodes show a100-0 --server "http://127.0.0.1:$PORT" >"$T/node-leaving" 2>&1
check "... fairway nodes show: when it leaves and when it is back, relative as the list has them, and as UTC dates" \
	bash -c "grep -Eq '^leaves: in (5m|4m[0-5][0-9]s) \($(date -u -d "@$((now + 300))" +%FT%TZ)\)$' '$T/node-leaving' &&
		grep -Eq '^back: in (15m|14m[0-5][0-9]s) \($(date -u -d "@$((now + 900))" +%FT%TZ)\)$' '$T/node-leaving' && grep -qx 'schedulable: yes' '$T/node-leaving'"
req DELETE /v1/jobs/fits-before
req POST /v1/reservations "{\"kind\":\"queue\",\"queue\":\"product\",\"nodes\":[\"a100-0\"],\"start\":$((now - 1)),\"end\":$((now + 200))}"
check "a queue reservation before the window on the same node: 201" [ "$CODE" = 201 ]
req POST /v1/jobs '{"name":"vision-short","queue":"vision","runtime":60,"tasks":[{"gpus":2,"gpuModel":"A100"}]}'
req POST /v1/jobs '{"name":"ranking-long","queue":"ranking","runtime":3600,"tasks":[{"gpus":2,"gpuModel":"A100"}]}'
req POST /v1/jobs '{"name":"ranking-short","queue":"ranking","runtime":60,"tasks":[{"gpus":2,"gpuModel":"A100"}]}'
req POST /v1/cycle
states=""
for jn in vision-short ranking-long ranking-short; do
	req GET "/v1/jobs/$jn"
	states="$states $(jfield 'j["state"]')"
done
check "a queue reservation: only its (sub-)queues' jobs, and only those done before the window" \
	[ "$states" = " pending pending running" ]
req GET /v1/reservations
check "reservations listed" [ "$(jfield 'len(j["reservations"])')" = 4 ]
req POST /v1/queues '{"name":"rq","parent":"product"}'
req POST /v1/reservations "{\"kind\":\"queue\",\"queue\":\"rq\",\"nodes\":[\"h100-001\"],\"start\":$((now + 90000)),\"end\":$((now + 90060))}"
rqid=$(jfield 'j["id"]')
req DELETE /v1/queues/rq
check "delete a queue that has a queue reservation: 409 naming the reservation" \
	[ "$CODE" = 409 ] && check "... (the message names $rqid)" grep -q "has reservation $rqid" <<<"$BODY"
req DELETE "/v1/reservations/$rqid"
req DELETE /v1/queues/rq
check "... once the reservation is deleted: 200" [ "$CODE" = 200 ]

# --- fair share, plan, metrics -------------------------------------------------------------
req GET /v1/fairshare
check "fair share per queue: deserved, fairShare, allocated, usage" \
	[ "$(jfield '{"allocated","deserved","fairShare","usageGpuHours"} <= set(j["queues"][0])')" = True ]
check "fair share = guaranteed (at most deserved) + over quota, with the weights behind it" \
	[ "$(jfield 'all(abs(q["guaranteed"] + q["overQuota"] - q["fairShare"]) < 1e-6 and -1e-9 <= q["guaranteed"] <= q["deserved"] + 1e-6 and q["weightEffective"] >= 0 and q["weight"] >= 0 for q in j["queues"])')" = True ]
req GET /v1/plan
check "the last plan has decisions and waiting jobs with reasons" \
	[ "$(jfield 'all("reason" in p for p in j["pending"]) and "decisions" in j')" = True ]
# one view: each queue's pendingJobs counts the plan's waiting jobs of it
# and the queues under it; a parent's counts are its children's
check "fair share per queue: pendingJobs, the plan's waiting jobs of the queue and the queues under it" \
	python3 -c 'import json, sys
j = json.loads(sys.argv[1]); fs = {q["queue"]: q for q in j["fairshare"]}
def under(q, top):
    while q:
        if q == top: return True
        q = fs[q]["parent"] if q in fs else ""
    return False
assert j["pending"] and sum(q["pendingJobs"] for q in fs.values() if q["leaf"]) == len(j["pending"])
assert all(q["pendingJobs"] == sum(under(p["queue"], n) for p in j["pending"]) for n, q in fs.items()), fs' "$BODY"
check "... runningJobs: a parent's is its children's, and some run" \
	python3 -c 'import json, sys
fs = json.loads(sys.argv[1])["fairshare"]
assert sum(q["runningJobs"] for q in fs if q["leaf"]) > 0
assert all(q["runningJobs"] == sum(c["runningJobs"] for c in fs if c["parent"] == q["queue"]) for q in fs if not q["leaf"])' "$BODY"
# GET /v1/plan narrowed: ?kind=, ?queue=, ?job=, ?node=, ?limit= list
# exactly the whole plan's entries (of the same cycle) that pass them all,
# the first ?limit= of each list, "truncated" when one is cut; the cycle
# and the fair share stay whole.
# plan_narrowed QUERY MIN_DECISIONS MIN_PENDING: reads the whole plan and
# GET /v1/plan?QUERY until both are of one cycle, then checks the second
# against the first; the filters must keep at least the MINs of the whole
plan_narrowed() {
	local whole="" jobs
	req GET "/v1/jobs?state=all&limit=100000"
	jobs=$BODY
	for _ in $(seq 1 20); do
		req GET /v1/plan
		whole=$BODY
		req GET "/v1/plan?$1"
		[ "$CODE" = 200 ] && [ "$(jfield 'j["cycle"]')" = "$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["cycle"])' "$whole")" ] && break
	done
	python3 -c 'import json, sys
w, f, jobs = json.loads(sys.argv[1]), json.loads(sys.argv[2]), json.loads(sys.argv[3])["jobs"]
q = dict(a.split("=", 1) for a in sys.argv[4].split("&"))
queue_of = {x["name"]: x["queue"] for x in jobs}
kinds = q.get("kind", "start,evict,reserve,drain,timeout,pending").split(",")
def d_ok(d):
    return (d["kind"] in kinds and q.get("job", d["job"]) == d["job"]
            and ("queue" not in q or (d["job"] != "" and queue_of.get(d["job"]) == q["queue"]))
            and ("node" not in q or d["node"] == q["node"] or q["node"] in d["nodes"]))
def p_ok(p):
    return "pending" in kinds and "node" not in q and q.get("job", p["name"]) == p["name"] and q.get("queue", p["queue"]) == p["queue"]
lim = int(q.get("limit", 10**9))
wd, wp = [d for d in w["decisions"] if d_ok(d)], [p for p in w["pending"] if p_ok(p)]
assert len(wd) >= int(sys.argv[5]) and len(wp) >= int(sys.argv[6]), ("too few to tell", len(wd), len(wp))
assert f["decisions"] == wd[:lim], (f["decisions"], wd)
assert f["pending"] == wp[:lim], ([p["name"] for p in f["pending"]], [p["name"] for p in wp])
assert f.get("truncated", False) == (len(wd) > lim or len(wp) > lim), f.get("truncated")
assert all(f[k] == w[k] for k in ("cycle", "at", "generation", "seconds", "fairshare"))' "$whole" "$BODY" "$jobs" "$1" "$2" "$3"
}
check "GET /v1/plan?kind=reserve,pending: the whole plan's reservations and waiting jobs" plan_narrowed "kind=reserve,pending" 1 2
check "GET /v1/plan?queue=llm: llm's jobs' decisions and waits" plan_narrowed "queue=llm" 0 1
check "GET /v1/plan?job=llm-pretrain-128: its reservation and its wait" plan_narrowed "job=llm-pretrain-128" 1 1
req GET "/v1/plan?kind=reserve"
RSV_NODE=$(jfield '[d["nodes"][0] for d in j["decisions"] if d["nodes"]][0]')
if [ -n "$RSV_NODE" ]; then
	check "GET /v1/plan?node=$RSV_NODE: the decisions that name it, no waiting job" plan_narrowed "node=$RSV_NODE" 1 0
else
	bad "GET /v1/plan?node=: the plan reserves no node to ask about"
fi
check "GET /v1/plan?limit=1: the first of each list, truncated" plan_narrowed "limit=1" 0 2
check "GET /v1/plan?kind=pending&queue=llm&limit=1: the filters together" plan_narrowed "kind=pending&queue=llm&limit=1" 0 1
req GET "/v1/plan?kind=strat"
check "GET /v1/plan?kind=strat: 400 naming kind, the nearest kind and every one" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], j["error"]["message"]')" = \
	  "kind \"strat\" is not a kind (did you mean \"start\"?); give a comma-separated list of start, evict, reserve, drain, timeout, pending" ]
for qp in "kind=start, kind" "kind= kind" "limit=0 limit" "limit=100001 limit" "state=pending state" "reason=gpu_model reason" \
	"queue=nosuch queue" "node=nosuch node"; do
	req GET "/v1/plan?${qp% *}"
	check "GET /v1/plan?${qp% *}: 400 naming ${qp#* }" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = "${qp#* }" ]
done
req GET "/v1/plan?queue=lm"
check "GET /v1/plan?queue=lm (no such queue): 400 saying fairway queues lists them" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["message"]')" = 'no queue named "lm"; `fairway queues` lists them' ]
req GET "/v1/jobs?queue=lm"
check "GET /v1/jobs?queue=lm (no such queue): an empty 200 whose hint names the nearest queue" \
	[ "$CODE" = 200 -a "$(jfield 'len(j["jobs"]), "no queue named \"lm\" (did you mean \"llm\"?)" in j["hint"]')" = "0 True" ]
req GET "/v1/jobs?queue=llm"
check "GET /v1/jobs?queue=llm (a queue it has): no hint" [ "$CODE" = 200 -a "$(jfield '"hint" in j')" = False ]
"$FW" jobs list --queue lm --server "http://127.0.0.1:$PORT" >"$T/jl-lm.out" 2>"$T/jl-lm.err"
check "fairway jobs list --queue lm: the hint on stderr" grep -q 'did you mean "llm"' "$T/jl-lm.err"
req GET "/v1/jobs?queue=research"
check "GET /v1/jobs?queue=research (a parent queue): empty, the hint names its child queues" \
	[ "$CODE" = 200 -a "$(jfield 'len(j["jobs"]), "\"research\" is a parent queue" in j["hint"] and "(llm, vision)" in j["hint"]')" = "0 True" ]
# GET /v1/jobs?reason=: the jobs with those reasons (the whole list's, read
# until both are of one cycle)
reason_narrowed() {
	local whole=""
	for _ in $(seq 1 20); do
		req GET /v1/jobs
		whole=$BODY
		req GET "/v1/jobs?reason=$1"
		[ "$CODE" = 200 ] && python3 -c 'import json, sys
w, f, rs = json.loads(sys.argv[1])["jobs"], json.loads(sys.argv[2])["jobs"], sys.argv[3].split(",")
want = [x for x in w if x.get("reason") in rs]
assert want and f == want' "$whole" "$BODY" "$1" && return 0
	done
	return 1
}
check "GET /v1/jobs?reason=has_reservation: the jobs a reservation holds nodes for, all of them" reason_narrowed has_reservation
req GET /v1/jobs
REASONS=$(jfield '",".join(sorted({x["reason"] for x in j["jobs"] if x.get("reason")}))')
check "GET /v1/jobs?reason=$REASONS (every reason listed): every job with a reason" reason_narrowed "$REASONS"
req GET "/v1/jobs?reason=gpu_modle"
check "GET /v1/jobs?reason=gpu_modle: 400 naming reason, did you mean gpu_model, every reason" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], "(did you mean \"gpu_model\"?); give a comma-separated list of fairshare_order, over_quota," in j["error"]["message"], "not_yet_considered" in j["error"]["message"]')" = "reason True True" ]
req GET "/v1/jobs?reason=held"
check "GET /v1/jobs?reason=held (Slurm's, taken on every backend): 200, no job, a hint that the local backend holds none" \
	[ "$CODE" = 200 -a "$(jfield 'len(j["jobs"]), "this daemon'"'"'s backend is local, which holds no jobs" in j["hint"]')" = "0 True" ]
req GET "/v1/jobs?reason=hold"
check "GET /v1/jobs?reason=hold (no backend's): 400 naming reason, did you mean held" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], "did you mean \"held\"" in j["error"]["message"]')" = "reason True" ]
req GET "/v1/jobs?reason=has_reservation"
check "a list with jobs has no hint" [ "$CODE" = 200 -a "$(jfield 'len(j["jobs"]) > 0 and "hint" not in j')" = True ]
curl -s "http://127.0.0.1:$PORT/metrics" >"$T/metrics"
for m in fairway_cycle_seconds_bucket fairway_queue_deserved_gpus fairway_queue_fair_share_gpus \
	fairway_queue_guaranteed_gpus fairway_queue_weight_effective \
	fairway_queue_allocated_gpus fairway_queue_pending_jobs fairway_queue_running_jobs \
	'fairway_pending_jobs{reason="gpu_model"}' fairway_gpu_occupancy_ratio \
	fairway_evictions_total fairway_unhealthy_nodes fairway_lemon_nodes; do
	check "/metrics has $m" grep -qF "$m" "$T/metrics"
done
check "/metrics counts the unhealthy node" grep -qx 'fairway_unhealthy_nodes 1' "$T/metrics"
req GET "/v1/nodes?health=unhealthy,draining"
check "GET /v1/nodes?health=unhealthy,draining: the nodes out of service only, the fleet's totals" \
	[ "$(jfield 'len(j["nodes"]) > 0 and all(n["health"] in ("unhealthy", "draining") for n in j["nodes"]) and j["figures"]["gpusTotal"] > 8 * len(j["nodes"])')" = True ]
"$FW" nodes list --health unhealthy,draining --server "http://127.0.0.1:$PORT" >"$T/nodes-out" 2>&1
check "... fairway nodes list --health unhealthy,draining: the same nodes" \
	[ "$(awk 'NR > 1 && NF > 3 && $1 != "" {print $1}' "$T/nodes-out" | grep -v '^[0-9]' | sort | tr '\n' ' ')" = \
	  "$(jfield '" ".join(sorted(n["name"] for n in j["nodes"])) + " "')" ]
check "... the node in its maintenance window reads HEALTH draining" grep -Eq '^h100-014 .* draining ' "$T/nodes-out"
check "... and lists, so says nothing about an empty list" [ "$(grep -c 'nothing listed' "$T/nodes-out")" = 0 ]
"$FW" nodes list --health lemon --server "http://127.0.0.1:$PORT" >"$T/nodes-none" 2>&1
check "fairway nodes list --health lemon (no lemon yet): no row, and says why and what to do" \
	grep -qF "fairway nodes: nothing listed: no node's health is one of --health's; drop --health to list every node" "$T/nodes-none"
req GET "/v1/nodes?health=sick"
check "... a state that is none: 400 naming health" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = health ]
# a typo of a word among few (?health=, ?state=, the log's ?kind=) names
# the word and its nearest, as ?reason= and the plan's ?kind= do
req GET "/v1/nodes?health=draining,unhelthy"
check "GET /v1/nodes?health=draining,unhelthy: 400 naming health, the word, did you mean unhealthy, the words" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], j["error"]["message"]')" = \
	  'health "unhelthy" is not a node health (did you mean "unhealthy"?): must be a comma-separated list of healthy, suspect, unhealthy, draining, degraded (some GPUs bad) and lemon' ]
req GET "/v1/nodes?health=healthy,"
check "GET /v1/nodes?health=healthy, (a comma at the end): 400 naming health, the words" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], j["error"]["message"]')" = \
	  'health must be a comma-separated list of healthy, suspect, unhealthy, draining, degraded (some GPUs bad) and lemon' ]
req GET "/v1/nodes?health=degraded,lemon"
check "GET /v1/nodes?health=degraded,lemon: the words beyond the states are taken" [ "$CODE" = 200 ]
req GET "/v1/jobs?state=runing"
check "GET /v1/jobs?state=runing: 400 naming state, the word, did you mean running" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], j["error"]["message"]')" = \
	  'state "runing" is not a state (did you mean "running"?): must be pending, running, done, failed, cancelled, timeout or all' ]
req GET "/v1/decisions?kind=evcit"
check "GET /v1/decisions?kind=evcit: 400 naming kind, the word, did you mean evict" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], j["error"]["message"]')" = \
	  'kind "evcit" is not a kind (did you mean "evict"?): must be start, evict, timeout, reserve, drain or requeue' ]
"$FW" jobs list --state runing --server "http://127.0.0.1:$PORT" >"$T/jl-runing" 2>&1
check "... fairway jobs list --state runing: the flag and the nearest state" \
	grep -qF 'fairway jobs: error: 400: field state (--state): "runing" is not a state (did you mean "running"?)' "$T/jl-runing"
check "the node reported unhealthy and the node in maintenance were drained in the backend, once each" \
	grep -qx 'fairway_drains_total 2' "$T/metrics"
check "the local backend has no explain: none called" grep -qx 'fairway_explain_total 0' "$T/metrics"
check "the cycle holds the state lock for only part of its time" \
	awk '/^fairway_cycle_busy_seconds_total/ {b=$2} /^fairway_cycle_locked_seconds_total/ {l=$2} END {exit !(b > 0 && l < b)}' "$T/metrics"
# dashboard_missing METRICS_FILE [NAME...]: the metrics the Grafana
# dashboard draws that the scrape lacks, but the NAMEs; "none" when none
dashboard_missing() {
	python3 -c '
import json, re, sys
d = json.load(open(sys.argv[1])); have = open(sys.argv[2]).read()
names = {n for p in d["panels"] for t in p["targets"] for n in re.findall(r"fairway_[a-z_]+", t["expr"])}
print(" ".join(sorted(n for n in names if n not in have and n not in sys.argv[3:])) or "none")' \
		docs/grafana-fairway.json "$@"
}
# no queue here has a gpuHourBudget, so no fairway_queue_gpu_hour_budget
# nor fairway_queue_gpu_hours_left: the budget sections below check the
# dashboard against ones that have
missing=$(dashboard_missing "$T/metrics" fairway_queue_gpu_hour_budget fairway_queue_gpu_hours_left)
check "every metric the Grafana dashboard draws is exported (missing: $missing)" [ "$missing" = none ]

# --- maintenance windows drain through the plan, and end -----------------------------------
now=$(date +%s)
req POST /v1/reservations "{\"kind\":\"maintenance\",\"nodes\":[\"h100-013\"],\"start\":$((now - 1)),\"end\":$((now + 7200)),\"reason\":\"PSU swap\"}"
w2=$(jfield 'j["id"]')
req POST /v1/cycle
node_is "a window opens: its node is draining and takes nothing new" h100-013 'j["health"] == "draining" and not j["schedulable"]'
"$FW" nodes list --server "http://127.0.0.1:$PORT" >"$T/nodes-back" 2>&1
check "... fairway nodes: the node is back when the window ends (STATE back in 1h59m, not the 1h it once cut it to)" \
	grep -Eq "^h100-013 .* back in (1h59m|2h00m) " "$T/nodes-back"
decisions_for h100-013 >"$T/dec13"
check "... drained in the backend with the window's id and reason" \
	grep -q "^drain drain_finish | drain: maintenance window $w2 (PSU swap);" "$T/dec13"
releases=$(metric fairway_releases_total)
req DELETE "/v1/reservations/$w2"
check "delete the open window: 200" [ "$CODE" = 200 ]
node_is "a deleted window: its node is schedulable and healthy again" h100-013 'j["health"] == "healthy" and j["schedulable"]'
check "... returned by the backend (fairway_releases_total +1)" [ "$(metric fairway_releases_total)" = $((releases + 1)) ]
now=$(date +%s)
req POST /v1/reservations "{\"kind\":\"maintenance\",\"nodes\":[\"h100-013\",\"h100-015\"],\"start\":$((now - 1)),\"end\":$((now + 3))}"
w3=$(jfield 'j["id"]')
req POST /v1/cycle
node_is "a short window: its node is drained" h100-013 'j["health"] == "draining" and not j["schedulable"]'
node_is "... a node reported unhealthy in it stays unhealthy (not draining)" h100-015 'j["health"] == "unhealthy"'
sleep 3.5
node_is "the window ended by itself: its node is schedulable again" h100-013 'j["health"] == "healthy" and j["schedulable"]'
node_is "... but the node reported unhealthy stays held" h100-015 'j["health"] == "unhealthy" and not j["schedulable"]'
check "... only the window's healthy node was returned (fairway_releases_total +2 in all)" \
	[ "$(metric fairway_releases_total)" = $((releases + 2)) ]
req DELETE "/v1/reservations/$w3"

# --- fault history: incidents and the lemon verdict -------------------------------------
post_health() { req POST "/v1/nodes/$1/health" "$2"; }
for i in 1 2 3; do
	post_health h100-012 '{"healthy":false,"reason":"XID 79"}'
	[ "$i" = 3 ] || post_health h100-012 '{"healthy":true}'
done
check "three outages: the POST answer carries three incidents" [ "$(jfield 'len(j["incidents"])')" = 3 ]
post_health h100-012 '{"healthy":false,"reason":"XID 79 again"}'
check "another unhealthy report in the same outage adds none" [ "$(jfield 'len(j["incidents"])')" = 3 ]
post_health h100-012 '{"healthy":true,"incidents":[1,2,3,4,5,6,7,8]}'
check "a report's own incidents are ignored: the daemon's history is kept" [ "$(jfield 'len(j["incidents"])')" = 3 ]
post_health h100-012 '{"healthy":true,"incidents":[-1]}'
check "a bad incidents member: 400 naming incidents[0]" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = "incidents[0]" ]
for i in 1 2; do
	post_health h100-011 '{"healthy":false}'
	post_health h100-011 '{"healthy":true}'
done
past=$(($(date +%s) - 200 * 86400))
for i in 1 2 3; do
	post_health h100-010 "{\"healthy\":false,\"at\":$((past + i))}"
	post_health h100-010 "{\"healthy\":true,\"at\":$((past + i + 1))}"
done
check "incidents are stamped with the report's at" [ "$(jfield 'j["incidents"]')" = "[$((past + 1)), $((past + 2)), $((past + 3))]" ]
req POST /v1/cycle
node_is "3 incidents in the window: a lemon, incidents 3, and back in service" h100-012 \
	'j["lemon"] is True and j["incidents"] == 3 and j["healthy"] and j["schedulable"]'
node_is "2 incidents: not a lemon, incidents 2" h100-011 'j["lemon"] is False and j["incidents"] == 2'
node_is "3 incidents 200 days ago: outside the 120-day window, not a lemon" h100-010 \
	'j["lemon"] is False and j["incidents"] == 0'
req GET /v1/nodes
check "GET /v1/nodes: every node says lemon and incidents; one lemon" \
	[ "$(jfield 'all("lemon" in n and "incidents" in n for n in j["nodes"]), sum(n["lemon"] for n in j["nodes"]), j["figures"]["lemonNodes"]')" = "True 1 1" ]
check "/metrics: fairway_lemon_nodes 1" [ "$(metric fairway_lemon_nodes)" = 1 ]

# --- the OpenAPI file matches the routes ---------------------------------------------------
awk '/^paths:/{p=1;next} p&&/^[^ ]/{p=0} p&&/^  \/[^:]*:/{sub(/^  /,"");sub(/:.*$/,"");path=$0} p&&/^    (get|post|put|delete|patch):/{m=$1;sub(/:/,"",m);print toupper(m)" "path}' \
	docs/openapi.yaml | sort >"$T/spec"
"$FW" serve --routes | sort >"$T/routes"
check "every route in docs/openapi.yaml is served and every served route is in it" diff "$T/spec" "$T/routes"
check "docs/openapi.yaml lists at least 20 operations" [ "$(wc -l <"$T/spec")" -ge 20 ]
if python3 -c 'import yaml' 2>/dev/null; then # where PyYAML exists: the same list, parsed as YAML
	python3 -c '
import sys, yaml
d = yaml.safe_load(open("docs/openapi.yaml"))
for p, ops in d["paths"].items():
    for m in ops:
        if m in ("get", "post", "put", "delete", "patch"):
            print(m.upper(), p)' | sort >"$T/spec-yaml"
	check "docs/openapi.yaml parses as YAML to the same operations" diff "$T/spec" "$T/spec-yaml"
fi
unserved=0
while read -r m p; do
	p=${p//\{name\}/llm}
	[ "$m" = DELETE ] && continue # exercised above
	CODE=$(curl -s -o "$T/body" -w '%{http_code}' -X "$m" -H "Authorization: Bearer $TOKEN" -d '{}' "http://127.0.0.1:$PORT$p")
	grep -q ENOROUTE "$T/body" && unserved=$((unserved + 1))
	[ "$CODE" = 405 ] && unserved=$((unserved + 1))
done <"$T/spec"
check "each spec operation reaches a handler" [ "$unserved" = 0 ]

# --- CLI ------------------------------------------------------------------------------------
C=(--server "http://127.0.0.1:$PORT" --token-file "$S/token")
check "fairway serve --help teaches: flags and a first session" bash -c "'$FW' serve --help | grep -q -- '--token-file' && '$FW' serve --help | grep -q 'Try it'"
check "fairway jobs --help shows submit flags and jobs why" bash -c "'$FW' jobs --help | grep -q 'jobs why' && '$FW' jobs --help | grep -q -- '--runtime'"
"$FW" jobs --server "http://127.0.0.1:1" >/dev/null 2>"$T/unreach"
check "an unreachable server: exit 1 and a hint" bash -c "[ $? -eq 1 ] && grep -q 'fairway serve' '$T/unreach'"
"$FW" jobs why llm-pretrain-64 "${C[@]}" >"$T/why" 2>&1
check "fairway jobs why: reason and expected start" grep -q "expected start" "$T/why"
check "fairway jobs why: a job without a runtime says so (not 'runtime 0 s')" grep -q "64 GPUs, runtime not given)" "$T/why"
check "fairway jobs why: its queue against its fair share" grep -q "^its queue llm holds .* GPUs of a fair share of .*fairway fairshare explain llm" "$T/why"
"$FW" jobs why llm-pretrain-128 "${C[@]}" >"$T/why128" 2>&1
check "fairway jobs why: a reserved job shows when its nodes are held" grep -q "nodes reserved for it from" "$T/why128"
req GET "/v1/jobs?state=running"
RUN=$(jfield '[x["name"] for x in j["jobs"] if x.get("nodes")][0]')
RUN_NODE=$(jfield '[x["nodes"][0] for x in j["jobs"] if x.get("nodes")][0]')
"$FW" jobs why "$RUN" "${C[@]}" >"$T/whyrun" 2>&1
check "fairway jobs why: a running job says where it started" \
	bash -c "[ -n '$RUN' ] && grep -qx 'state: running' '$T/whyrun' && grep -q '^started .* on .*\\b$RUN_NODE\\b' '$T/whyrun'"
# jobs show NAME: the job in words, as jobs why and as an array's show
# (the API's JSON with --json)
"$FW" jobs show "$RUN" "${C[@]}" >"$T/showrun" 2>&1
check "fairway jobs show RUNNING: the job in words: state, where it runs, submitted, priority (no JSON)" \
	bash -c "head -1 '$T/showrun' | grep -q '^job $RUN  (queue ' && grep -qx 'state: running' '$T/showrun' &&
		grep -q '^started .* on .*\\b$RUN_NODE\\b' '$T/showrun' && grep -Eq '^submitted: .* \([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z\)\$' '$T/showrun' &&
		grep -q '^priority: -\\?[0-9]*\$' '$T/showrun' && ! grep -q '^[{}]' '$T/showrun'"
"$FW" jobs show "$RUN" --json "${C[@]}" >"$T/showrun" 2>&1
check "fairway jobs show RUNNING --json: the API's job" \
	[ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["name"])' "$T/showrun")" = "$RUN" ]
"$FW" jobs show llm-pretrain-64 "${C[@]}" >"$T/showpend" 2>&1
check "fairway jobs show PENDING: why it waits and when it should start, in words" \
	bash -c "grep -qx 'state: pending' '$T/showpend' && grep -q '^why it waits: ' '$T/showpend' && grep -q '^expected start: ' '$T/showpend'"
# the client's shared flags before the command, as kubectl's: the same
# request as with them after it
"$FW" --server "http://127.0.0.1:$PORT" --json jobs list --queue llm >"$T/lead1" 2>&1
"$FW" jobs list --queue llm --json --server "http://127.0.0.1:$PORT" >"$T/lead2" 2>&1
check "fairway --server URL --json jobs list: the same jobs as with the flags after the command" \
	[ "$(python3 -c 'import json,sys; print(sorted(x["name"] for x in json.load(open(sys.argv[1]))["jobs"]))' "$T/lead1")" = \
	  "$(python3 -c 'import json,sys; print(sorted(x["name"] for x in json.load(open(sys.argv[1]))["jobs"]))' "$T/lead2")" ]
env -u FAIRWAY_TOKEN_FILE "$FW" --server="http://127.0.0.1:$PORT" --token-file "$S/token" jobs submit --queue llm --gpus 1 \
	--test-only >"$T/lead1" 2>&1
check "fairway --server=URL --token-file F jobs submit --test-only: the token read from before the command" \
	bash -c "[ $? = 0 ] && grep -qx '(not submitted: --test-only)' '$T/lead1'"
# a 400 about a field the client set from a flag names the flag too;
# from --file, the field alone
"$FW" reservations create --kind maintenance --nodes "$RUN_NODE" --start +2h --end +1h "${C[@]}" >"$T/flagerr" 2>&1
check "fairway reservations create --end before --start: the 400 names field end and --end" \
	bash -c "[ $? = 2 ] && grep -qx 'fairway reservations: error: 400: field end (--end): must be after start' '$T/flagerr'"
"$FW" reservations create --kind maintenance --nodes "$RUN_NODE,no-such-node" --start +1h --end +2h "${C[@]}" >"$T/flagerr" 2>&1
check "fairway reservations create --nodes with a node unknown: field nodes[1] (--nodes)" \
	bash -c "[ $? = 2 ] && grep -q '^fairway reservations: error: 400: field nodes\[1\] (--nodes): no node named \"no-such-node\"' '$T/flagerr'"
"$FW" queues create cli-orphan --parent no-such-parent "${C[@]}" >"$T/flagerr" 2>&1
check "fairway queues create --parent unknown: field parent (--parent)" \
	bash -c "[ $? = 2 ] && grep -q '^fairway queues: error: 400: field parent (--parent): no queue named \"no-such-parent\"' '$T/flagerr'"
"$FW" jobs submit --queue no-such-queue --gpus 1 "${C[@]}" >"$T/flagerr" 2>&1
check "fairway jobs submit --queue unknown: field queue (--queue)" \
	bash -c "[ $? = 2 ] && grep -q '^fairway jobs: error: 400: field queue (--queue): no queue named \"no-such-queue\"' '$T/flagerr'"
check "... and says where a command-line user finds the queues (\`fairway queues\`), not the API's path alone" \
	grep -qF 'no queue named "no-such-queue" (`fairway queues` or GET /v1/queues lists them)' "$T/flagerr"
echo '{"queue": "no-such-queue", "tasks": [{"gpus": 1}]}' >"$T/flagerr.json"
"$FW" jobs submit --file "$T/flagerr.json" "${C[@]}" >"$T/flagerr" 2>&1
check "fairway jobs submit --file: the field alone, no flag (the file set it)" \
	bash -c "[ $? = 2 ] && grep -q '^fairway jobs: error: 400: field queue: no queue named' '$T/flagerr'"
"$FW" jobs list "${C[@]}" >"$T/jl" 2>&1
check "fairway jobs list: running jobs (started) and waiting ones (expected start), or unknown alone" \
	bash -c "grep -q '^$RUN .* running .*(started)\$' '$T/jl' &&
		grep -Eq '^llm-pretrain-64 .* pending .* ((in [0-9a-z]+|now|[0-9a-z]+ ago) \(expected start\)|unknown)\$' '$T/jl'"
"$FW" jobs list --queue llm --json "${C[@]}" >"$T/jlq" 2>&1
req GET /v1/jobs
check "fairway jobs list --queue llm: llm's jobs, all of them, and only those" \
	[ "$(python3 -c 'import json, sys; print(sorted(x["name"] for x in json.load(open(sys.argv[1]))["jobs"]))' "$T/jlq")" = \
	  "$(jfield 'sorted(x["name"] for x in j["jobs"] if x["queue"] == "llm")')" -a \
	  "$(jfield 'len([x for x in j["jobs"] if x["queue"] == "llm"]) > 0')" = True ]
"$FW" jobs list --user alice --queue llm --state all --json "${C[@]}" >"$T/jlu" 2>&1
check "... --user alice --queue llm --state all: both filters (GET /v1/jobs?state=all&queue=llm&user=alice)" \
	python3 -c 'import json, sys; l = json.load(open(sys.argv[1]))["jobs"]
assert l and all(x["user"] == "alice" and x["queue"] == "llm" for x in l), l' "$T/jlu"
"$FW" plan --kind pending --queue llm --json "${C[@]}" >"$T/planq" 2>&1
check "fairway plan --server --kind pending --queue llm --json: llm's waiting jobs, no decision, the whole fair share" \
	python3 -c 'import json, sys; p = json.load(open(sys.argv[1]))
assert p["pending"] and all(x["queue"] == "llm" and x["state"] == "pending" for x in p["pending"]), p["pending"]
assert p["decisions"] == [] and len(p["fairshare"]) > 1 and "truncated" not in p' "$T/planq"
"$FW" plan --limit 1 "${C[@]}" >"$T/planlim" 2>"$T/planlim.err"
check "fairway plan --server --limit 1: one waiting row, and stderr says more match" \
	bash -c "[ \$(sed -n '/^WAITING/,/^\$/p' '$T/planlim' | grep -c '^  ') = 1 ] && grep -q 'waiting job only, more match: --limit N (up to 100000) shows more, --kind/--queue/--job/--node fewer' '$T/planlim.err'"
"$FW" plan --kind pending --limit 1 "${C[@]}" >"$T/planlim" 2>"$T/planlim.err"
check "fairway plan --server --kind pending --limit 1: stderr names only the list cut (the first 1 waiting job), no decisions" \
	bash -c "grep -q '^fairway plan: the first 1 waiting job only, more match' '$T/planlim.err' && ! grep -q decision '$T/planlim.err'"
"$FW" plan --kind strat "${C[@]}" >"$T/planbad" 2>&1
check "fairway plan --server --kind strat: exit 2, the daemon's refusal with its nearest kind" \
	bash -c "[ $? = 2 ] && grep -q 'error: 400: field kind (--kind): \"strat\" is not a kind (did you mean \"start\"?)' '$T/planbad'"
"$FW" jobs list --reason has_reservation,gpu_model --json "${C[@]}" >"$T/jlr" 2>&1
check "fairway jobs list --reason has_reservation,gpu_model: the jobs with those reasons only" \
	python3 -c 'import json, sys; l = json.load(open(sys.argv[1]))["jobs"]
assert l and all(x["reason"] in ("has_reservation", "gpu_model") for x in l), l' "$T/jlr"
"$FW" jobs list --reason gpu_modle "${C[@]}" >"$T/jlrbad" 2>&1
check "... --reason gpu_modle: exit 2, the daemon's refusal saying did you mean gpu_model" \
	bash -c "[ $? = 2 ] && grep -q 'error: 400: field reason (--reason): \"gpu_modle\" is not a reason (did you mean \"gpu_model\"?)' '$T/jlrbad'"
"$FW" jobs list --limit 2 "${C[@]}" >"$T/jllim" 2>"$T/jllim.err"
check "fairway jobs list --limit 2: two rows, and stderr says more match" \
	bash -c "[ \$(wc -l <'$T/jllim') = 3 ] && grep -q 'the first 2 jobs only, more match: --limit N' '$T/jllim.err'"
req GET "/v1/jobs?limit=2"
check "... GET /v1/jobs?limit=2: two jobs, truncated true" [ "$(jfield 'len(j["jobs"]), j["truncated"]')" = "2 True" ]
check "... and nextOffset 2, where the next page starts" [ "$(jfield 'j["nextOffset"]')" = 2 ]
first4=$(req GET "/v1/jobs?limit=4" && jfield '[x["name"] for x in j["jobs"]]')
page1=$(req GET "/v1/jobs?limit=2" && jfield '[x["name"] for x in j["jobs"]]')
page2=$(req GET "/v1/jobs?limit=2&offset=2" && jfield '[x["name"] for x in j["jobs"]]')
check "... offset=2 lists the next two: the two pages are the first four" \
	[ "$(python3 -c "import sys; a, b, c = map(eval, sys.argv[1:]); print(len(c) == 4 and a + b == c)" "$page1" "$page2" "$first4")" = True ]
njobs=$(req GET "/v1/jobs?limit=100000" && jfield 'len(j["jobs"])')
req GET "/v1/jobs?offset=$njobs"
check "... an offset past the last job: an empty page whose hint says so with the count ($njobs)" \
	[ "$(jfield 'len(j["jobs"]), j["hint"]')" = "0 offset $njobs is past the last of the $njobs jobs that match; offset 0 (the default) lists from the first" ]
"$FW" jobs list --offset 99999 "${C[@]}" >/dev/null 2>"$T/jlpast"
check "... fairway jobs list --offset 99999: nothing listed, saying why on stderr" \
	grep -qx "fairway jobs: nothing listed: offset 99999 is past the last of the $njobs jobs that match; offset 0 (the default) lists from the first" "$T/jlpast"
req GET "/v1/jobs?offset=-1"
check "... offset=-1: 400 naming offset" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = offset ]
"$FW" jobs list --limit 2 --offset 2 --json "${C[@]}" >"$T/jloff" 2>/dev/null
check "fairway jobs list --limit 2 --offset 2: the same second page" \
	[ "$(python3 -c 'import json, sys; print([x["name"] for x in json.load(open(sys.argv[1]))["jobs"]])' "$T/jloff")" = "$page2" ]
req GET "/v1/jobs?limit=100000"
check "... limit=100000: every job, no truncated member" [ "$(jfield 'len(j["jobs"]) > 2 and "truncated" not in j')" = True ]
"$FW" jobs list --user "no one/&x=1" "${C[@]}" >"$T/jlnone" 2>&1
check "... a user with spaces, / and & is sent encoded: no job, the header only" [ "$(wc -l <"$T/jlnone")" = 1 ]

req GET /v1/jobs/llm-pretrain-128
check "a reserved job's reservedAt is the time in its reason, as its UTC date (no Unix seconds, no t=)" \
	[ "$(jfield 'j["reason"] == "has_reservation" and ("from %s (in " % __import__("time").strftime("%Y-%m-%dT%H:%M:%SZ", __import__("time").gmtime(j["reservedAt"]))) in j["reasonText"] and str(j["reservedAt"]) not in j["reasonText"] and "t=" not in j["reasonText"] and j["expectedStart"] <= j["reservedAt"]')" = True ]
"$FW" queues "${C[@]}" >"$T/q" 2>&1
check "fairway queues: a table" grep -q "^llm " "$T/q"
"$FW" fairshare --json "${C[@]}" | python3 -c 'import json,sys; json.load(sys.stdin)' 2>/dev/null
check "fairway fairshare --json is JSON" [ $? -eq 0 ]
"$FW" fairshare "${C[@]}" >"$T/fs" 2>&1
check "fairway fairshare: guaranteed and over-quota columns" grep -q "GUARANTEED OVER QUOTA" "$T/fs"
check "fairway fairshare: EFF-WEIGHT, the effective weight; fairway queues: OQ-WEIGHT, the configured one" \
	bash -c "grep -q ' EFF-WEIGHT ' '$T/fs' && grep -q ' OQ-WEIGHT ' '$T/q' && ! grep -qE '(^| )WEIGHT( |\$)' '$T/fs' '$T/q'"
# (the numbers read before and after: a job may end between the two calls)
fsparts='"fair share %.1f GPUs = guaranteed %.1f + over quota %.1f" % next((q["fairShare"], q["guaranteed"], q["overQuota"]) for q in j["queues"] if q["queue"] == "vision")'
req GET /v1/fairshare
want1=$(jfield "$fsparts")
"$FW" fairshare explain vision "${C[@]}" >"$T/fsx" 2>&1
req GET /v1/fairshare
want2=$(jfield "$fsparts")
check "fairway fairshare explain: the queue's parts, its siblings and weights" \
	bash -c "(grep -qF '$want1' '$T/fsx' || grep -qF '$want2' '$T/fsx') && grep -q '^  guaranteed ' '$T/fsx' && grep -q '^    vision .*weight .*<-' '$T/fsx'"
"$FW" fairshare explain vision --json "${C[@]}" >"$T/fsxj" 2>&1
req GET /v1/fairshare
check "fairway fairshare explain --json: the queue's entry with its siblings (itself among them), as the text shows" \
	python3 -c '
import json, sys
x = json.load(open(sys.argv[1])); qs = json.loads(sys.argv[2])["queues"]
want = sorted(q["queue"] for q in qs if q.get("parent") == x.get("parent"))
sib = x["siblings"]
assert x["queue"] == "vision" and sorted(s["queue"] for s in sib) == want and "vision" in want, (want, sib)
assert all(k in s for s in sib for k in ("weight", "weightEffective", "overQuota", "demand", "guaranteed", "usageGpuHours")), sib
' "$T/fsxj" "$BODY"
# a queue whose share stops short of its GPU demand names the resource that ran out
req GET /v1/fairshare
check "fair share: limitedBy names gpu/cpu/mem, and every queue short of its demand has one" \
	[ "$(jfield 'all(q["limitedBy"] in (None, "gpu", "cpu", "mem") and (q["limitedBy"] is not None or q["fairShare"] >= q["demand"] - 1e-3) for q in j["queues"])')" = True ]
lq=$(jfield 'next((q["queue"] + " " + q["limitedBy"] for q in j["queues"] if q["limitedBy"]), "")')
if [ -n "$lq" ]; then
	"$FW" fairshare explain "${lq% *}" "${C[@]}" >"$T/fsx" 2>&1
	check "fairway fairshare explain ${lq% *}: a limited by line naming ${lq#* }" grep -q "^  limited by  ${lq#* }: " "$T/fsx"
fi
"$FW" fairshare explain no-such-queue "${C[@]}" >/dev/null 2>"$T/fsx"
check "fairway fairshare explain of an unknown queue: exit 2, error: 404 naming it, as any unknown name" \
	bash -c "[ $? -eq 2 ] && grep -q '^fairway fairshare: error: 404: field name: no queue named \"no-such-queue\"' '$T/fsx'"
"$FW" fairshare explain "${C[@]}" >/dev/null 2>"$T/fsx"
check "fairway fairshare explain without a NAME: exit 2" bash -c "[ $? -eq 2 ] && grep -q 'a queue NAME is required' '$T/fsx'"
"$FW" jobs submit --queue llm --gpus 1 --count 2 --runtime 300 --checkpoint-interval 1800 --name cli-job "${C[@]}" >/dev/null 2>&1
req GET /v1/jobs/cli-job
check "fairway jobs submit creates the job" [ "$CODE" = 200 ]
check "the job keeps its checkpoint interval (reclaim's victim order reads it)" \
	[ "$(jfield 'j["checkpointInterval"]')" = 1800 ]
check "fairway jobs submit without --user: the job is the submitter's, as with sbatch ($(id -un))" \
	[ "$(jfield 'j["user"]')" = "$(id -un)" ]
"$FW" jobs submit --queue llm --gpus 1 --user '' --name cli-nobody "${C[@]}" >/dev/null 2>&1
req GET /v1/jobs/cli-nobody
check "fairway jobs submit --user '': no user" [ "$(jfield 'j.get("user", "")')" = "" ]
"$FW" jobs list --me --json "${C[@]}" >"$T/mine" 2>&1
check "fairway jobs list --me: the submitter's jobs only (cli-job, not cli-nobody)" python3 -c 'import json, os, pwd, sys
l = json.load(open(sys.argv[1]))["jobs"]; me = pwd.getpwuid(os.geteuid()).pw_name
names = [x["name"] for x in l]
assert "cli-job" in names and "cli-nobody" not in names and all(x.get("user") == me for x in l), l' "$T/mine"
"$FW" jobs cancel cli-nobody "${C[@]}" >/dev/null 2>&1
"$FW" jobs submit --queue llm --gpus 1 --name cli-test --test-only "${C[@]}" >"$T/testonly" 2>&1
check "fairway jobs submit --test-only: says whether it would start now or why it would wait, and submits nothing" \
	bash -c "grep -Eq '^job cli-test would (start now \(1 GPU, queue llm\) on [a-z0-9-]+|wait \(1 GPU, queue llm\): .+)\$' '$T/testonly' &&
		grep -qx '(not submitted: --test-only)' '$T/testonly' &&
		[ \"\$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:$PORT/v1/jobs/cli-test)\" = 404 ]"
# docs/serve.md's --test-only example runs as written (the daemon's
# address and token path aside): a dry run is a POST, so it must give the
# token; without, the client exits 2.
read -ra doc <<<"$(grep -m1 -- '^fairway jobs submit .*--test-only' docs/serve.md | sed 's/ *#.*//')"
doc=("${doc[@]/#\/tmp\/fw\/token/$S/token}")
fw_abs=$(realpath "$FW") # run from $T, where no fairway-state/token is to be found
(cd "$T" && env -u FAIRWAY_TOKEN_FILE "$fw_abs" "${doc[@]:1}" --server "http://127.0.0.1:$PORT") >"$T/testonly" 2>&1
check "docs/serve.md's example '${doc[*]:0:3} ... --test-only' runs as written (it gives the token): exit 0, nothing submitted" \
	bash -c "[ $? -eq 0 ] && grep -qx '(not submitted: --test-only)' '$T/testonly'"
"$FW" jobs submit --queue llm --gpus 8 --count 1000 --name cli-huge --test-only --json "${C[@]}" >"$T/testonly" 2>&1
check "... a gang larger than the cluster: refused as a submission would be (400 naming tasks[0].count)" \
	grep -q 'error: 400: field tasks\[0\].count (--count): the job needs 1000 tasks of 8 GPUs all at once and the fleet holds at most [0-9]* of them, so it could never start' "$T/testonly"
"$FW" jobs submit --queue llm --gpus 8 --slice 4:galaxy --count 4 --name cli-gal --test-only "${C[@]}" >"$T/testonly" 2>&1
check "... --slice 4:galaxy: exit 2, naming the cluster's levels" bash -c "[ $? -eq 2 ] && grep -q 'field tasks\[0\].slice.required (--slice): \"galaxy\" is not a topology level of this cluster (its levels: block, rack, nvlink); use one of them or \"node\"' '$T/testonly'"
"$FW" jobs submit --queue llm --gpus 8 --gpu-model h100 --runtime 60 --name cli-lower --json "${C[@]}" >"$T/lower" 2>&1
check "fairway jobs submit --gpu-model h100 on H100 nodes: taken (exit 0), kept in the fleet's spelling" \
	bash -c "[ $? -eq 0 ] && grep -q '\"gpuModel\": *\"H100\"' '$T/lower'"
"$FW" jobs cancel cli-lower "${C[@]}" >/dev/null 2>&1
"$FW" queues set research --parent vision "${C[@]}" >"$T/qcycle" 2>&1 # vision is research's child
check "fairway queues set research --parent vision (a cycle): exit 2, told from research with the path" \
	bash -c "[ $? -eq 2 ] && grep -qF 'field parent (--parent): queue \"research\" would be its own ancestor (research -> vision -> research); give it another parent (or none: top-level), or first move \"vision\" out from under it' '$T/qcycle'"
"$FW" queues set vision --parent '' "${C[@]}" >"$T/qtop" 2>&1
rc=$?
req GET /v1/queues/vision
check "fairway queues set vision --parent '': exit 0, vision is top-level" [ "$rc" = 0 -a "$(jfield 'repr(j.get("parent"))')" = None ]
"$FW" queues set vision --parent research "${C[@]}" >/dev/null 2>&1
req GET /v1/queues/vision
check "... and back under research" [ "$(jfield 'j.get("parent")')" = research ]
"$FW" jobs submit --queue llm --gpus 8 --cpu 100000 --name cli-fat --test-only --json "${C[@]}" >"$T/testonly" 2>&1
check "... a task no node has the CPUs for: refused too, naming tasks[0].cpu" \
	grep -q 'field tasks\[0\].cpu (--cpu): a task asks 100000 CPUs and no node with its GPUs has more than' "$T/testonly"
req POST "/v1/jobs?dryRun=true" '{"name":"two-groups","queue":"llm","tasks":[{"count":18,"gpus":4,"cpu":50},{"count":18,"gpus":4,"cpu":50}]}'
check "a dry run of two groups that each fit the fleet alone, never together (by CPU): 200, pending with an unknown start, saying why" \
	[ "$CODE" = 200 ] && check "... (the dry run's answer)" python3 -c 'import json, sys
r = json.loads(sys.argv[1]); j = r["job"]
assert r["dryRun"] is True and j["name"] == "two-groups" and j["state"] == "pending", r
assert j["expectedStart"] is None and "can never hold it" in j["unknownWhyText"], j' "$BODY"
req POST "/v1/jobs?dryRun=maybe" '{"queue":"llm","tasks":[{"gpus":1}]}'
check "POST /v1/jobs?dryRun=maybe: 400 naming dryRun" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = dryRun ]
for qf in "dryrun=true dryrun" "bogus=1 bogus" "dryRun=true&bogus=1 bogus"; do
	q=${qf% *} f=${qf#* }
	req POST "/v1/jobs?$q" '{"name":"qp-typo","queue":"llm","tasks":[{"gpus":1}]}'
	check "POST /v1/jobs?$q: 400 naming $f, saying the endpoint takes only dryRun" \
		[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], "takes only dryRun" in j["error"]["message"]')" = "$f True" ]
done
req POST /v1/jobs '{"name":"ctl-user","queue":"llm","tasks":[{"gpus":1}],"user":"x\ty\nz"}'
check "a user with a tab and a newline: 400 naming user, saying it must be one word" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], "one word" in j["error"]["message"]')" = "user True" ]
req POST /v1/jobs '{"name":"ctl-user2","queue":"llm","tasks":[{"gpus":1}],"user":"x\u009b31my"}'
check "a user with a C1 control (U+009B, a terminal's CSI): 400 naming user" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], "U+009B" in j["error"]["message"]')" = "user True" ]
req POST /v1/jobs '{"name":"ctl-user3","queue":"llm","tasks":[{"gpus":1}],"user":"al\u00a0ice"}'
check "a user with a no-break space: 400 naming user" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = user ]
req GET /v1/jobs/qp-typo
check "... and none of them submitted the job (nor the ones with odd characters in their user)" \
	[ "$CODE" = 404 -a "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/v1/jobs/ctl-user")" = 404 -a \
	  "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/v1/jobs/ctl-user2")" = 404 ]
# Job arrays (sbatch --array): one job per index, NAME_<index>, all or none
req POST /v1/jobs '{"name":"arr","queue":"llm","tasks":[{"gpus":1}],"array":"0-4:2,7,2"}'
check "POST /v1/jobs with array 0-4:2,7,2: 201, the tasks named arr_<index>, ascending, index 2 once" \
	[ "$CODE" = 201 -a "$(jfield 'j["arrayOf"], j["count"], ",".join(j["names"]), j["state"]')" = "arr 4 arr_0,arr_2,arr_4,arr_7 pending" ]
req GET /v1/jobs/arr_7
check "... each task is a job of its own, arrayOf the array" [ "$CODE" = 200 -a "$(jfield 'j["name"], j["arrayOf"]')" = "arr_7 arr" ]
req GET /v1/jobs/arr_1
check "... and no other index is (arr_1: 404)" [ "$CODE" = 404 ]
# The array as a whole (GET /v1/jobs/NAME of an array's NAME), its tasks
# listed (?array=), and arrayOf in the list
req GET /v1/jobs/arr
check "GET /v1/jobs/arr (the array's name): 200, kind array, its 4 tasks ascending, indices 0,2,4,7" \
	[ "$CODE" = 200 -a "$(jfield 'j["kind"], j["name"], j["queue"], j["count"], ",".join(j["tasks"]), j["indices"], j["gpus"], sum(j["states"].values())')" = "array arr llm 4 arr_0,arr_2,arr_4,arr_7 0,2,4,7 1 4" ]
check "... its submitTime is its tasks' (arr_7's)" [ "$(jfield 'j["submitTime"]')" = "$(curl -s "http://127.0.0.1:$PORT/v1/jobs/arr_7" | python3 -c 'import json,sys; print(json.load(sys.stdin)["submitTime"])')" ]
# array_agrees NAME: GET /v1/jobs/NAME's counts are those of its tasks as
# GET /v1/jobs?array=NAME&state=all lists them (read until both are of one cycle)
array_agrees() {
	for _ in $(seq 1 20); do
		req GET "/v1/jobs/$1"
		local sum=$BODY
		req GET "/v1/jobs?array=$1&state=all"
		python3 -c 'import collections, json, sys
a, l = json.loads(sys.argv[1]), json.loads(sys.argv[2])["jobs"]
assert all(x["arrayOf"] == a["name"] for x in l), l
assert sorted(x["name"] for x in l) == sorted(a["tasks"]) and len(l) == a["count"], (a, l)
assert dict(collections.Counter(x["state"] for x in l)) == a["states"], (a, l)
w = [x for x in l if x["state"] == "pending"]
assert dict(collections.Counter(x["reason"] for x in w)) == a.get("reasons", {}), (a, w)
at = [x["expectedStart"] for x in w if isinstance(x.get("expectedStart"), int)]
assert (a["expectedStart"] == {"earliest": min(at), "latest": max(at)}) if at else "expectedStart" not in a, (a, w)
assert a.get("unknownStarts", 0) == len(w) - len(at), (a, w)' "$sum" "$BODY" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "$sum / $BODY" | head -c 600
	return 1
}
check "GET /v1/jobs/arr agrees with ?array=arr&state=all: states, the waiting tasks' reasons and start range" array_agrees arr
req GET "/v1/jobs?array=arr"
check "GET /v1/jobs?array=arr: its 4 live tasks, each with arrayOf arr, no hint" \
	[ "$CODE" = 200 -a "$(jfield '",".join(sorted(x["name"] for x in j["jobs"])), {x["arrayOf"] for x in j["jobs"]} == {"arr"}, "hint" in j')" = "arr_0,arr_2,arr_4,arr_7 True False" ]
req GET "/v1/jobs?array=arr&limit=3"
check "GET /v1/jobs?array=arr&limit=3: 3 of them, truncated, nextOffset 3" \
	[ "$(jfield 'len(j["jobs"]), j["truncated"], j["nextOffset"]')" = "3 True 3" ]
req GET "/v1/jobs?array=arr&offset=3"
check "... &offset=3: the fourth" [ "$(jfield 'len(j["jobs"]), j["jobs"][0]["arrayOf"]')" = "1 arr" ]
req GET "/v1/jobs?array=arr&queue=vision"
check "GET /v1/jobs?array=arr&queue=vision: composes with queue (none), no hint" \
	[ "$CODE" = 200 -a "$(jfield 'len(j["jobs"]), "hint" in j')" = "0 False" ]
req GET "/v1/jobs"
check "GET /v1/jobs: the tasks carry arrayOf, the jobs of their own none" \
	[ "$(jfield 'all((x.get("arrayOf") == "arr") == x["name"].startswith("arr_") for x in j["jobs"]) and any("arrayOf" in x for x in j["jobs"])')" = True ]
req GET "/v1/jobs?array=no-such-arr"
check "GET /v1/jobs?array=no-such-arr: 200, empty, a hint that no such array is remembered" \
	[ "$CODE" = 200 -a "$(jfield 'len(j["jobs"]), j["hint"].startswith("no job array named \"no-such-arr\" is remembered")')" = "0 True" ]
req GET /v1/jobs/no-such-arr
check "GET /v1/jobs/no-such-arr: 404, no job or job array of that name" \
	[ "$CODE" = 404 -a "$(jfield 'j["error"]["message"]')" = 'no job or job array named "no-such-arr"' ]
# A job reservation for an array's name holds nodes for a job that can
# never exist (no job takes an array's name): refused, in the API and the
# CLI; an empty ?array= is refused, not a list of the jobs of no array; a
# task's name as ?array= says whose task it is
now=$(date +%s)
req POST /v1/reservations "{\"kind\":\"job\",\"job\":\"arr\",\"nodes\":[\"h100-013\"],\"start\":$now,\"end\":$((now + 3600))}"
check "POST /v1/reservations kind job, job arr (an array): 400 naming job, saying to reserve for a task or a queue" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], "names a job array (4 tasks)" in j["error"]["message"], "arr_<index>" in j["error"]["message"], "\"kind\": \"queue\"" in j["error"]["message"]')" = "job True True True" ]
"$FW" reservations create --kind job --job arr --nodes h100-013 --start +1h --end +2h "${C[@]}" >"$T/rsvarr" 2>&1
check "fairway reservations create --kind job --job arr: exit 2, the 400 naming job" \
	bash -c "[ $? = 2 ] && grep -q 'error: 400: field job (--job): \"arr\" names a job array' '$T/rsvarr'"
req GET /v1/reservations
check "... and neither made a reservation for arr" [ "$(jfield 'any(r.get("job") == "arr" for r in j["reservations"])')" = False ]
req GET "/v1/jobs?array="
check "GET /v1/jobs?array= (empty): 400 naming array" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], j["error"]["message"].startswith("is empty")')" = "array True" ]
"$FW" jobs list --array "" "${C[@]}" >"$T/arrempty" 2>&1
check "fairway jobs list --array \"\": exit 2, --array is empty" bash -c "[ $? = 2 ] && grep -q -- '--array is empty' '$T/arrempty'"
req GET "/v1/jobs?array=arr_7"
check "GET /v1/jobs?array=arr_7 (a task's name): 200, empty, a hint that it is a task of arr" \
	[ "$CODE" = 200 -a "$(jfield 'len(j["jobs"]), j["hint"].startswith("\"arr_7\" is a task of job array \"arr\"")')" = "0 True" ]
check "... naming the command that shows the task, and the API's path" \
	[ "$(jfield '"not an array: `fairway jobs show arr_7` or GET /v1/jobs/arr_7 shows it" in j["hint"]')" = True ]
"$FW" jobs show arr "${C[@]}" >"$T/arr" 2>&1
check "fairway jobs show arr: the array in words, its tasks and their states" \
	bash -c "head -1 '$T/arr' | grep -qx 'job array arr  (queue llm, user [^,]*, 1 GPU each)' && grep -qx '4 tasks (arr_0, arr_2, arr_4, arr_7), indices 0,2,4,7' '$T/arr' && grep -q '^states: ' '$T/arr' && ! grep -q '^states: .*running.*pending' '$T/arr' && grep -q '^one task: fairway jobs why arr_<index>' '$T/arr'"
"$FW" jobs show arr --json "${C[@]}" >"$T/arr" 2>&1
check "fairway jobs show arr --json: the API's array" [ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["kind"])' "$T/arr")" = array ]
"$FW" jobs list --array arr "${C[@]}" >"$T/arr" 2>&1
check "fairway jobs list --array arr: a row a task" [ "$(grep -c '^arr_[0247] ' "$T/arr")" = 4 -a "$(wc -l <"$T/arr")" = 5 ]
req POST /v1/jobs '{"name":"arr","queue":"llm","tasks":[{"gpus":1}],"array":"10-11"}'
check "a second array named arr (no task name clashes): 409 naming name, cancel arr would cancel both" \
	[ "$CODE" = 409 -a "$(jfield 'j["error"]["field"], "job array \"arr\" exists (4 tasks)" in j["error"]["message"]')" = "name True" ]
req GET /v1/jobs/arr_10
check "... and none of its tasks submitted (arr_10: 404)" [ "$CODE" = 404 ]
req POST /v1/jobs '{"name":"arr_1","queue":"llm","tasks":[{"gpus":1}]}'
check "a job of its own named as a task of the remembered array arr (arr_1): 409 naming name, the array and the task" \
	[ "$CODE" = 409 -a "$(jfield 'j["error"]["field"], j["error"]["message"].startswith("\"arr_1\" is the name of task 1 of job array \"arr\"")')" = "name True" ]
req POST /v1/jobs '{"name":"arr_0","queue":"llm","tasks":[{"gpus":1}]}'
check "... a live task's name too (arr_0): 409 saying whose task it is" \
	[ "$CODE" = 409 -a "$(jfield '"task 0 of job array \"arr\"" in j["error"]["message"]')" = True ]
req GET /v1/jobs/arr_1
check "... and nothing was submitted (arr_1: 404)" [ "$CODE" = 404 ]
# A job shows every member it was submitted with, under the body's names,
# in GET /v1/jobs/NAME and its row of GET /v1/jobs, before and after a
# cycle; its members post back (here as a dry run)
MEMBERS='{"name":"members","queue":"llm","user":"ann","priority":2,"preemptible":false,"spread":true,"runtime":900,"minMember":1,"preferredLevel":"rack","checkpointInterval":60,"maxRuntime":7200,"tasks":[{"count":2,"gpus":1,"cpu":2.0,"memory":1024,"gpuModel":"h100"}]}'
SHOWS='import json, sys
sent, got = json.loads(sys.argv[1]), json.loads(sys.argv[2])
got = got if "name" in got else [x for x in got["jobs"] if x["name"] == "members"][0]
sent["tasks"][0]["gpuModel"] = "H100"
bad = {k: (v, got.get(k)) for k, v in sent.items() if got.get(k) != v}
assert not bad, bad'
req POST /v1/jobs "$MEMBERS"
req GET /v1/jobs/members
check "GET /v1/jobs/members before a cycle: every member it was submitted with (tasks with gpuModel H100, preemptible, spread, minMember, preferredLevel, ...)" \
	python3 -c "$SHOWS" "$MEMBERS" "$BODY"
req POST /v1/cycle
req GET /v1/jobs/members
check "... after a cycle (the view) too" python3 -c "$SHOWS" "$MEMBERS" "$BODY"
req GET "/v1/jobs?queue=llm&user=ann"
check "... and in its row of GET /v1/jobs" python3 -c "$SHOWS" "$MEMBERS" "$BODY"
req GET /v1/jobs/members
AGAIN=$(python3 -c 'import json, sys
j = json.loads(sys.argv[1])
keys = "name queue user priority preemptible spread runtime minMember requiredLevel preferredLevel tasks exitCode checkpointInterval maxRuntime nodeSelector".split()
b = {k: j[k] for k in keys if k in j}
b["name"] = "members-again"
print(json.dumps(b))' "$BODY")
req POST "/v1/jobs?dryRun=true" "$AGAIN"
check "... its members, taken from GET, post back (dryRun: 200)" [ "$CODE" = 200 ]
req DELETE /v1/jobs/members
req POST /v1/jobs '{"queue":"llm","requiredLevel":"Rack","tasks":[{"gpus":1}]}'
check "a topology level in another case (Rack): 400 naming requiredLevel, did you mean rack" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], "(did you mean \"rack\"?)" in j["error"]["message"]')" = "requiredLevel True" ]
req POST /v1/jobs '{"name":"clash_5","queue":"llm","tasks":[{"gpus":1}]}'
req POST /v1/jobs '{"name":"clash","queue":"llm","tasks":[{"gpus":1}],"array":"0-9"}'
check "an array one of whose task names is a job's (clash_5): 409 naming name and the task" \
	[ "$CODE" = 409 -a "$(jfield 'j["error"]["field"], "clash_5" in j["error"]["message"], "nothing was submitted" in j["error"]["message"]')" = "name True True" ]
check "... all or nothing: no task submitted, not even those before the clash (clash_0, clash_4)" \
	[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/v1/jobs/clash_0")" = 404 -a \
	  "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/v1/jobs/clash_4")" = 404 ]
req POST /v1/jobs '{"name":"clash_5","queue":"llm","tasks":[{"gpus":1}],"array":"0-1"}'
check "an array named as a job is (clash_5): 409 naming name (cancel clash_5 must mean one thing)" \
	[ "$CODE" = 409 -a "$(jfield 'j["error"]["field"]')" = name ]
"$FW" jobs cancel clash_5 "${C[@]}" >/dev/null 2>&1
for af in "0-9%2 throttle" "9-2 lower index first" "a-b not an index list" "1,,3 item 2 of the list is empty" "0-5000 from 0 to 1000" "3:2 not an index list" "0-8:0 not an index list"; do
	a=${af%% *} w=${af#* }
	req POST /v1/jobs "{\"name\":\"bad-arr\",\"queue\":\"llm\",\"tasks\":[{\"gpus\":1}],\"array\":\"$a\"}"
	check "array \"$a\": 400 naming array, saying '$w'" \
		[ "$CODE" = 400 -a "$(jfield "j['error']['field'], '$w' in j['error']['message']")" = "array True" ]
done
req POST /v1/jobs '{"name":"bad-arr","queue":"llm","tasks":[{"gpus":1}],"array":5}'
check "array 5 (a number): 400 naming array, saying to write a string like \"0-99\"" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], "\"0-99\"" in j["error"]["message"]')" = "array True" ]
req POST /v1/jobs '{"name":"bad-arr","queue":"llm","tasks":[{"gpus":1}],"arrayOf":"x"}'
check "a body with arrayOf: 400 naming arrayOf (the daemon sets it), saying to send array" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], "send \"array\"" in j["error"]["message"]')" = "arrayOf True" ]
req POST "/v1/jobs?dryRun=true" '{"name":"bad-arr","queue":"llm","tasks":[{"gpus":1}],"array":"0-3"}'
check "an array with dryRun=true: 400 naming dryRun, saying to dry-run one task" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], "dry-run one task" in j["error"]["message"]')" = "dryRun True" ]
long=$(printf 'x%.0s' $(seq 1 60))
req POST /v1/jobs "{\"name\":\"$long\",\"queue\":\"llm\",\"tasks\":[{\"gpus\":1}],\"array\":\"0-1000\"}"
check "an array whose task names would pass 63 bytes ($long _1000): 400 naming name" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], "shorten the name" in j["error"]["message"]')" = "name True" ]
req POST /v1/jobs '{"name":"bad-arr","queue":"nosuch","tasks":[{"gpus":1}],"array":"0-3"}'
check "an array of an invalid job (no such queue): 400 naming queue, as one job would be" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = queue ]
req GET /v1/jobs/bad-arr_0
check "... and none of the refused arrays submitted a task" [ "$CODE" = 404 ]
req POST /v1/jobs '{"queue":"llm","tasks":[{"gpus":1}],"array":"3"}'
check "an array without a name: named job-N as a job is, its task job-N_3" \
	[ "$CODE" = 201 ] && check "... (its answer)" python3 -c 'import json, re, sys
r = json.loads(sys.argv[1]); assert re.fullmatch(r"job-[0-9]+", r["arrayOf"]) and r["names"] == [r["arrayOf"] + "_3"], r' "$BODY"
req DELETE "/v1/jobs/$(jfield 'j["arrayOf"]')"
req DELETE /v1/jobs/arr_2
req DELETE /v1/jobs/arr
check "DELETE /v1/jobs/arr (an array's name): 200, every live task cancelled (arr_2 was already)" \
	[ "$CODE" = 200 -a "$(jfield '",".join(j["cancelled"])')" = "arr_0,arr_4,arr_7" ]
req GET /v1/jobs/arr_4
check "... arr_4 is cancelled" [ "$(jfield 'j["state"]')" = cancelled ]
req DELETE /v1/jobs/arr
check "DELETE /v1/jobs/arr again: 409 EENDED, every task has ended" \
	[ "$CODE" = 409 -a "$(jfield 'j["error"]["code"], "every task" in j["error"]["message"]')" = "EENDED True" ]
req GET /v1/jobs/arr
check "GET /v1/jobs/arr once every task is cancelled: 4 cancelled, nothing waiting (no reasons, no starts)" \
	[ "$(jfield 'j["states"], "reasons" in j, "expectedStart" in j, "unknownStarts" in j')" = "{'cancelled': 4} False False False" ]
req GET "/v1/jobs?array=arr"
check "GET /v1/jobs?array=arr (every task ended, no state): empty, a hint to add state=all" \
	[ "$CODE" = 200 -a "$(jfield 'len(j["jobs"]), j["hint"]')" = '0 every task of job array "arr" (4) has ended, and without state only pending and running jobs are listed: add state=all (fairway jobs list --array arr --state all)' ]
req GET "/v1/jobs?array=arr&state=cancelled"
check "... with state=cancelled: its 4 tasks, with arrayOf" \
	[ "$(jfield '",".join(sorted(x["name"] for x in j["jobs"])), {x.get("arrayOf") for x in j["jobs"]}')" = "arr_0,arr_2,arr_4,arr_7 {'arr'}" ]
"$FW" jobs list --array arr "${C[@]}" >"$T/arr" 2>"$T/arr.err"
check "fairway jobs list --array arr: the header alone, the daemon's hint on stderr" \
	bash -c "[ \$(wc -l <'$T/arr') = 1 ] && grep -q '^fairway jobs: nothing listed: every task of job array \"arr\" (4) has ended' '$T/arr.err'"
req DELETE /v1/jobs/no-such-arr
check "DELETE of a name that is neither a job nor an array: 404" [ "$CODE" = 404 ]
"$FW" jobs submit --queue llm --gpus 1 --name cliarr --array 0-2 "${C[@]}" >"$T/arr" 2>&1
check "fairway jobs submit --array 0-2: says the array's tasks" grep -qx 'submitted array cliarr: 3 tasks (cliarr_0 .. cliarr_2)' "$T/arr"
"$FW" jobs cancel cliarr "${C[@]}" >"$T/arr" 2>&1
check "fairway jobs cancel cliarr (the array's name): cancels its 3 tasks" \
	grep -qx 'cliarr: cancelled 3 tasks of the array (cliarr_0 .. cliarr_2)' "$T/arr"
"$FW" jobs submit --queue llm --gpus 1 --name cliarr2 --array '0-9%2' "${C[@]}" >"$T/arr" 2>&1
check "fairway jobs submit --array 0-9%2: exit 1, the daemon's 400 naming array" \
	bash -c "[ $? -ne 0 ] && grep -q 'field array (--array): a throttle' '$T/arr'"
# Array name clashes (QA): a job never takes a remembered array's name,
# nor does an array's task; an unnamed array skips taken names.
req POST /v1/jobs '{"name":"rem","queue":"llm","tasks":[{"gpus":1}],"array":"0-1"}'
req POST /v1/jobs '{"name":"rem","queue":"llm","tasks":[{"gpus":1}]}'
check "a job named as a remembered array (rem): 409 naming name, saying the array exists" \
	[ "$CODE" = 409 -a "$(jfield 'j["error"]["field"], "job array \"rem\" exists (2 tasks)" in j["error"]["message"]')" = "name True" ]
req GET /v1/jobs/rem
check "... and no job rem was stored (GET /v1/jobs/rem is the array), so cancel rem still means the array" \
	[ "$CODE" = 200 -a "$(jfield 'j["kind"], j["count"]')" = "array 2" ]
req DELETE /v1/jobs/rem
check "... which it cancels (rem_0, rem_1)" [ "$CODE" = 200 -a "$(jfield '",".join(j["cancelled"])')" = "rem_0,rem_1" ]
req POST /v1/jobs '{"queue":"llm","tasks":[{"gpus":1}]}'
k=$(jfield 'j["name"]')
k=${k#job-}
req DELETE "/v1/jobs/job-$k"
req POST /v1/jobs "{\"name\":\"job-$((k + 1))\",\"queue\":\"llm\",\"tasks\":[{\"gpus\":1}],\"array\":\"0\"}"
req POST /v1/jobs '{"queue":"llm","tasks":[{"gpus":1}]}'
check "an unnamed job after array job-$((k + 1)): named job-$((k + 2)), not the array's name" \
	[ "$CODE" = 201 -a "$(jfield 'j["name"]')" = "job-$((k + 2))" ]
req DELETE "/v1/jobs/job-$((k + 2))"
req DELETE "/v1/jobs/job-$((k + 1))"
check "... and cancel job-$((k + 1)) still means the array" [ "$CODE" = 200 -a "$(jfield '",".join(j["cancelled"])')" = "job-$((k + 1))_0" ]
for i in 1 2 3 4 5; do # an array and a job of one name at once: one of them
	curl -s -o "$T/once-a$i" -w '%{http_code}' -X POST -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
		--data-binary "{\"name\":\"once$i\",\"queue\":\"llm\",\"tasks\":[{\"gpus\":1}],\"array\":\"0-1\"}" \
		"http://127.0.0.1:$PORT/v1/jobs" >"$T/once-ac$i" &
	once=$!
	curl -s -o "$T/once-j$i" -w '%{http_code}' -X POST -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
		--data-binary "{\"name\":\"once$i\",\"queue\":\"llm\",\"tasks\":[{\"gpus\":1}]}" \
		"http://127.0.0.1:$PORT/v1/jobs" >"$T/once-jc$i"
	wait "$once"
done
check "an array and a job of one name POSTed at once (5 times): one 201 and one 409 each time" bash -c '
for i in 1 2 3 4 5; do c="$(cat '"$T"'/once-ac$i) $(cat '"$T"'/once-jc$i)"; [ "$c" = "201 409" -o "$c" = "409 201" ] || exit 1; done'
for i in 1 2 3 4 5; do req DELETE "/v1/jobs/once$i"; done
req POST /v1/jobs '{"name":"zq_1","queue":"llm","tasks":[{"gpus":1}],"array":"0"}'
req POST /v1/jobs '{"name":"zq","queue":"llm","tasks":[{"gpus":1}],"array":"0-2"}'
check "an array whose task (zq_1) would be a remembered array's name: 409 naming name and zq_1" \
	[ "$CODE" = 409 -a "$(jfield 'j["error"]["field"], "the name of job array \"zq_1\"" in j["error"]["message"]')" = "name True" ]
req GET /v1/jobs/zq_0
check "... all or nothing: zq_0 not submitted" [ "$CODE" = 404 ]
req DELETE /v1/jobs/zq_1
check "... and cancel zq_1 cancels the array zq_1 (its task zq_1_0)" [ "$CODE" = 200 -a "$(jfield '",".join(j["cancelled"])')" = "zq_1_0" ]
req POST /v1/jobs '{"queue":"llm","tasks":[{"gpus":1}]}'
k=$(jfield 'j["name"]')
k=${k#job-}
req DELETE "/v1/jobs/job-$k"
req POST /v1/jobs "{\"name\":\"job-$((k + 1))_0\",\"queue\":\"llm\",\"tasks\":[{\"gpus\":1}]}"
req POST /v1/jobs '{"queue":"llm","tasks":[{"gpus":1}],"array":"0-1"}'
check "an unnamed array while a job is named job-$((k + 1))_0: 201, the array job-$((k + 2)) (the taken name skipped)" \
	[ "$CODE" = 201 -a "$(jfield 'j["arrayOf"]')" = "job-$((k + 2))" ]
req POST /v1/jobs '{"queue":"llm","tasks":[{"gpus":1}],"array":"0-1"}'
check "... and the next unnamed array: job-$((k + 3)) (the counter moves on)" \
	[ "$CODE" = 201 -a "$(jfield 'j["arrayOf"]')" = "job-$((k + 3))" ]
req DELETE "/v1/jobs/job-$((k + 2))"
req DELETE "/v1/jobs/job-$((k + 3))"
req DELETE "/v1/jobs/job-$((k + 1))_0"
# Leading zeros read through (Slurm reads 12_03 as task 3), both ways
req POST /v1/jobs '{"name":"lz","queue":"llm","tasks":[{"gpus":1}],"array":"0-1"}'
req POST /v1/jobs '{"name":"lz_01","queue":"llm","tasks":[{"gpus":1}]}'
check "a job named lz_01 while array lz is remembered: 409 naming name, the task it reads as (lz_1)" \
	[ "$CODE" = 409 -a "$(jfield 'j["error"]["field"], j["error"]["message"].startswith("\"lz_01\" reads as task 1 of job array \"lz\" (named \"lz_1\")")')" = "name True" ]
"$FW" jobs submit --queue llm --gpus 1 --name lz_007 "${C[@]}" >"$T/arr" 2>&1
check "fairway jobs submit --name lz_007: exit 2, the daemon's 409 naming name (--name) and the array" \
	bash -c "[ $? = 2 ] && grep -q '^fairway jobs: error: 409: field name (--name): \"lz_007\" reads as task 7 of job array \"lz\" (named \"lz_7\")' '$T/arr'"
req DELETE /v1/jobs/lz
req POST /v1/jobs '{"name":"cl_7","queue":"llm","tasks":[{"gpus":1}]}'
req POST /v1/jobs '{"name":"cl","queue":"llm","tasks":[{"gpus":1}],"array":"0-3"}'
check "an array cl (0-3) while a job of its own is named cl_7: 409 naming name and the job cl_7" \
	[ "$CODE" = 409 -a "$(jfield 'j["error"]["field"], j["error"]["message"].startswith("job \"cl_7\" exists and reads as task 7 of an array named \"cl\"")')" = "name True" ]
req GET /v1/jobs/cl_0
check "... all or nothing: cl_0 not submitted" [ "$CODE" = 404 ]
"$FW" jobs submit --queue llm --gpus 1 --name cl --array 0-1 "${C[@]}" >"$T/arr" 2>&1
check "fairway jobs submit --name cl --array 0-1: exit 2, the daemon's 409 naming the job cl_7 and what to do" \
	bash -c "[ $? = 2 ] && grep -q '^fairway jobs: error: 409: field name (--name): job \"cl_7\" exists and reads as task 7 of an array named \"cl\" .*give the array another name' '$T/arr'"
req DELETE /v1/jobs/cl_7
req POST /v1/jobs '{"name":"bad-arr","queue":"llm","tasks":[{"gpus":1}],"array":""}'
check "array \"\": 400 naming array, saying it is empty and what to write" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], "is empty" in j["error"]["message"], "0-99" in j["error"]["message"]')" = "array True True" ]
req POST /v1/jobs '{"name":"bad-arr","queue":"llm","tasks":[{"gpus":1}],"array":"1,,2"}'
check "array \"1,,2\": 400 quoting the whole list, saying item 2 is empty" \
	[ "$CODE" = 400 -a "$(jfield '"\"1,,2\": item 2 of the list is empty" in j["error"]["message"]')" = True ]
# the CLI's lines: the tasks as they are, runs of consecutive indices as FIRST .. LAST
"$FW" jobs submit --queue llm --gpus 1 --name cli1 --array 0 "${C[@]}" >"$T/arr" 2>&1
check "fairway jobs submit --array 0: '1 task (cli1_0)'" grep -qx 'submitted array cli1: 1 task (cli1_0)' "$T/arr"
"$FW" jobs submit --queue llm --gpus 1 --name ord2 --array 10,2,100,9 "${C[@]}" >"$T/arr" 2>&1
check "fairway jobs submit --array 10,2,100,9: each task named, ascending, no range implied" \
	grep -qx 'submitted array ord2: 4 tasks (ord2_2, ord2_9, ord2_10, ord2_100)' "$T/arr"
"$FW" jobs submit --queue llm --gpus 1 --name many --array 0-20:2 "${C[@]}" >"$T/arr" 2>&1
check "fairway jobs submit --array 0-20:2 (11 tasks): the first four, ... and the last" \
	grep -qx 'submitted array many: 11 tasks (many_0, many_2, many_4, many_6, ..., many_20)' "$T/arr"
"$FW" jobs submit --queue llm --gpus 1 --name mix --array 0-5 "${C[@]}" >/dev/null 2>&1
"$FW" jobs cancel mix_2 "${C[@]}" >/dev/null 2>&1
"$FW" jobs cancel mix "${C[@]}" >"$T/arr" 2>&1
check "fairway jobs cancel mix (mix_2 ended before): the tasks cancelled, mix_2 not among them" \
	grep -qx 'mix: cancelled 5 tasks of the array (mix_0, mix_1, mix_3 .. mix_5)' "$T/arr"
for a in cli1 ord2 many; do "$FW" jobs cancel $a "${C[@]}" >/dev/null 2>&1; done
"$FW" jobs submit --queue llm --gpus 1 --name tarr --array 0-3 --test-only "${C[@]}" >"$T/arr" 2>&1
rc=$?
check "fairway jobs submit --array with --test-only: exit 2, naming both flags" \
	bash -c "[ $rc = 2 ] && grep -q -- '--test-only and --array' '$T/arr'"
# A body an endpoint does not read is refused; a body's Content-Type is JSON's
req POST /v1/cycle 'garbage{'
check "POST /v1/cycle with a body: 400 naming body, saying to send none" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], "takes no body" in j["error"]["message"]')" = "body True" ]
req POST /v1/jobs '{"name":"body-keep","queue":"llm","tasks":[{"gpus":1}]}'
req DELETE /v1/jobs/body-keep '{"force":true}'
check "DELETE /v1/jobs/X with a body: 400 naming body" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = body ]
req GET /v1/jobs/body-keep
check "... and the job was not cancelled" [ "$CODE" = 200 -a "$(jfield 'j["state"] != "cancelled"')" = True ]
req DELETE /v1/jobs/body-keep
req POST "/v1/cycle?x=1"
check "POST /v1/cycle?x=1: 400 naming x, its input the path alone (no JSON body)" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], "its input is the path alone" in j["error"]["message"]')" = "x True" ]
ct=$(curl -s -o "$T/body" -w '%{http_code}' -X POST -H "Authorization: Bearer $TOKEN" -H 'Content-Type: text/plain' \
	--data-binary '{"name":"ct-plain","queue":"llm","tasks":[{"gpus":1}]}' "http://127.0.0.1:$PORT/v1/jobs")
BODY=$(cat "$T/body")
check "POST /v1/jobs with Content-Type: text/plain: 415 naming Content-Type, saying to send application/json" \
	[ "$ct" = 415 -a "$(jfield 'j["error"]["field"], "application/json" in j["error"]["message"]')" = "Content-Type True" ]
check "... and submitted nothing" [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/v1/jobs/ct-plain")" = 404 ]
ct=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "Authorization: Bearer $TOKEN" \
	-d '{"name":"ct-curl","queue":"llm","tasks":[{"gpus":1}]}' "http://127.0.0.1:$PORT/v1/jobs")
check "curl -d without a Content-Type of its own (application/x-www-form-urlencoded): read as JSON, 201" [ "$ct" = 201 ]
req DELETE /v1/jobs/ct-curl
# Every query parameter counts toward the 16, state and limit too, and
# none may be given twice (MHD would hand over the first value only).
q17="state=all&limit=1$(for i in $(seq 1 15); do printf '&p%d=1' "$i"; done)"
req GET "/v1/jobs?$q17"
check "GET /v1/jobs with 17 parameters, state and limit among them: 400 naming query (more than 16)" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], "more than 16" in j["error"]["message"]')" = "query True" ]
req GET "/v1/jobs?${q17%&p15=1}"
check "... 16 of them reach the endpoint, which names the first it does not take" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = p1 ]
req GET "/v1/jobs$(for i in $(seq 1 50); do printf '%slimit=1' "$([ "$i" = 1 ] && echo '?' || echo '&')"; done)"
check "GET /v1/jobs?limit=1&limit=1&... (50 times): 400 naming query and limit" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], j["error"]["message"]')" = "query parameter 'limit' given twice; give each once" ]
for qp in "queue=llm&queue=vision queue" "limit=1&limit=3 limit" "state=all&queue=llm&state=done state"; do
	req GET "/v1/jobs?${qp% *}"
	check "GET /v1/jobs?${qp% *}: 400, the parameter ${qp#* } given twice, not its first value taken" \
		[ "$CODE" = 400 -a "$(jfield "j['error']['field'], \"'${qp#* }' given twice\" in j['error']['message']")" = "query True" ]
done
req POST "/v1/jobs?dryRun=true&dryRun=false" '{"name":"qp-twice","queue":"llm","tasks":[{"gpus":1}]}'
check "POST /v1/jobs?dryRun=true&dryRun=false: 400 naming dryRun twice, nothing submitted" \
	[ "$CODE" = 400 -a "$(jfield "\"'dryRun' given twice\" in j['error']['message']")" = True ] &&
	check "... (it was not)" [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/v1/jobs/qp-twice")" = 404 ]
req GET "/v1/nodes?health=unhealthy,draining"
check "GET /v1/nodes?health=unhealthy,draining: one parameter with two values, still 200" [ "$CODE" = 200 ]
req GET "/v1/decisions?jobs=qp-typo"
check "GET /v1/decisions?jobs= (a typo of job): 400 naming jobs, not the whole log" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = jobs ]
req DELETE "/v1/queues/llm?force=1"
check "DELETE /v1/queues/llm?force=1: 400 naming force, the queue kept" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = force ] && req GET /v1/queues/llm && check "... (it is)" [ "$CODE" = 200 ]
"$FW" jobs submit --queue llm --gpus 1 --gpus 2 --name cli-last "${C[@]}" >/dev/null 2>&1
req GET /v1/jobs/cli-last
check "a flag given twice: the last one counts (--gpus 1 --gpus 2: 2 GPUs)" [ "$(jfield 'j["gpus"]')" = 2 ]
"$FW" jobs submit --queue llm --gpus 1 --gpu-fraction 0.5 --name cli-half --json "${C[@]}" >"$T/half" 2>&1
check "fairway jobs submit --gpu-fraction 0.5: half of one GPU" \
	python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["tasks"][0]; sys.exit(not (t["gpus"] == 1 and t["gpuFraction"] == 0.5))' "$T/half"
"$FW" jobs list --queue llm "${C[@]}" >"$T/half" 2>&1
check "fairway jobs: the half-GPU job's GPUS is 0.5 (as fairway plan counts it), a whole one's 2, without decimals" \
	bash -c "grep -Eq '^cli-half +llm +[^ ]+ +[a-z]+ +0\.5 ' '$T/half' && grep -Eq '^cli-last +llm +[^ ]+ +[a-z]+ +2 ' '$T/half'"
req GET /v1/jobs/cli-half
check "... from the API's gpuAmount 0.5 (gpus: the 1 GPU it touches); a job of whole GPUs has none" \
	[ "$(jfield 'j["gpus"], j["gpuAmount"]')" = "1 0.5" -a "$(curl -s "http://127.0.0.1:$PORT/v1/jobs/cli-last" |
		python3 -c 'import json, sys; print("gpuAmount" in json.load(sys.stdin))')" = False ]
"$FW" jobs why cli-half "${C[@]}" >"$T/half" 2>&1
check "... and fairway jobs why says 0.5 GPU" grep -q '^job cli-half  (queue llm, user [^,]*, 0\.5 GPU, ' "$T/half"
req DELETE /v1/jobs/cli-last
req DELETE /v1/jobs/cli-half
"$FW" jobs submit --queue llm --gpus 1 --runtime 1h --checkpoint-interval 1.5m --name cli-dur "${C[@]}" >/dev/null 2>&1
req GET /v1/jobs/cli-dur
check "fairway jobs submit --runtime 1h --checkpoint-interval 1.5m: 3600 s and 90 s" \
	[ "$(jfield 'j["runtime"], j["checkpointInterval"]')" = "3600 90" ]
req DELETE /v1/jobs/cli-dur
"$FW" reservations create --kind maintenance --nodes h100-008,h100-009 --start +100d --end +101d --id cli-rsv \
	--reason 'BIOS update' "${C[@]}" >/dev/null 2>&1
"$FW" reservations "${C[@]}" >"$T/rsv" 2>&1
check "fairway reservations: NODES comma-separated, as --nodes takes them" grep -q '^cli-rsv .* h100-008,h100-009$' "$T/rsv"
"$FW" reservations --json "${C[@]}" >"$T/rsvj" 2>&1
check "fairway reservations --json: nodes still a JSON array" python3 -c '
import json, sys
r = [x for x in json.load(open(sys.argv[1]))["reservations"] if x["id"] == "cli-rsv"]
sys.exit(not (r and r[0]["nodes"] == ["h100-008", "h100-009"]))' "$T/rsvj"
"$FW" reservations show cli-rsv "${C[@]}" >"$T/rsvs" 2>&1
check "fairway reservations show: in words: kind, for, start and end relative as the list has them (in hours, as the plan, never days), nodes, reason" \
	bash -c "grep -qx 'reservation: cli-rsv' '$T/rsvs' && grep -qx 'kind: maintenance' '$T/rsvs' && grep -qx 'for: -' '$T/rsvs' &&
		grep -Eq '^start: in (2399h59m|2400h00m) \([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z\)$' '$T/rsvs' && grep -Eq '^end: in (2423h59m|2424h00m) \([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z\)$' '$T/rsvs' &&
		grep -qx 'nodes: h100-008,h100-009' '$T/rsvs' && grep -qx 'reason: BIOS update' '$T/rsvs'"
"$FW" reservations show cli-rsv --json "${C[@]}" >"$T/rsvsj" 2>&1
check "fairway reservations show --json: the API's JSON (the default is words, not JSON)" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
try:
    json.load(open(sys.argv[2])); words = False
except ValueError:
    words = True
sys.exit(not (words and r["id"] == "cli-rsv" and r["reason"] == "BIOS update" and r["nodes"] == ["h100-008", "h100-009"]))' "$T/rsvsj" "$T/rsvs"
req DELETE /v1/reservations/cli-rsv
req POST /v1/jobs '{"name":"real-gpus","queue":"llm","runtime":60.0,"tasks":[{"gpus":1.0,"count":1.0}]}'
check "the API takes 1.0 as a whole number (201)" [ "$CODE" = 201 -a "$(jfield 'j["tasks"][0]["gpus"]')" = 1 ]
req DELETE /v1/jobs/real-gpus
"$FW" jobs submit --queue llm --gpus 2 --gpu-fraction 0.5 "${C[@]}" 2>"$T/err"
check "a rejected submit exits 2 and names the field" bash -c "[ $? -eq 2 ] && grep -q 'tasks\[0\].gpuFraction' '$T/err'"
"$FW" jobs submit --queue llm --gpus 1 --gpu-fraction 2 "${C[@]}" 2>"$T/err"
check "--gpu-fraction past the daemon's range: the client says the range (exit 2)" \
	bash -c "[ $? -eq 2 ] && grep -q -- '--gpu-fraction 2: must be from 0.001 to 1' '$T/err'"
"$FW" jobs submit --queue llm --gpus 99 "${C[@]}" 2>"$T/err"
check "--gpus past the daemon's range: the client says the range (exit 2)" \
	bash -c "[ $? -eq 2 ] && grep -q -- '--gpus 99: must be from 0 to 16' '$T/err'"
# The client's ranges are the daemon's (connectors/serve/api_ranges.h): a
# value just past a bound is refused by both, the client naming the flag
# and the daemon the member, and both state the same range.
same_range() { # same_range FIELD METHOD PATH BODY -- CLIENT-ARGS...
	local field=$1 method=$2 path=$3 body=$4 out cr dr
	shift 5
	out=$("$FW" "$@" "${C[@]}" 2>&1)
	cr=$(sed -n 's/.*: must be from \(-\{0,1\}[0-9]*\) to \([0-9]*\).*/\1 \2/p' <<<"$out")
	req "$method" "$path" "$body"
	dr=$(jfield 'j["error"]["message"]' | sed -n 's/^must be between \(-\{0,1\}[0-9]*\) and \([0-9]*\)$/\1 \2/p')
	check "client and daemon refuse $field past its bound with one range (${cr:-none} / ${dr:-none})" \
		[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = "$field" -a -n "$cr" -a "$cr" = "$dr" ]
}
same_range tasks[0].gpus POST /v1/jobs '{"queue":"llm","tasks":[{"gpus":17}]}' -- jobs submit --queue llm --gpus 17
same_range tasks[0].count POST /v1/jobs '{"queue":"llm","tasks":[{"gpus":1,"count":100001}]}' -- \
	jobs submit --queue llm --gpus 1 --count 100001
same_range tasks[0].memory POST /v1/jobs '{"queue":"llm","tasks":[{"gpus":1,"memory":1000000000001}]}' -- \
	jobs submit --queue llm --gpus 1 --memory 1000000000001
same_range priority POST /v1/jobs '{"queue":"llm","priority":1000001,"tasks":[{"gpus":1}]}' -- \
	jobs submit --queue llm --gpus 1 --priority 1000001
same_range exitCode POST /v1/jobs '{"queue":"llm","exitCode":256,"tasks":[{"gpus":1}]}' -- \
	jobs submit --queue llm --gpus 1 --exit-code 256
same_range runtime POST /v1/jobs '{"queue":"llm","runtime":31536001,"tasks":[{"gpus":1}]}' -- \
	jobs submit --queue llm --gpus 1 --runtime 31536001
same_range priority POST /v1/queues '{"name":"rangeq","priority":-1000001}' -- queues create rangeq --priority -1000001
same_range defaultRuntime POST /v1/queues '{"name":"rangeq","defaultRuntime":31536001}' -- \
	queues create rangeq --default-runtime 31536001
same_range maxRuntime POST /v1/queues '{"name":"rangeq","maxRuntime":31536001}' -- \
	queues create rangeq --max-runtime 31536001
same_range maxRuntime POST /v1/jobs '{"queue":"llm","maxRuntime":31536001,"tasks":[{"gpus":1}]}' -- \
	jobs submit --queue llm --gpus 1 --max-runtime 31536001
# numbers that may be fractions too: both ranges in plain digits (not 1e+06)
same_range deserved.gpu POST /v1/queues '{"name":"rangeq","deserved":{"gpu":-5}}' -- queues create rangeq --deserved-gpus -5
same_range limit.gpu POST /v1/queues '{"name":"rangeq","limit":{"gpu":1000001}}' -- \
	queues create rangeq --limit-gpus 1000001
same_range overQuotaWeight.gpu POST /v1/queues '{"name":"rangeq","overQuotaWeight":{"gpu":-1}}' -- \
	queues create rangeq --weight -1
same_range tasks[0].cpu POST /v1/jobs '{"queue":"llm","tasks":[{"gpus":1,"cpu":-1}]}' -- \
	jobs submit --queue llm --gpus 1 --cpu -1
# The job fields that have a flag each reach the daemon as the API spells
# them (--no-preemptible, --spread, --min-member, the two levels, --priority):
# its answer to the POST (GET /v1/jobs/NAME shows neither of the first four)
"$FW" jobs submit --queue llm --gpus 1 --count 2 --min-member 1 --no-preemptible --spread --priority 7 \
	--required-level block --preferred-level rack --runtime 60 --name cli-flags --json "${C[@]}" >"$T/flags" 2>&1
check "fairway jobs submit --no-preemptible --spread --min-member 1 --priority 7 --required-level block --preferred-level rack: the job's fields" \
	python3 -c 'import json, sys; j = json.load(open(sys.argv[1]))
sys.exit((j["preemptible"], j["spread"], j["minMember"], j["priority"], j["requiredLevel"], j["preferredLevel"]) != (False, True, 1, 7, "block", "rack"))' "$T/flags"
"$FW" jobs submit --queue llm --gpus 1 --runtime 60 --preemptible --name cli-pre --json "${C[@]}" >"$T/flags" 2>&1
check "... --preemptible: preemptible, as without it (the API's default)" \
	python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["preemptible"] is not True)' "$T/flags"
req DELETE /v1/jobs/cli-flags
req DELETE /v1/jobs/cli-pre
"$FW" jobs submit --queue llm --gpus 1 --preferred-level galaxy --test-only "${C[@]}" >"$T/flags" 2>&1
check "... --preferred-level galaxy: exit 2, the daemon's 400 naming preferredLevel and the cluster's levels" \
	bash -c "[ $? -eq 2 ] && grep -qF 'field preferredLevel (--preferred-level): \"galaxy\" is not a topology level of this cluster (its levels: block, rack, nvlink)' '$T/flags'"
same_range minMember POST /v1/jobs '{"queue":"llm","minMember":1000001,"tasks":[{"gpus":1}]}' -- \
	jobs submit --queue llm --gpus 1 --min-member 1000001
"$FW" queues create cliq --parent product --deserved-gpus 7 "${C[@]}" >"$T/qcreate" 2>&1
check "fairway queues create of a new queue: NAME: created" grep -qx 'cliq: created' "$T/qcreate"
"$FW" queues create cliq --parent product --deserved-gpus 2 --weight 3 --priority 5 "${C[@]}" >"$T/qcreate" 2>&1
check "... of an existing one: says it replaced it, the settings not given back to their defaults, and that set changes only some" \
	grep -qx "cliq: replaced: the queue existed, and every setting not given took its default; \`fairway queues show cliq\` shows it now; \`fairway queues set\` changes only the flags given" "$T/qcreate"
"$FW" queues create cli-top --parent product "${C[@]}" >/dev/null 2>&1
"$FW" queues create cli-top "${C[@]}" >"$T/qcreate" 2>&1
check "... and, given no parent, that the queue is now top-level" grep -q '^cli-top: replaced: .*default (no parent given: now top-level); ' "$T/qcreate"
req DELETE /v1/queues/cli-top
"$FW" queues set cliq --limit-gpus 8 "${C[@]}" >"$T/qset" 2>&1
check "fairway queues set: NAME: saved" grep -qx 'cliq: saved' "$T/qset"
req GET /v1/queues/cliq
check "fairway queues set changes only the flags given (parent, quota, weight, priority kept)" \
	[ "$(jfield 'j.get("parent"), j["deserved"]["gpu"], j["limit"]["gpu"], j["overQuotaWeight"]["gpu"], j["priority"]')" = "product 2.0 8.0 3.0 5" ]
"$FW" queues set no-such-queue --limit-gpus 8 "${C[@]}" >/dev/null 2>"$T/err"
check "fairway queues set of an unknown queue: exit 2, says so" bash -c "[ $? -eq 2 ] && grep -q 'no queue named' '$T/err'"
check "fairway queues --help says set changes only the flags given" bash -c "'$FW' queues --help | grep -q 'changes only'"
"$FW" queues set cliq --default-runtime 2h --min-runtime 1m --default-checkpoint-interval 1d "${C[@]}" >/dev/null 2>&1
req GET /v1/queues/cliq
check "fairway queues set takes durations: --default-runtime 2h --min-runtime 1m --default-checkpoint-interval 1d" \
	[ "$(jfield 'j["defaultRuntime"], j["minRuntime"], j["defaultCheckpointInterval"]')" = "7200 60 86400" ]
check "a queue is preemptible unless said otherwise (no \"preemptible\" in its document)" \
	[ "$(jfield '"preemptible" in j')" = False ]
"$FW" queues set cliq --preemptible false "${C[@]}" >/dev/null 2>&1
req GET /v1/queues/cliq
check "fairway queues set --preemptible false: the queue says \"preemptible\": false, the rest kept" \
	[ "$(jfield 'j["preemptible"], j["minRuntime"], j["limit"]["gpu"]')" = "False 60 8.0" ]
req PATCH /v1/queues/cliq '{"preemptible":"no"}'
check "\"preemptible\": \"no\": 400 naming preemptible" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = preemptible ]
"$FW" queues set cliq --preemptible true "${C[@]}" >/dev/null 2>&1
req GET /v1/queues/cliq
check "fairway queues set --preemptible true: back to the default" [ "$(jfield 'j.get("preemptible", True)')" = True ]
# GPU model limits: set by the CLI, shown in the document and the listing,
# a misspelt model refused with nothing changed, a job held by the limit
"$FW" queues set cliq --gpu-model-limits H100=4,A100=2.5 "${C[@]}" >/dev/null 2>&1
req GET /v1/queues/cliq
check "fairway queues set --gpu-model-limits H100=4,A100=2.5: in the document, the rest kept" \
	[ "$(jfield 'j["gpuModelLimits"], j["minRuntime"]')" = "{'H100': 4.0, 'A100': 2.5} 60" ]
check "fairway queues list shows them" bash -c "'$FW' queues list ${C[*]} | grep -q '^cliq .*H100=4,A100=2.5$'"
"$FW" queues show cliq "${C[@]}" >"$T/qshow" 2>&1
check "fairway queues show cliq: in words: parent, deserved, limit, weight, priority, runtimes, model limits, no children" \
	bash -c "grep -qx 'parent: product' '$T/qshow' && grep -qx 'deserved GPUs: 2' '$T/qshow' && grep -qx 'limit GPUs: 8' '$T/qshow' &&
		grep -qx 'weight: 3' '$T/qshow' && grep -qx 'priority: 5' '$T/qshow' && grep -qx 'minRuntime: 1m' '$T/qshow' &&
		grep -qx 'maxRuntime: none' '$T/qshow' && grep -qx 'GPU model limits: H100=4,A100=2.5' '$T/qshow' &&
		grep -qx 'GPU-hour budget: none (used [0-9.e+-]*)' '$T/qshow' && grep -qx 'children: none (a leaf queue: jobs are submitted to it)' '$T/qshow'"
"$FW" queues show product "${C[@]}" >"$T/qshowp" 2>&1
req GET /v1/queues
kids=$(jfield '" ".join(q["name"] for q in j["queues"] if q.get("parent") == "product")')
check "fairway queues show product: the last plan's fair share, allocated and demand; its children ($kids)" \
	bash -c "grep -Eq '^fair share: [0-9.]+ GPUs \(guaranteed [0-9.]+, over quota [0-9.]+\)' '$T/qshowp' &&
		grep -Eqx 'allocated: [0-9.]+ GPUs' '$T/qshowp' && grep -Eqx 'demand: [0-9.]+ GPUs' '$T/qshowp' &&
		grep -qx 'children: $kids' '$T/qshowp' && [[ ' $kids ' == *' cliq '* ]] && grep -qx 'parent: - (a top-level queue)' '$T/qshowp'"
for c in queues nodes reservations; do
	"$FW" $c show nosuch "${C[@]}" >/dev/null 2>"$T/err"
	check "fairway $c show nosuch: exit 2, says where the names are" \
		bash -c "[ $? -eq 2 ] && grep -q ' (\`fairway $c list\` lists them)\$' '$T/err'"
done
"$FW" jobs show nosuch "${C[@]}" >/dev/null 2>"$T/err"
check "fairway jobs show nosuch: exit 2, says where the names are" \
	bash -c "[ $? -eq 2 ] && grep -q ' (\`fairway jobs list --state all\` lists them)\$' '$T/err'"
# GET /v1/queues/NAME carries the last plan's figures and the children, so
# that `queues show` reads settings, figures and children of one moment in
# one GET (it made three: /v1/queues/NAME, /v1/fairshare, /v1/queues)
req GET /v1/queues/product
check "GET /v1/queues/product: its children, as the listing's parents say ($kids)" \
	[ "$(jfield '" ".join(j["children"])')" = "$kids" ]
same_fs=no # two GETs: a cycle between them may move the figures; tries find two of one plan
for _ in $(seq 30); do # (10 were too few on a loaded machine: a cycle a second, a try ~1 s)
	req GET /v1/queues/product
	qf=$(jfield 'sorted(j["fairshare"].items())')
	req GET /v1/fairshare
	[ "$qf" = "$(jfield 'sorted(dict(next(q for q in j["queues"] if q["queue"] == "product"), at=j["at"]).items())')" ] &&
		same_fs=yes && break
done
[[ $qf == *"('at', "[0-9]* ]] && same_fs+=-at
check "GET /v1/queues/product: \"fairshare\" is its GET /v1/fairshare entry with the plan's \"at\"" \
	[ "$same_fs" = yes-at ]
req GET /v1/queues/cliq
check "GET /v1/queues/cliq: a leaf, no children" [ "$(jfield 'j["children"]')" = "[]" ]
stats_requests() { curl -s "http://127.0.0.1:$PORT/v1/stats" | python3 -c 'import json,sys; print(json.load(sys.stdin)["api"]["requests"])'; }
r0=$(stats_requests); r1=$(stats_requests)
"$FW" queues show product "${C[@]}" >"$T/qshow1" 2>&1
r2=$(stats_requests)
check "fairway queues show: one GET (requests between two stats reads: $((r1 - r0)), with a show between: $((r2 - r1)))" \
	[ $((r2 - r1)) -eq $((r1 - r0 + 1)) ]
check "fairway queues show: the figures say the plan they are of" \
	grep -Eq '^fair share: [0-9.]+ GPUs \(guaranteed [0-9.]+, over quota [0-9.]+\) as of the last plan \((now|[0-9a-z]+ ago)\);' "$T/qshow1"
req PATCH /v1/queues/cliq '{"gpuModelLimits":{"h100":3}}'
check "a limit on h100 is a limit on the fleet's H100 (one entry, changed, in the fleet's spelling)" \
	[ "$CODE" = 200 -a "$(jfield 'j["gpuModelLimits"]')" = "{'H100': 3.0, 'A100': 2.5}" ]
req PATCH /v1/queues/cliq '{"gpuModelLimits":{"H10":4}}'
check "a limit on a model no node has: 400 naming gpuModelLimits.H10" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = gpuModelLimits.H10 ] &&
	check "... naming the model it is a typo of, and the models there are" \
		grep -q 'no node has GPU model \\"H10\\" (did you mean \\"H100\\"?).*H100' <<<"$BODY"
req PATCH /v1/queues/cliq '{"gpuModelLimits":{"h100":4}}'
req GET /v1/queues/cliq
check "... and the queue keeps its limits" [ "$(jfield 'j["gpuModelLimits"]')" = "{'H100': 4.0, 'A100': 2.5}" ]
"$FW" queues set cliq --gpu-model-limits H100 "${C[@]}" >/dev/null 2>"$T/err"
check "fairway queues set --gpu-model-limits H100: exit 2, showing the form" \
	bash -c "[ $? -eq 2 ] && grep -q 'expected MODEL=GPUS pairs' '$T/err'"
req POST /v1/jobs '{"name":"h100-eight","queue":"cliq","tasks":[{"gpus":8,"gpuModel":"H100"}]}'
req POST /v1/cycle
job_is "a job over its queue's H100 limit waits, the reason naming the queue and the limit" h100-eight \
	'j["state"] == "pending" and j["reason"] == "model_limit" and "queue cliq 4 GPUs over its limit of 4 H100 GPUs" in j["reasonText"]'
req GET /v1/fairshare
check "GET /v1/fairshare: cliq's limits, each with the GPUs of its model held" \
	[ "$(jfield '[q["gpuModelLimits"] for q in j["queues"] if q["queue"] == "cliq"][0]')" = "[{'model': 'H100', 'limit': 4.0, 'allocated': 0.0}, {'model': 'A100', 'limit': 2.5, 'allocated': 0.0}]" ]
check "/metrics: fairway_queue_gpu_model_limit_gpus per queue and model" bash -c \
	"curl -s http://127.0.0.1:$PORT/metrics | grep -q '^fairway_queue_gpu_model_limit_gpus{queue=\"cliq\",model=\"A100\"} 2.500$'"
req DELETE /v1/jobs/h100-eight
"$FW" queues set cliq --gpu-model-limits A100=none,H100=6 "${C[@]}" >/dev/null 2>&1
req GET /v1/queues/cliq
check "fairway queues set --gpu-model-limits A100=none,H100=6: one lifted, one changed" \
	[ "$(jfield 'j["gpuModelLimits"]')" = "{'H100': 6.0}" ]
"$FW" queues set cliq --gpu-model-limits none "${C[@]}" >/dev/null 2>&1
req GET /v1/queues/cliq
check "fairway queues set --gpu-model-limits none lifts them" [ "$(jfield '"gpuModelLimits" in j')" = False ]
"$FW" queues set cliq --gpu-model-limits H100=8,A100=none "${C[@]}" >"$T/out" 2>&1
rc=$?
req GET /v1/queues/cliq
check "fairway queues set --gpu-model-limits H100=8,A100=none on a queue without model limits: A100=none is a no-op (RFC 7396)" \
	[ "$rc" = 0 -a "$(jfield 'j["gpuModelLimits"]')" = "{'H100': 8.0}" ]
req PATCH /v1/queues/cliq '{"gpuModelLimits":null}'
# deserved GPUs of a model: which models cliq's 2 deserved GPUs are; set by the
# CLI and by PATCH, shown in the document, the listing, /v1/fairshare and
# /metrics; a misspelt model and entries over deserved.gpu refused, nothing changed
"$FW" queues set cliq --gpu-model-deserved H100=1.5,A100=0.5 "${C[@]}" >/dev/null 2>&1
req GET /v1/queues/cliq
check "fairway queues set --gpu-model-deserved H100=1.5,A100=0.5: in the document, the rest kept" \
	[ "$(jfield 'j["gpuModelDeserved"], j["deserved"]["gpu"], j["minRuntime"]')" = "{'H100': 1.5, 'A100': 0.5} 2.0 60" ]
check "fairway queues list shows them (DESERVED BY MODEL)" bash -c \
	"'$FW' queues list ${C[*]} | grep -q '^cliq .* H100=1.5,A100=0.5 *-$'"
check "fairway queues --help teaches --gpu-model-deserved" bash -c \
	"'$FW' queues --help | grep -q -- '--gpu-model-deserved H100=16 (which models its'"
req PATCH /v1/queues/cliq '{"gpuModelDeserved":{"A100":null,"B300":0.5}}'
check "deserved GPUs of a model no node has: 400 naming gpuModelDeserved.B300" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = gpuModelDeserved.B300 ] &&
	check "... saying the models there are" grep -q 'no node has GPU model \\"B300\\", so.*H100' <<<"$BODY"
req PATCH /v1/queues/cliq '{"gpuModelDeserved":{"H100":2}}'
check "entries summing to more than deserved.gpu (2.5 of 2): 400 naming gpuModelDeserved" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = gpuModelDeserved ] &&
	check "... saying the sum, the deserved GPUs and what to do" \
		grep -q "sum to 2.500, more than the queue's deserved.gpu 2.000.*raise deserved.gpu or lower the entries" <<<"$BODY"
req PATCH /v1/queues/cliq '{"deserved":{"gpu":1}}'
check "lowering deserved.gpu under the entries: 400 naming gpuModelDeserved" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = gpuModelDeserved ]
req GET /v1/queues/cliq
check "... and the queue keeps its entries and its deserved GPUs" \
	[ "$(jfield 'j["gpuModelDeserved"], j["deserved"]["gpu"]')" = "{'H100': 1.5, 'A100': 0.5} 2.0" ]
req PATCH /v1/queues/cliq '{"gpuModelDeserved":{"A100":null,"H100":2}}'
check "PATCH gpuModelDeserved {A100: null, H100: 2}: one removed, one changed" \
	[ "$CODE" = 200 -a "$(jfield 'j["gpuModelDeserved"]')" = "{'H100': 2.0}" ]
req POST /v1/cycle
req GET /v1/fairshare
check "GET /v1/fairshare: cliq's deserved GPUs of a model, with the GPUs of it held" \
	[ "$(jfield '[q["gpuModelDeserved"] for q in j["queues"] if q["queue"] == "cliq"][0]')" = "[{'model': 'H100', 'deserved': 2.0, 'allocated': 0.0}]" ]
curl -s "http://127.0.0.1:$PORT/metrics" >"$T/metrics-deserved"
check "/metrics: fairway_queue_gpu_model_deserved_gpus per queue and model, with its help" bash -c \
	"grep -qx 'fairway_queue_gpu_model_deserved_gpus{queue=\"cliq\",model=\"H100\"} 2.000' '$T/metrics-deserved' &&
	 grep -q '^# HELP fairway_queue_gpu_model_deserved_gpus GPUs of the model' '$T/metrics-deserved'"
check "... and fairway_queue_gpu_model_allocated_gpus for the model it deserves" \
	grep -qx 'fairway_queue_gpu_model_allocated_gpus{queue="cliq",model="H100"} 0.000' "$T/metrics-deserved"
"$FW" queues set cliq --gpu-model-deserved H100 "${C[@]}" >/dev/null 2>"$T/err"
check "fairway queues set --gpu-model-deserved H100: exit 2, showing the form" \
	bash -c "[ $? -eq 2 ] && grep -q 'gpu-model-deserved .H100.: expected MODEL=GPUS pairs' '$T/err'"
req PUT /v1/queues/cliq '{"parent":"product","deserved":{"gpu":2},"gpuModelDeserved":{"A100":2}}'
check "PUT with gpuModelDeserved {A100: 2}: replaces them" \
	[ "$CODE" = 200 -a "$(jfield 'j["gpuModelDeserved"]')" = "{'A100': 2.0}" ]
"$FW" queues set cliq --gpu-model-deserved none "${C[@]}" >/dev/null 2>&1
req GET /v1/queues/cliq
check "fairway queues set --gpu-model-deserved none removes them" [ "$(jfield '"gpuModelDeserved" in j')" = False ]
req DELETE /v1/queues/cliq

# --- a NAME in a URL path is one segment, and a name -------------------------------------------
req PUT /v1/queues/keep-me '{"parent":"product"}'
"$FW" jobs cancel ../queues/keep-me "${C[@]}" >/dev/null 2>"$T/err"
rc=$?
req GET /v1/queues/keep-me
check "fairway jobs cancel ../queues/keep-me does not delete the queue" [ "$CODE" = 200 ]
check "... its NAME goes as one encoded segment, which the daemon refuses: exit 2, field name" \
	bash -c "[ $rc -eq 2 ] && grep -q 'error: 400: field name: \"..%2Fqueues%2Fkeep-me\" in the URL path is not a name' '$T/err'"
"$FW" queues delete .. "${C[@]}" >/dev/null 2>"$T/err"
check "fairway queues delete ..: 400 naming name, saying why" \
	bash -c "[ $? -eq 2 ] && grep -q 'field name: .*must not be \"..\"' '$T/err'"
for p in /v1/queues/.. /v1/queues/. /v1/jobs/%2E%2E /v1/jobs/a%2Fb /v1/reservations/a%00b /v1/jobs/a%20b \
	/v1/jobs/$(printf 'x%.0s' $(seq 64)); do
	CODE=$(curl -s --path-as-is -o "$T/body" -w '%{http_code}' -X DELETE -H "Authorization: Bearer $TOKEN" \
		"http://127.0.0.1:$PORT$p")
	BODY=$(cat "$T/body")
	check "DELETE ${p:0:30}: 400 naming name" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = name ]
done
CODE=$(curl -s -o "$T/body" -w '%{http_code}' "http://127.0.0.1:$PORT/v1/nodes/h100-000%2Fhealth")
check "GET /v1/nodes/h100-000%2Fhealth: an encoded / stays in its segment (400), not another route" [ "$CODE" = 400 ]
req GET /v1/queues/keep-me
check "... and none of them deleted anything" [ "$CODE" = 200 ]
for doc in '{"name":".."}' '{"name":"."}'; do
	req POST /v1/queues "$doc"
	check "POST /v1/queues $doc: 400 naming name" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = name ]
done
req POST /v1/reservations "{\"id\":\"..\",\"kind\":\"maintenance\",\"nodes\":[\"h100-000\"],\"start\":$((now + 90000)),\"end\":$((now + 90060))}"
check "a reservation with id \"..\": 400 naming id" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = id ]
"$FW" queues create v1.2 --parent product "${C[@]}" >/dev/null 2>&1
"$FW" queues show v1.2 --json "${C[@]}" >"$T/dot" 2>&1
check "a name with dots still works through the client (encoded, decoded by the daemon)" grep -q '"name": "v1.2"' "$T/dot"
"$FW" queues show v1.2 "${C[@]}" >"$T/dotw" 2>&1
check "fairway queues show --json: the API's JSON; without it, words (queue: v1.2), not JSON" \
	bash -c "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' '$T/dot' && grep -qx 'queue: v1.2' '$T/dotw' &&
		! python3 -c 'import json,sys; json.load(open(sys.argv[1]))' '$T/dotw' 2>/dev/null"
"$FW" queues delete v1.2 "${C[@]}" >/dev/null 2>&1
"$FW" queues delete keep-me "${C[@]}" >/dev/null 2>&1
req GET /v1/queues/keep-me
check "fairway queues delete keep-me: gone (404)" [ "$CODE" = 404 ]

"$FW" plan --server "http://127.0.0.1:$PORT" >"$T/plan" 2>&1
check "fairway plan --server prints the daemon's plan" grep -q "^WAITING" "$T/plan"
# the decision log: GET /v1/decisions and fairway decisions
req GET "/v1/decisions?kind=start&limit=100000"
check "GET /v1/decisions?kind=start: the log's starts, oldest first" \
	[ "$(jfield 'len(j["decisions"]) > 3 and all(d["kind"] == "start" and d["job"] for d in j["decisions"]) and [d["at"] for d in j["decisions"]] == sorted(d["at"] for d in j["decisions"]) and "truncated" not in j')" = True ]
first=$(jfield 'j["decisions"][0]["job"]')
"$FW" decisions --kind start --limit 2 --json "${C[@]}" >"$T/dec2" 2>&1
check "fairway decisions --kind start --limit 2 --json: the last two starts, truncated" \
	python3 -c 'import json, sys; o = json.load(open(sys.argv[1])); last = json.loads(sys.argv[2])["decisions"][-2:]
assert o["truncated"] is True and o["decisions"] == last, o' "$T/dec2" "$BODY"
"$FW" decisions --job "$first" --since 1d "${C[@]}" >"$T/decjob" 2>&1
check "fairway decisions --job $first --since 1d: a table of that job's rows (its start among them)" \
	bash -c "head -1 '$T/decjob' | grep -q '^WHEN .*KIND .*JOB/NODE .*WHAT' && grep -q ' start  *$first  *started: ' '$T/decjob' && ! tail -n +2 '$T/decjob' | grep -v ' $first ' | grep -q ."
rc=0
"$FW" decisions --job no-such-job --kind evict "${C[@]}" >"$T/decnone" 2>"$T/decnone.err" || rc=$?
check "fairway decisions matching nothing: exit 0, the header, and stderr names the filters that matched nothing" \
	bash -c "[ $rc = 0 ] && [ \"\$(wc -l <'$T/decnone')\" = 1 ] && grep -qxF 'fairway decisions: nothing listed: no decision matches --job no-such-job --kind evict; widen --since or drop a filter' '$T/decnone.err'"
# fairway jobs cancel NAME...: each in turn (as scancel), the first failure's exit status
"$FW" jobs submit --queue llm --gpus 1 --name cx1 "${C[@]}" >/dev/null 2>&1
"$FW" jobs submit --queue llm --gpus 1 --name cx2 "${C[@]}" >/dev/null 2>&1
rc=0
"$FW" jobs cancel cx1 no-such-job cx2 "${C[@]}" >"$T/cx" 2>"$T/cx.err" || rc=$?
check "fairway jobs cancel cx1 no-such-job cx2: both cancelled, the missing one named, exit 2" \
	bash -c "[ $rc = 2 ] && [ \"\$(cat '$T/cx')\" = \"\$(printf 'cx1: cancelled\ncx2: cancelled')\" ] && grep -q 'no job named \"no-such-job\"' '$T/cx.err'"
req GET /v1/jobs/cx2
check "... and cx2 is cancelled in the daemon" [ "$(jfield 'j["state"]')" = cancelled ]
rc=0
"$FW" jobs cancel cx1 "${C[@]}" >"$T/cx" 2>"$T/cx.err" || rc=$?
check "fairway jobs cancel of a cancelled job: exit 2, nothing on stdout, the daemon's words on stderr" \
	bash -c "[ $rc = 2 ] && [ ! -s '$T/cx' ] && grep -q '^fairway jobs: error: 409: field name: job \"cx1\" has already ended (cancelled at .*Z): there is nothing to cancel' '$T/cx.err'"
"$FW" decisions --kind begin "${C[@]}" >"$T/decbad" 2>&1
check "fairway decisions --kind begin: refused naming kind" grep -q "field kind (--kind): \"begin\" is not a kind: must be start, evict, timeout, reserve, drain or requeue" "$T/decbad"
"$FW" nodes "${C[@]}" >"$T/n" 2>&1
check "fairway nodes shows the unhealthy node" grep -q "h100-015.*UNHEALTHY" "$T/n"
post_health h100-013 '{"healthy":true,"reason":"healthy: bad GPUs 2","badGpus":[2]}'
node_is "a healthy report with a bad GPU: badGpus [2], still healthy" h100-013 'j["badGpus"] == [2] and j["healthy"]'
"$FW" nodes "${C[@]}" >"$T/n16" 2>&1
check "fairway nodes: a healthy node with a bad GPU is degraded, the GPU in BAD, the report's reason in REASON" \
	grep -Eq "^h100-013 .* degraded +2 +healthy: bad GPUs 2" "$T/n16"
check "fairway nodes: a node without bad GPUs is healthy, with no bad GPU and no reason (-)" grep -Eq "^h100-000 .* healthy +- +-$" "$T/n16"
check "fairway nodes: HEALTH, BAD and REASON are columns of their own" grep -Eq "^NODE .* HEALTH +BAD +REASON$" "$T/n16"
"$FW" nodes show h100-013 "${C[@]}" >"$T/nshow" 2>&1
req GET /v1/nodes/h100-013
topo=$(jfield '",".join(k + "=" + v for k, v in j.get("topology", {}).items()) or "none"')
check "fairway nodes show h100-013: in words: model, GPUs of its total, health word and reason, bad GPUs, topology ($topo)" \
	bash -c "grep -qx 'node: h100-013' '$T/nshow' && grep -qx 'model: $(jfield 'j["gpuModel"]')' '$T/nshow' &&
		grep -Eqx 'GPUs: [0-9.]+ of $(jfield 'j["gpus"]') allocated' '$T/nshow' && grep -qx 'health: degraded' '$T/nshow' &&
		grep -qx 'reason: healthy: bad GPUs 2' '$T/nshow' && grep -qx 'bad GPUs: 2' '$T/nshow' &&
		grep -qx 'topology: $topo' '$T/nshow' && [ '$topo' != none ] && grep -q '^labels: ' '$T/nshow'"
"$FW" nodes show h100-012 "${C[@]}" >"$T/nshow12" 2>&1
"$FW" nodes show h100-012 --json "${C[@]}" >"$T/nshow12j" 2>&1
check "fairway nodes show h100-012: a lemon with its incidents; --json: the API's JSON" \
	bash -c "grep -qx 'incidents: 3 (a lemon: fails again and again)' '$T/nshow12' &&
		python3 -c 'import json,sys; n = json.load(open(sys.argv[1])); sys.exit(not (n[\"lemon\"] is True and n[\"incidents\"] == 3))' '$T/nshow12j'"
check "fairway nodes shows the lemon and its incidents" grep -q "^h100-012 .* 3 lemon " "$T/n"
"$FW" nodes list --health degraded,lemon "${C[@]}" >"$T/nbad" 2>&1
req GET /v1/nodes
want_bad=$(jfield '" ".join(sorted(n["name"] for n in j["nodes"] if n["badGpus"] or n["lemon"]))')
got_bad=$(awk 'NR > 1 && /^[a-z]/ && $1 != "NODE" {print $1}' "$T/nbad" | sort | tr '\n' ' ' | sed 's/ $//')
check "fairway nodes list --health degraded,lemon: the nodes with bad GPUs and the lemons ($got_bad), no other" \
	bash -c "[ '$got_bad' = '$want_bad' ] && [[ ' $got_bad ' == *' h100-012 '* ]] && [[ ' $got_bad ' == *' h100-013 '* ]]"
"$FW" nodes --json "${C[@]}" >"$T/nj" 2>&1
check "fairway nodes --json has lemon and incidents" python3 -c '
import json, sys
n = {x["name"]: x for x in json.load(open(sys.argv[1]))["nodes"]}
sys.exit(not (n["h100-012"]["lemon"] is True and n["h100-012"]["incidents"] == 3))' "$T/nj"

# --- restart restores everything -------------------------------------------------------------
req PUT /v1/queues/persist '{"parent":"product","deserved":{"gpu":2},"gpuModelDeserved":{"H100":2}}'
req GET /v1/queues
qorder=$(jfield '[q["name"] for q in j["queues"]]')
check "GET /v1/queues: each top-level queue by name, then its sub-queues depth first, siblings by name" python3 -c '
import json, sys
qs = json.loads(sys.argv[1])["queues"]
def tree(parent):
    out = []
    for q in sorted((q for q in qs if q.get("parent", "") == parent), key=lambda q: q["name"]):
        out += [q["name"]] + tree(q["name"])
    return out
sys.exit(not ([q["name"] for q in qs] == tree("") and "persist" in tree("")))' "$BODY"
req GET "/v1/decisions?limit=100000"
lastc=$(jfield 'max(r["cycle"] for r in j["decisions"])')
req GET /v1/plan
lastp=$(jfield 'j["cycle"]')
n0=$(wc -l <"$T/daemon.log")
kill -HUP "$DPID"
sleep 0.5
req GET /v1/health
check "SIGHUP: the daemon still answers (it neither stops nor reloads)" [ "$CODE" = 200 ]
check "... and says so once on stderr, with what to do (restart to apply a changed --config)" \
	bash -c "[ \"\$(tail -n +$((n0 + 1)) '$T/daemon.log' | grep -c 'SIGHUP: nothing reloaded, still running.*restart the daemon to apply a changed --config')\" = 1 ]"
stop_daemon
if grep -E 'ERROR: AddressSanitizer|runtime error|LeakSanitizer' "$T/daemon.log"; then
	bad "SIGTERM stops the daemon cleanly (no sanitizer report)"
else
	ok "SIGTERM stops the daemon cleanly (no sanitizer report)"
fi
check "the stopped daemon leaves its lock file (with its PID)" [ -f "$S/lock" ]
n0=$(wc -l <"$T/daemon.log")
start_daemon "$S" "$PORT" || bad "daemon restarts"
check "restart: one warning that the store's queues are not the config's, naming the API's queue persist" \
	bash -c "[ \"\$(tail -n +$((n0 + 1)) '$T/daemon.log' | grep -c 'warning:')\" = 1 ] &&
		tail -n +$((n0 + 1)) '$T/daemon.log' | grep 'warning:' | grep -q 'queue \"persist\" is in the store, not the config.*the store wins'"
check "... which does not block the next daemon, which takes it" [ "$(cat "$S/lock")" = "$DPID" ]
req POST /v1/cycle
check "restart: cycles number on from the decision log's last ($lastc), not from 1 again" \
	[ "$CODE" = 200 -a "$(jfield 'j["cycle"]')" -gt "$lastc" ]
check "... and from the last plan's ($lastp, quiet cycles log no decision), not back from the log's" \
	[ "$(jfield 'j["cycle"]')" -gt "$lastp" ]
req GET /v1/queues/persist
check "restart: a queue created by API is back" [ "$CODE" = 200 ]
check "restart: ... with its deserved GPUs of a model" [ "$(jfield 'j["gpuModelDeserved"]')" = "{'H100': 2.0}" ]
req GET /v1/jobs/arr_7
check "restart: a job array's task still knows its array (arrayOf from the store)" \
	[ "$(jfield 'j["arrayOf"], j["state"]')" = "arr cancelled" ]
req DELETE /v1/jobs/arr
check "restart: ... so its array's name still finds its tasks (409 EENDED, not 404)" \
	[ "$CODE" = 409 -a "$(jfield 'j["error"]["code"]')" = EENDED ]
req GET /v1/queues
check "restart: GET /v1/queues lists the queues in the same order" [ "$(jfield '[q["name"] for q in j["queues"]]')" = "$qorder" ]
req GET /v1/reservations/"$mid"
check "restart: the maintenance window is back" [ "$CODE" = 200 ]
req POST /v1/cycle
req GET /v1/nodes/h100-015
check "restart: the health report is back" [ "$(jfield 'j["healthy"]')" = False ]
req GET /v1/nodes/h100-012
check "restart: the fault history is back (a lemon, 3 incidents)" [ "$(jfield 'j["lemon"], j["incidents"]')" = "True 3" ]
req GET /v1/nodes/h100-011
check "restart: 2 incidents, still not a lemon" [ "$(jfield 'j["lemon"], j["incidents"]')" = "False 2" ]
post_health h100-012 '{"healthy":false}'
check "restart: the next outage is the fourth incident" [ "$(jfield 'len(j["incidents"])')" = 4 ]
req GET /v1/jobs/cli-job
check "restart: the submitted job is back" [ "$CODE" = 200 ]
req GET /v1/jobs/short
check "restart: the finished job is still done" [ "$(jfield 'j["state"]')" = done ]
req DELETE /v1/jobs/short
check "cancel a done job: 409 EENDED saying it is done" [ "$CODE" = 409 -a "$(jfield 'j["error"]["code"]')" = EENDED ] &&
	check "... (the message)" grep -q '^job "short" has already ended (done at .*Z): there is nothing to cancel' <<<"$(jfield 'j["error"]["message"]')"
"$FW" jobs why short "${C[@]}" >"$T/whydone" 2>&1
check "fairway jobs why of a done job: when it was submitted and ended, as jobs show" \
	bash -c "grep -q '^submitted: .*Z' '$T/whydone' && grep -q '^ended: .* ago (.*Z' '$T/whydone'"
req GET /v1/health
check "the store is at schema version 5" [ "$(jfield 'j["schemaVersion"]')" = 5 ]
# A restart plans the jobs in the order they were submitted (the store's
# rowid, an update keeping a row's place), not by name: lex_2 before lex_10.
req PUT /v1/queues/lexq '{"limit":{"gpu":0}}'
req POST /v1/jobs '{"name":"lex","queue":"lexq","tasks":[{"gpus":1}],"array":"0-11"}'
req POST /v1/cycle
req GET "/v1/jobs?queue=lexq&state=pending"
lexorder=$(jfield '" ".join(x["name"] for x in j["jobs"])')
check "an array 0-11 whose tasks wait (queue limit 0): planned in index order, lex_2 before lex_10" \
	[ "$lexorder" = "$(echo lex_{0..11})" ]
stop_daemon
start_daemon "$S" "$PORT" || bad "daemon restarts"
req POST /v1/cycle
req GET "/v1/jobs?queue=lexq&state=pending"
check "restart: the waiting tasks in the same order as before (not lex_10 before lex_2)" \
	[ "$(jfield '" ".join(x["name"] for x in j["jobs"])')" = "$lexorder" ]
req DELETE /v1/jobs/lex
req DELETE /v1/queues/lexq
stop_daemon
# The lemon rule from the config: 2 incidents in 120 days make a lemon;
# and a heartbeat timeout: a node whose reports stop is not responding.
sed 's/^scheduler: {/scheduler: {lemonThreshold: 2, lemonWindow: 120d, heartbeatTimeout: 2s, /' \
	examples/cluster.yaml >"$T/lemon2.yaml"
start_daemon "$S" "$PORT" --config "$T/lemon2.yaml" || bad "daemon restarts with --config"
node_is "config lemonThreshold 2: 2 incidents make a lemon" h100-011 'j["lemon"] is True and j["incidents"] == 2'
curl -s "http://127.0.0.1:$PORT/metrics" >"$T/lemon2.metrics"
check "/metrics: fairway_lemon_nodes's help gives the config's rule, 2 incidents in 120 days" \
	grep -q '^# HELP fairway_lemon_nodes .*(2 incidents in 120 days)' "$T/lemon2.metrics"
post_health h100-003 '{"healthy":true,"reason":"healthy: 8 GPUs ok"}'
node_is "heartbeat: a fresh report keeps the node healthy" h100-003 'j["healthy"] and j["health"] == "healthy"'
sleep 3
node_is "heartbeat: silent for 3 s (timeout 2 s), the node is not responding" h100-003 \
	'not j["healthy"] and j["health"] == "unhealthy" and j["healthReason"].startswith("not responding: no report for")'
post_health h100-003 '{"healthy":true,"reason":"healthy: 8 GPUs ok"}'
node_is "heartbeat: the next report brings it back" h100-003 'j["healthy"] and j["health"] == "healthy"'
stop_daemon

# --- local jobs that fail: attributed to their node (one-node fleet) ---------------------------
# fleet_daemon NAME STATE: start a daemon on the fleet YAML read from stdin
# (kept as $T/NAME.yaml), its store in $T/STATE; sets S and TOKEN.
fleet_daemon() {
	cat >"$T/$1.yaml"
	S=$T/$2
	start_daemon "$S" "$PORT" --config "$T/$1.yaml" || bad "daemon starts on $1.yaml"
	TOKEN=$(cat "$S/token")
}

# --- a clean stop loses no GPU-second: a running job cancelled after the last cycle (a run
# the local backend notes in memory only) counts to its end in the usage the stop saves,
# so the restarted daemon's queue usage is its GPUs x its run, not the last cycle's 0 -------
PERIOD=1h fleet_daemon stop-usage state-stop-usage <<'EOF2'
now: 0
nodes:
  - {name: n0, gpus: 8, cpu: 64, memory: 512Gi}
queues:
  - {name: q, resources: {gpu: {quota: 8}}}
EOF2
req POST /v1/jobs '{"name":"st","queue":"q","tasks":[{"gpus":2}]}'
req POST /v1/cycle
req GET /v1/jobs/st
check "stop: the job runs after the one requested cycle (the period is 1 h)" [ "$(jfield 'j["state"]')" = running ]
sleep 2
req DELETE /v1/jobs/st
req GET /v1/jobs/st
ran=$(jfield '2 * (j["endTime"] - j["startTime"])')
check "stop: cancelled after 2 s or more, with no cycle since its start" \
	bash -c "[ '$(jfield 'j["state"]')' = cancelled ] && [ '$ran' -ge 4 ]"
stop_daemon
PERIOD=1h start_daemon "$S" "$PORT" --config "$T/stop-usage.yaml" || bad "daemon restarts on state-stop-usage"
req GET /v1/queues/q
check "restart: q's usage is its job's 2 GPUs x its run to the cancel ($ran GPU-s), saved at the stop" \
	[ "$(jfield "abs(j['usage'] - $ran) < 1e-3 * $ran")" = True ]
stop_daemon

# --- a queue's or a job's reservation to come protects its nodes (two nodes) ---------------
fleet_daemon pair-rsv state-rsv <<'EOF2'
now: 0
nodes:
  - {name: n0, gpus: 8, cpu: 64, memory: 512Gi}
  - {name: n1, gpus: 8, cpu: 64, memory: 512Gi}
queues:
  - name: a
    resources: {gpu: {quota: 16}}
  - name: b
    resources: {gpu: {quota: 16}}
EOF2
now=$(date +%s)
req POST /v1/reservations "{\"kind\":\"queue\",\"queue\":\"b\",\"nodes\":[\"n1\"],\"start\":$((now + 600)),\"end\":$((now + 3600))}"
check "a queue reservation to come on n1: 201" [ "$CODE" = 201 ]
req POST /v1/reservations "{\"kind\":\"job\",\"job\":\"later\",\"nodes\":[\"n0\"],\"start\":$((now + 600)),\"end\":$((now + 3600))}"
check "a job reservation to come on n0: 201" [ "$CODE" = 201 ]
req POST /v1/jobs '{"name":"long-a","queue":"a","runtime":7200,"tasks":[{"gpus":8}]}'
req POST /v1/jobs '{"name":"long-b","queue":"b","runtime":7200,"tasks":[{"gpus":8}]}'
req POST /v1/jobs '{"name":"short-a","queue":"a","runtime":60,"tasks":[{"gpus":4}]}'
req POST /v1/cycle
job_is "reservations to come: a 2-hour job waits rather than hold a node past a reservation's opening" long-a \
	'j["state"] == "pending"'
job_is "... its reason writes the time as a UTC date (ISO 8601), never Unix seconds (t=...)" long-a \
	'__import__("re").search(r"\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\b", j["reasonText"]) and "t=" not in j["reasonText"]'
job_is "... the reserved queue's own long job takes the node early (it is its queue's when it opens)" long-b \
	'j["state"] == "running" and j["nodes"] == ["n1"]'
job_is "... a job that ends before they open runs" short-a 'j["state"] == "running"'
node_is "... n1 is in service and leaves when the queue reservation opens, back when it ends" n1 \
	"j['schedulable'] and j['leavesAt'] == $((now + 600)) and j['backAt'] == $((now + 3600))"
node_is "... n0 leaves when the job reservation opens" n0 "j['leavesAt'] == $((now + 600))"
# a queue's jobs do not go elsewhere and leave their own nodes idle: a
# 1-hour job of b while n1 is b's from +10 min (long-b holds n1 now);
# cancel long-b: b's next job takes n1 at once, not n0 (which another
# queue's 2-hour job could not take either way)
req DELETE /v1/jobs/long-b
req POST /v1/jobs '{"name":"b-hour","queue":"b","runtime":3600,"tasks":[{"gpus":8}]}'
req POST /v1/cycle
job_is "... once n1 is free, the reserved queue's next job starts there before it opens" b-hour \
	'j["state"] == "running" and j["nodes"] == ["n1"]'
stop_daemon
fleet_daemon solo state-fail <<'EOF2'
now: 0
nodes:
  - {name: solo, gpus: 8, cpu: 64, memory: 512Gi}
queues:
  - name: q
    resources: {gpu: {quota: 8}}
EOF2
# a healthy report without a reason first: the suspect verdict below must
# still say why (healthReason is the report that explains the state)
req POST /v1/nodes/solo/health '{"healthy":true}'
for i in 1 2; do
	req POST /v1/jobs "{\"name\":\"fail$i\",\"queue\":\"q\",\"runtime\":1,\"exitCode\":1,\"tasks\":[{\"gpus\":1}]}"
done
check "a job with exitCode 1: 201, the code echoed" [ "$CODE" = 201 -a "$(jfield 'j["exitCode"]')" = 1 ]
req POST /v1/jobs '{"name":"fine","queue":"q","runtime":1,"tasks":[{"gpus":1}]}'
node_is "two failed jobs on a node: counted, not yet suspect" solo \
	'j["health"] == "healthy" and j["healthReason"].startswith("fairway: 2 job failures within 24 h")'
job_is "a job exiting 0 is done (exitCode 0)" fine 'j["state"] == "done" and j["exitCode"] == 0'
node_is "... and counts for nothing" solo 'j["healthReason"].startswith("fairway: 2 job failures within 24 h")'
req POST /v1/jobs '{"name":"fail3","queue":"q","runtime":1,"exitCode":3,"tasks":[{"gpus":1}]}'
node_is "the third failure within 24 h: the node is suspect, the reason names the count (not the healthy report's empty one)" solo \
	'j["health"] == "suspect" and j["healthy"] and j["schedulable"] and j["healthReason"].startswith("fairway: 3 job failures within 24 h (probation ends in ")'
req POST /v1/nodes/solo/health '{"healthy":true,"reason":"healthy: 8 GPUs ok"}'
node_is "a healthy report while suspect: the node stays suspect, and its reason is still the failures" solo \
	'j["health"] == "suspect" and j["healthReason"].startswith("fairway: 3 job failures within 24 h")'
req GET "/v1/jobs?state=failed"
check "GET /v1/jobs?state=failed lists the three with their exit codes" \
	[ "$(jfield 'sorted((x["name"], x["state"], x["exitCode"]) for x in j["jobs"])')" = "[('fail1', 'failed', 1), ('fail2', 'failed', 1), ('fail3', 'failed', 3)]" ]
req GET /v1/jobs/fail3
check "GET /v1/jobs/fail3: failed, exitCode 3, an end time" [ "$(jfield 'j["state"], j["exitCode"], "endTime" in j')" = "failed 3 True" ]
check "GET /v1/jobs/fail3: an ended job keeps its queue, GPUs and runtime" \
	[ "$(jfield 'j["queue"], j["gpus"], j["runtime"]')" = "q 1 1" ]
"$FW" nodes --server "http://127.0.0.1:$PORT" >"$T/solo-nodes" 2>&1
check "fairway nodes says suspect and why (REASON)" grep -Eq "^solo .* suspect +- +fairway: 3 job failures within 24 h" "$T/solo-nodes"
"$FW" jobs list --state failed --server "http://127.0.0.1:$PORT" >"$T/failed" 2>&1
check "fairway jobs list --state failed shows them with their exit codes" \
	bash -c "grep -q '^fail3 .* failed .*(exit 3)' '$T/failed' && [ \$(grep -c ' failed ' '$T/failed') = 3 ]"
stop_daemon
start_daemon "$S" "$PORT" --config "$T/solo.yaml" || bad "daemon restarts on the one-node fleet"
node_is "restart: the failures are counted again from the store, the node still suspect" solo \
	'j["health"] == "suspect" and j["healthReason"].startswith("fairway: 3 job failures")'
req POST /v1/nodes/solo/health '{"healthy":false,"reason":"XID 79"}'
node_is "an unhealthy report through the API wins over the backend's suspect" solo \
	'j["health"] == "unhealthy" and not j["healthy"] and j["healthReason"] == "XID 79"'
stop_daemon

# --- reclaim on the local backend (a's jobs run until cancelled, so b cannot wait for
# them): the victim's text says what it loses, by its queue's checkpoint interval ---------------
fleet_daemon two state-reclaim <<'EOF2'
now: 0
nodes:
  - {name: solo, gpus: 8, cpu: 64, memory: 512Gi}
queues:
  - {name: a, defaultCheckpointInterval: 1h, resources: {gpu: {quota: 4}}}
  - {name: b, defaultRuntime: 10m, resources: {gpu: {quota: 4}}}
EOF2
for i in 1 2; do
	req POST /v1/jobs "{\"name\":\"a$i\",\"queue\":\"a\",\"tasks\":[{\"gpus\":4}]}"
done
req GET /v1/queues/a
check "a YAML queue's defaultCheckpointInterval reaches the daemon" [ "$(jfield 'j["defaultCheckpointInterval"]')" = 3600 ]
req GET /v1/queues/b
check "a YAML queue's defaultRuntime reaches the daemon" [ "$(jfield 'j["defaultRuntime"]')" = 600 ]
job_is "queue a takes the idle node" a2 'j["state"] == "running"'
sleep 1.5
req POST /v1/jobs '{"name":"b1","queue":"b","runtime":600,"tasks":[{"gpus":4}]}'
job_is "queue b reclaims its share" b1 'j["state"] == "running"'
req GET /v1/jobs/a1; A1=$BODY
req GET /v1/jobs/a2; A2=$BODY
check "the evicted job's history says the work it loses since its last checkpoint" python3 -c "$EVICT_TEXTS"'
assert len(texts) == 1, texts
assert re.search(r"; it loses ([0-9]+h)?([0-9]+m)?([0-9]+s)? of work since its last checkpoint$", texts[0]), texts' "$A1" "$A2"
check "... and names the job that takes its GPUs and that job's queue, not their indices" python3 -c "$EVICT_TEXTS"'
want = "evicted: its queue is above its fair share and job \"b1\" of the starving queue \"b\" takes its GPUs; "
assert texts and texts[0].startswith(want), texts' "$A1" "$A2"
"$FW" queues set b --deserved-gpus 4 --default-runtime 900 --default-checkpoint-interval 300 \
	--server "http://127.0.0.1:$PORT" --token-file "$S/token" >/dev/null 2>&1
req GET /v1/queues/b
check "fairway queues set --default-runtime/--default-checkpoint-interval" \
	[ "$(jfield 'j["defaultRuntime"], j["defaultCheckpointInterval"]')" = "900 300" ]
# a queue marked preemptible: false keeps its running jobs: b waits instead
req DELETE /v1/jobs/b1
job_is "with b1 cancelled, a's evicted job runs again" a1 'j["state"] == "running"' &&
	job_is "... beside the other" a2 'j["state"] == "running"'
"$FW" queues set a --preemptible false --server "http://127.0.0.1:$PORT" --token-file "$S/token" >/dev/null 2>&1
req POST /v1/jobs '{"name":"b2","queue":"b","runtime":600,"tasks":[{"gpus":4}]}'
sleep 2.5
req GET /v1/jobs/b2; B2=$BODY
req GET /v1/jobs/a1; A1=$BODY
req GET /v1/jobs/a2; A2=$BODY
check "queue a marked preemptible: false: b2 waits, neither a1 nor a2 is evicted again" python3 -c '
import json, sys
b2, a1, a2 = (json.loads(x) for x in sys.argv[1:])
assert b2["state"] == "pending", b2["state"]
assert a1["state"] == a2["state"] == "running"
assert sum(d["kind"] == "evict" for j in (a1, a2) for d in j.get("decisions", [])) == 1' "$B2" "$A1" "$A2"
stop_daemon

# --- deserved GPUs of a model claim them back: a and b deserve 16 GPUs each, a
# deserves them as H100s (set through the API); b's jobs hold the H100s and a's
# the A100s, each queue its fair share; a's H100 job evicts one of b's
# (model_reclaimed), and the shield keeps b from taking it back ---------------------------
fleet_daemon models state-models <<'EOF2'
now: 0
nodes:
  - {name: h0, gpus: 8, cpu: 64, memory: 512Gi, gpuModel: H100}
  - {name: h1, gpus: 8, cpu: 64, memory: 512Gi, gpuModel: H100}
  - {name: a0, gpus: 8, cpu: 64, memory: 512Gi, gpuModel: A100}
  - {name: a1, gpus: 8, cpu: 64, memory: 512Gi, gpuModel: A100}
queues:
  - {name: a, resources: {gpu: {quota: 16}}}
  - {name: b, resources: {gpu: {quota: 16}}, gpuModelDeserved: {A100: 4}}
EOF2
req GET /v1/queues/b
check "a YAML queue's gpuModelDeserved reaches the daemon (b deserves 4 A100s; its jobs name H100s)" \
	[ "$(jfield 'j["gpuModelDeserved"]')" = "{'A100': 4.0}" ]
"$FW" queues set a --gpu-model-deserved H100=16 --server "http://127.0.0.1:$PORT" --token-file "$S/token" >/dev/null 2>&1
req GET /v1/queues/a
check "fairway queues set a --gpu-model-deserved H100=16" [ "$(jfield 'j["gpuModelDeserved"]')" = "{'H100': 16.0}" ]
for i in 1 2; do
	req POST /v1/jobs "{\"name\":\"bh$i\",\"queue\":\"b\",\"tasks\":[{\"gpus\":8,\"gpuModel\":\"H100\"}]}"
done
job_is "b's two jobs run on the H100s" bh2 'j["state"] == "running"'
for i in 1 2; do
	req POST /v1/jobs "{\"name\":\"aa$i\",\"queue\":\"a\",\"tasks\":[{\"gpus\":8,\"gpuModel\":\"A100\"}]}"
done
job_is "a's two jobs run on the A100s" aa2 'j["state"] == "running"'
req POST /v1/jobs '{"name":"ah","queue":"a","tasks":[{"gpus":8,"gpuModel":"H100"}]}'
job_is "a's H100 job starts, at its fair share but below the H100s it deserves" ah 'j["state"] == "running"'
req GET /v1/jobs/bh1; B1=$BODY
req GET /v1/jobs/bh2; B2=$BODY
check "one of b's jobs is evicted for it, reason model_reclaimed, naming the job and its queue" python3 -c '
import json, sys
ev = [d for b in sys.argv[1:] for d in json.loads(b).get("decisions", []) if d["kind"] == "evict"]
assert len(ev) == 1, ev
assert ev[0]["reason"] == "model_reclaimed", ev
assert ev[0]["text"].startswith("evicted: its queue holds more GPUs of a model than it deserves, and job \"ah\" of queue \"a\""), ev' "$B1" "$B2"
sleep 1 # five cycles more
req GET /v1/jobs/ah
check "... and ah keeps running: the fair-share reclaim does not take it back" \
	[ "$(jfield 'j["state"], sum(d["kind"] == "evict" for d in j.get("decisions", []))')" = "running 0" ]
req GET /v1/fairshare
check "GET /v1/fairshare: a's 16 deserved H100s, 8 of them held" \
	[ "$(jfield '[q["gpuModelDeserved"] for q in j["queues"] if q["queue"] == "a"][0]')" = "[{'model': 'H100', 'deserved': 16.0, 'allocated': 8.0}]" ]
check "fairway fairshare explain a: its deserved H100s, those held, and what its jobs may do" bash -c \
	"'$FW' fairshare explain a --server http://127.0.0.1:$PORT | grep -qx '  by model        16.0  H100 GPUs deserved, 8.0 held: its jobs naming the model may take the rest back from queues holding more of it than they deserve'"
check "/metrics: fairway_queue_gpu_model_deserved_gpus{queue=\"a\",model=\"H100\"} 16, allocated 8" bash -c \
	"curl -s http://127.0.0.1:$PORT/metrics | grep -qx 'fairway_queue_gpu_model_deserved_gpus{queue=\"a\",model=\"H100\"} 16.000' &&
	 curl -s http://127.0.0.1:$PORT/metrics | grep -qx 'fairway_queue_gpu_model_allocated_gpus{queue=\"a\",model=\"H100\"} 8.000'"
stop_daemon

# --- users inside a queue (YAML scheduler.userFairShare reaches the daemon): alice
# holds a node, so when the other frees bob's job goes before her older one.  The
# node frees when the test says (al-short cancelled once both wait): a 2 s runtime
# ended before bob's job came on a loaded machine, and al-next took the node ---------
fleet_daemon users state-users <<'EOF2'
now: 0
scheduler: {userFairShare: true}
nodes:
  - {name: u1, gpus: 8, cpu: 64, memory: 512Gi, gpuModel: L40S}
  - {name: u2, gpus: 8, cpu: 64, memory: 512Gi, gpuModel: L40S}
queues:
  - {name: q, resources: {gpu: {quota: 16}}, userUsage: {carol: {gpuHours: 5}, dave: {gpuHours: 0.0001}},
     gpuModelLimits: {L40S: 16}}
EOF2
t_users=$(date +%s.%N) # alice's usage is bounded by the time since (below)
req POST /v1/jobs '{"name":"al-long","queue":"q","user":"alice","runtime":600,"tasks":[{"gpus":8}]}'
req POST /v1/jobs '{"name":"al-short","queue":"q","user":"alice","runtime":600,"tasks":[{"gpus":8}]}'
job_is "alice's two jobs run" al-short 'j["state"] == "running"'
sleep 1.1 # usage counts whole seconds: bob's job starts a second after alice's at least (on a
	  # quiet machine all of this fits in one second, and their usage tied)
req POST /v1/jobs '{"name":"al-next","queue":"q","user":"alice","runtime":600,"tasks":[{"gpus":8}]}'
sleep 0.2
req POST /v1/jobs '{"name":"bob-1","queue":"q","user":"bob","runtime":600,"tasks":[{"gpus":8}]}'
req DELETE /v1/jobs/al-short
t_short=$(date +%s.%N) # al-short's 8 GPUs ran until now at the latest
job_is "once a node frees, bob's job starts before alice's older one" bob-1 'j["state"] == "running"'
req GET /v1/jobs/al-next
check "... and alice's waits" [ "$(jfield 'j["state"]')" = pending ]
# each user's decayed usage in the queue: kept, shown, and back after a restart
sleep 1.1 # bob's job has run a second
req POST /v1/cycle
req GET /v1/fairshare
check "GET /v1/fairshare: queue q's users' decayed usage, alice's above bob's, carol's from the config" python3 -c '
import json, sys
q = [q for q in json.loads(sys.argv[1])["queues"] if q["queue"] == "q"][0]
u = {x["user"]: x["usageGpuHours"] for x in q["users"]}
sys.exit(not (u["alice"] > u["bob"] > 0 and 4.99 < u["carol"] <= 5))' "$BODY"
check "... and its L40S limit with the 16 GPUs held (alice's and bob's jobs)" \
	[ "$(jfield '[q["gpuModelLimits"] for q in j["queues"] if q["queue"] == "q"][0]')" = "[{'model': 'L40S', 'limit': 16.0, 'allocated': 16.0}]" ]
check "/metrics: fairway_queue_gpu_model_allocated_gpus{queue=\"q\",model=\"L40S\"} 16" bash -c \
	"curl -s http://127.0.0.1:$PORT/metrics | grep -q '^fairway_queue_gpu_model_allocated_gpus{queue=\"q\",model=\"L40S\"} 16.000$'"
before=$(jfield '[x["usageGpuHours"] for q in j["queues"] if q["queue"] == "q" for x in q["users"] if x["user"] == "alice"][0]')
stop_daemon
start_daemon "$S" "$PORT" --config "$T/users.yaml" || bad "daemon restarts on users.yaml"
req POST /v1/cycle
req GET /v1/fairshare
check "restart: alice's usage is back (not below what it was: her jobs ran on)" python3 -c '
import json, sys
q = [q for q in json.loads(sys.argv[1])["queues"] if q["queue"] == "q"][0]
u = {x["user"]: x["usageGpuHours"] for x in q["users"]}
sys.exit(not (u["alice"] >= float(sys.argv[2]) * 0.999 > 0))' "$BODY" "$before"
check "fairway fairshare explain q: its cap on L40S GPUs, with those held" \
	bash -c "'$FW' fairshare explain q --server http://127.0.0.1:$PORT | grep -q '^  model cap       16.0  L40S GPUs at most, [0-9.]* held$'"
# the users' usage stops growing (their jobs end, a cycle counts the last of it),
# so the explain line can be held against the API's figures: alice's 8 GPUs
# reach 0.1 GPU-hours in 22 s, which a loaded machine takes for this section
for j in al-long al-next bob-1; do req DELETE "/v1/jobs/$j"; done
req POST /v1/cycle
t_end=$(date +%s.%N)
req GET /v1/fairshare
users_line=$(python3 -c '
import json, sys
q = [q for q in json.loads(sys.argv[1])["queues"] if q["queue"] == "q"][0]
u = {x["user"]: x["usageGpuHours"] for x in q["users"]}
t0, short, end = map(float, sys.argv[2:5])
# al-long 8 GPUs from t0 to end, al-short 8 from t0 to short, a second of rounding each
most = 8 * ((end - t0) + (short - t0) + 2) / 3600
if sorted(u) == ["alice", "bob", "carol"] and 4.99 < u["carol"] <= 5 and most >= u["alice"] > u["bob"] > 0:
    print("carol %.1f, alice %.1f, bob %.1f" % (u["carol"], u["alice"], u["bob"]))
else:
    print("users %r, alice at most %.4f GPU-hours" % (u, most))' "$BODY" "$t_users" "$t_short" "$t_end")
check "fairway fairshare explain q: its users' decayed usage, most first (carol's 5 GPU-hours from the config)" \
	bash -c "'$FW' fairshare explain q --server http://127.0.0.1:$PORT | grep -qx '  users .*take turns by it): $users_line' || { echo \"  want: $users_line\"; false; }"
check "... from the store's users table (alice, bob, carol; dave's 0.36 GPU-seconds forgotten)" [ "$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM users WHERE key LIKE ?", ("q/%",)).fetchone()[0])' "$S/fairway.db")" = 3 ]
stop_daemon

# --- preempting at a checkpoint (YAML scheduler.checkpointGrace reaches the daemon):
# a's two jobs save every 20 s; b1, submitted 12 s into their interval, waits for
# the first checkpoint instead of throwing 12 s of 4 GPUs away (it waits whenever
# it comes 10 to 20 s in: wide margins for a loaded machine) ---------------------
fleet_daemon ckpt state-ckpt <<'EOF2'
now: 0
scheduler: {checkpointGrace: 16s}
nodes:
  - {name: c1, gpus: 8, cpu: 64, memory: 512Gi}
queues:
  - {name: a, resources: {gpu: {quota: 4}}}
  - {name: b, resources: {gpu: {quota: 4}}}
EOF2
for i in 1 2; do # no runtime: b1 can get no reservation at their end
	req POST /v1/jobs "{\"name\":\"ca$i\",\"queue\":\"a\",\"preemptible\":true,\"checkpointInterval\":20,\"tasks\":[{\"gpus\":4}]}"
done
job_is "queue a's two jobs run" ca2 'j["state"] == "running"'
req GET /v1/jobs/ca1
started=$(jfield 'j["startTime"]')
python3 -c 'import sys, time; time.sleep(max(0.0, float(sys.argv[1]) + 12 - time.time()))' "$started"
req POST /v1/jobs '{"name":"cb1","queue":"b","runtime":600,"tasks":[{"gpus":4}]}'
job_is "b1 waits for a victim's checkpoint (reason checkpoint_wait, naming the job)" cb1 \
	'j["state"] == "pending" and j["reason"] == "checkpoint_wait" and __import__("re").search(r"which saves a checkpoint at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ: ", j["reasonText"]) and "t=" not in j["reasonText"] and ("\"ca1\"" in j["reasonText"] or "\"ca2\"" in j["reasonText"]) and j["expectedStart"] <= '"$started"' + 22'
sleep 8
job_is "... and starts once that job has saved" cb1 'j["state"] == "running"'
req GET /v1/jobs/ca1; A1=$BODY
req GET /v1/jobs/ca2; A2=$BODY
check "the one job evicted for it loses at most 4 s of work (not the 12 s it had when b1 came)" python3 -c "$EVICT_TEXTS"'
assert len(texts) == 1, texts
m = re.search(r"; it loses ([0-9]+)s of work since its last checkpoint$", texts[0]) # under a minute: "4s"
assert m and int(m.group(1)) <= 4, texts' "$A1" "$A2"
curl -s "http://127.0.0.1:$PORT/metrics" >"$T/metrics-ckpt"
check "/metrics counts the eviction against queue a (fairway_queue_evictions_total), b has none" bash -c \
	"grep -qx 'fairway_queue_evictions_total{queue=\"a\"} 1' '$T/metrics-ckpt' && ! grep -q 'queue=\"b\"} [0-9]' <(grep '^fairway_queue_evictions_total' '$T/metrics-ckpt')"
check "... and the work it lost: at most 4 GPUs x 4 s (fairway_queue_lost_gpu_hours_total)" \
	awk '$1 == "fairway_queue_lost_gpu_hours_total{queue=\"a\"}" {found = 1; ok = $2 >= 0 && $2 <= 16 / 3600} END {exit !(found && ok)}' "$T/metrics-ckpt"
check "/metrics times to start: a's two jobs at once, b1 after its wait for the checkpoint (fairway_queue_wait_seconds)" \
	awk '$1 == "fairway_queue_wait_seconds_count{queue=\"a\"}" {a = $2} $1 == "fairway_queue_wait_seconds_bucket{queue=\"a\",le=\"10\"}" {a10 = $2}
	     $1 == "fairway_queue_wait_seconds_count{queue=\"b\"}" {b = $2} $1 == "fairway_queue_wait_seconds_sum{queue=\"b\"}" {bs = $2}
	     $1 == "fairway_wait_seconds_count{gpus=\"1-8\"}" {all = $2} $1 == "fairway_wait_seconds_count{gpus=\"33+\"}" {big = $2}
	     END {exit !(a == 2 && a10 == 2 && b == 1 && bs >= 2 && bs <= 60 && all == 3 && big == 0)}' "$T/metrics-ckpt"
"$FW" stats --json --server "http://127.0.0.1:$PORT" >"$T/stats-ckpt" 2>&1
"$FW" stats --server "http://127.0.0.1:$PORT" >"$T/stats-ckpt.txt" 2>&1
check "fairway stats: the counters /metrics has (starts, evictions, waits by size and per queue)" python3 -c 'import json, sys
st = json.load(open(sys.argv[1])); m = {}
for l in open(sys.argv[2]):
    if l.strip() and l[0] != "#": k, v = l.rsplit(" ", 1); m[k] = float(v)
assert st["decisions"]["starts"] >= 3 and st["decisions"]["evictions"] >= 1, st
w = {x["gpus"]: x for x in st["waits"]}; q = {x["queue"]: x for x in st["queues"]}
assert w["1-8"]["starts"] == 3 and w["33+"]["starts"] == 0 and w["33+"]["p95AtMost"] is None, w
assert q["a"]["starts"] == 2 and q["a"]["evictions"] == 1 and q["b"]["starts"] == 1, q
assert q["a"]["p95AtMost"] == 10 and 1 <= q["b"]["meanSeconds"] <= 60, q
assert m["fairway_wait_seconds_count{gpus=\"1-8\"}"] == 3 and m["fairway_queue_evictions_total{queue=\"a\"}"] == 1, m' \
	"$T/stats-ckpt" "$T/metrics-ckpt"
check "fairway stats: a table of cycles, decisions and time to start" bash -c \
	"grep -q '^cycles  *[0-9]* applied' '$T/stats-ckpt.txt' && grep -Eq '^1-8 GPUs +3 ' '$T/stats-ckpt.txt' &&
	 grep -Eq '^a +[0-9.]+ +[0-9.]+ +1 +2 ' '$T/stats-ckpt.txt'"
check "fairway stats: the period in words, as --period 0.2s takes it (a cycle every 200ms, not 0.2 s)" \
	grep -Eq '^fairway serve \(local backend\), up [0-9hms]+, a cycle every 200ms$' "$T/stats-ckpt.txt"
check "/metrics GPU-hours: a held 8 GPUs for less than the section's minute, b some (fairway_queue_gpu_hours_total)" \
	awk '$1 == "fairway_queue_gpu_hours_total{queue=\"a\"}" {a = $2} $1 == "fairway_queue_gpu_hours_total{queue=\"b\"}" {b = $2}
	     END {exit !(a > 8 * 10 / 3600 && a <= 8 * 120 / 3600 && b >= 0 && b <= 4 * 60 / 3600)}' "$T/metrics-ckpt"
stop_daemon

# --- strict order (--policy fifo): a waiting job's reason names the job it waits
# behind, and a start says its GPUs, without the core's indices ---------------------------
S=$T/state-fifo # the one-node fleet of the job-failure section
start_daemon "$S" "$PORT" --config "$T/solo.yaml" --policy fifo || bad "daemon starts with --policy fifo"
TOKEN=$(cat "$S/token")
req POST /v1/jobs '{"name":"forever","queue":"q","tasks":[{"gpus":4}]}'
req POST /v1/jobs '{"name":"whole","queue":"q","runtime":60,"tasks":[{"gpus":8}]}'
req POST /v1/jobs '{"name":"small","queue":"q","runtime":60,"tasks":[{"gpus":2}]}'
job_is "fifo: the small job waits behind the whole-node one, named" small \
	'j["reason"] == "head_of_line" and j["reasonText"].startswith("blocked behind job \"whole\" (strict order;") and j["unknownWhyText"].startswith("blocked behind job \"whole\"")'
req GET /v1/plan
check "fifo: /v1/plan's waiting texts carry no index" [ "$(jfield 'any("#" in p.get("reasonText", "") + p.get("unknownWhyText", "") for p in j["pending"])')" = False ]
req GET /v1/jobs/forever
check "a start's text says its GPUs (the core's unset second argument left out)" \
	[ "$(jfield '[d["text"] for d in j["decisions"] if d["kind"] == "start"]')" = "['started: 4 GPUs']" ]
stop_daemon

# --- a fleet change: jobs on nodes the config dropped are requeued; a store the
# config cannot describe is refused by name; failing cycles show in /v1/health ---
fleet_daemon pair state-fleet <<'EOF2'
now: 0
topology: {levels: [rack]}
nodes:
  - {name: n1, gpus: 8, cpu: 64, memory: 512Gi, topology: {rack: r0}}
  - {name: n2, gpus: 8, cpu: 64, memory: 512Gi, topology: {rack: r0}}
queues:
  - name: q
    resources: {gpu: {quota: 16}}
EOF2
req POST /v1/jobs '{"name":"w1","queue":"q","tasks":[{"gpus":8}]}'
req POST /v1/jobs '{"name":"w2","queue":"q","requiredLevel":"rack","tasks":[{"gpus":8}]}'
job_is "two jobs run, one per node" w2 'j["state"] == "running"'
on_n2=w2
req GET /v1/jobs/w1
[ "$(jfield 'j["nodes"]')" = "['n2']" ] && on_n2=w1
on_n1=$([ $on_n2 = w1 ] && echo w2 || echo w1)
stop_daemon
grep -v n2 "$T/pair.yaml" >"$T/pair-n1.yaml"
start_daemon "$S" "$PORT" --config "$T/pair-n1.yaml" || bad "daemon restarts without node n2"
check "restart without a node: its running job is requeued, the log naming the job and the node" \
	grep -q "job $on_n2 was running on node n2, which the fleet no longer has: requeued" "$T/daemon.log"
job_is "... it is pending again" "$on_n2" 'j["state"] == "pending"'
job_is "... and its decision history says why, naming the node (fairway jobs why)" "$on_n2" \
	'[(d["kind"], d["reason"], d["text"]) for d in j["decisions"]][-1] == ("requeue", "fleet_change", "requeued: it was running on node n2, which the fleet no longer has")'
check "... fairway jobs why prints it" bash -c "'$FW' jobs why '$on_n2' --server http://127.0.0.1:$PORT | grep -q 'requeue  requeued: it was running on node n2'"
job_is "... the job on the node kept still runs there" "$on_n1" 'j["state"] == "running" and j["nodes"] == ["n1"]'
req POST /v1/cycle
req GET /v1/health
check "... cycles run: /v1/health ok, no error" [ "$(jfield 'j["ok"], "error" in j')" = "True False" ]
req GET /v1/plan
check "... and /v1/plan answers (200)" [ "$CODE" = 200 ]
# a store transaction held elsewhere (sqlite3 on the db): cycles fail, and /v1/health says so
python3 -c 'import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
c.execute("BEGIN EXCLUSIVE"); time.sleep(9)' "$S/fairway.db" &
LPID=$!
PIDS+=("$LPID")
seen=""
for _ in $(seq 1 60); do
	req GET /v1/health
	[ "$(jfield 'j["ok"]')" = False ] && { seen=$(jfield 'j["error"]'); break; }
	sleep 0.2
done
check "cycles failing: /v1/health says ok false and why (${seen:-nothing})" grep -q "locked" <<<"$seen"
wait "$LPID"
becomes "cycles running again: /v1/health ok" /v1/health 'j["ok"] and "error" not in j'
check "the log says when cycles fail and when they run again" \
	bash -c "grep -q 'cycle failed (every cycle until this changes): .*locked' '$T/daemon.log' && grep -q 'cycles run again' '$T/daemon.log'"
# the requeued job (n1 is full: it waits) shows the nodes of its current
# run only: none; cancelled while it waits, those of the run it lost
job_is "a requeued job waiting again names no nodes (its current run has none)" "$on_n2" \
	'j["state"] == "pending" and "nodes" not in j'
req DELETE "/v1/jobs/$on_n2"
job_is "... cancelled while it waits, it names the nodes of the run it lost (n2, gone from the fleet)" "$on_n2" \
	'j["state"] == "cancelled" and j["nodes"] == ["n2"]'
stop_daemon
grep -v -e n2 -e topology "$T/pair.yaml" | sed 's/, topology: {rack: r0}//' >"$T/pair-flat.yaml"
"$FW" serve --state "$S" --listen "127.0.0.1:$PORT" --config "$T/pair-flat.yaml" >"$T/flat.log" 2>&1
rc=$?
check "a config without a level a stored job requires: refused (exit 2)" [ "$rc" -eq 2 ] &&
	check "... naming the job, its field and the level" grep -q 'store.jobs: cannot restore .*job w2: requiredLevel: "rack" is not a topology level' "$T/flat.log"

# --- an ended job remembers where it ran (as sacct's NodeList): done, cancelled
# and timeout jobs name the nodes of their last run (GET /v1/jobs/NAME, the
# list's JSON, jobs show and why), hold none of them (a job asking the whole
# fleet starts at once), and a restart keeps them ------------------------------------------
fleet_daemon where state-where <<'EOF2'
now: 0
nodes:
  - {name: n0, gpus: 8, cpu: 64, memory: 512Gi}
  - {name: n1, gpus: 8, cpu: 64, memory: 512Gi}
queues:
  - name: q
    resources: {gpu: {quota: 16}}
EOF2
# ran_on JOB: what fairway jobs show and jobs why print of where JOB ran
ran_on() {
	"$FW" jobs show "$1" --server "http://127.0.0.1:$PORT" >"$T/where-show" 2>&1
	"$FW" jobs why "$1" --server "http://127.0.0.1:$PORT" >"$T/where-why" 2>&1
	local a b
	a=$(grep '^ran on' "$T/where-show")
	b=$(grep '^ran on' "$T/where-why")
	[ "$a" = "$b" ] && echo "$a"
}
req POST /v1/jobs '{"name":"both","queue":"q","runtime":2,"tasks":[{"count":2,"gpus":8}]}'
job_is "a job of two 8-GPU tasks runs on both nodes" both 'j["state"] == "running" and sorted(j["nodes"]) == ["n0", "n1"]'
BOTH=$(jfield '", ".join(j["nodes"])')
job_is "... done at its runtime's end, it still names the nodes it ran on (nodes)" both \
	'j["state"] == "done" and sorted(j["nodes"]) == ["n0", "n1"]'
check "... fairway jobs show and jobs why print them: ran on $BOTH" [ "$(ran_on both)" = "ran on $BOTH" ]
req GET "/v1/jobs?state=done"
check "... GET /v1/jobs?state=done gives them too" \
	[ "$(jfield '[sorted(x["nodes"]) for x in j["jobs"] if x["name"] == "both"]')" = "[['n0', 'n1']]" ]
check "... fairway jobs list --state all --json too" bash -c "'$FW' jobs list --state all --json --server http://127.0.0.1:$PORT |
	python3 -c 'import json, sys; sys.exit([sorted(x.get(\"nodes\", [])) for x in json.load(sys.stdin)[\"jobs\"] if x[\"name\"] == \"both\"] != [[\"n0\", \"n1\"]])'"
req POST /v1/jobs '{"name":"whole","queue":"q","tasks":[{"count":2,"gpus":8}]}'
job_is "its nodes are free: a job asking all 16 GPUs starts on them" whole \
	'j["state"] == "running" and sorted(j["nodes"]) == ["n0", "n1"]'
becomes "... GET /v1/nodes counts that job's 16 GPUs allocated, not the done job's too" /v1/nodes \
	'j["figures"]["gpusAllocated"] == 16 and all(n["gpusAllocated"] == 8 for n in j["nodes"])'
req DELETE /v1/jobs/whole
job_is "a job cancelled while it runs names the nodes it ran on" whole \
	'j["state"] == "cancelled" and sorted(j["nodes"]) == ["n0", "n1"]'
req POST /v1/jobs '{"name":"capped","queue":"q","maxRuntime":2,"tasks":[{"count":2,"gpus":8}]}'
job_is "... and they are free: the next whole-fleet job starts" capped 'j["state"] == "running"'
job_is "a job its run-time limit ends (timeout) names the nodes it ran on" capped \
	'j["state"] == "timeout" and sorted(j["nodes"]) == ["n0", "n1"]'
req GET "/v1/jobs?state=timeout"
check "... the list's JSON too" [ "$(jfield '[sorted(x.get("nodes", [])) for x in j["jobs"]]')" = "[['n0', 'n1']]" ]
req POST /v1/jobs '{"name":"after","queue":"q","tasks":[{"count":2,"gpus":8}]}'
job_is "... and they are free once it ended: the next whole-fleet job starts" after 'j["state"] == "running"'
req POST /v1/jobs '{"name":"never","queue":"q","tasks":[{"gpus":1}]}'
req DELETE /v1/jobs/never
job_is "a job cancelled before it ever ran names no nodes" never 'j["state"] == "cancelled" and "nodes" not in j'
check "... and jobs show prints no ran on line for it" [ -z "$(ran_on never)" ]
req GET /v1/jobs/after
check "a running job names its nodes as before, and jobs show prints no ran on line for it" \
	[ "$(jfield 'sorted(j["nodes"])')" = "['n0', 'n1']" -a -z "$(ran_on after)" ]
stop_daemon
start_daemon "$S" "$PORT" --config "$T/where.yaml" || bad "daemon restarts on where.yaml"
for j in both whole capped; do
	job_is "restart: $j still names the nodes it ran on" "$j" 'sorted(j["nodes"]) == ["n0", "n1"]'
done
check "restart: fairway jobs why prints them (ran on $BOTH)" [ "$(ran_on both)" = "ran on $BOTH" ]
job_is "restart: the running job runs on, on both nodes" after 'j["state"] == "running" and sorted(j["nodes"]) == ["n0", "n1"]'
stop_daemon

# --- tasks[i].slice: each slice of a group inside one rack; bad slices refused by field ------
fleet_daemon racks state-racks <<'EOF2'
now: 0
topology: {levels: [rack]}
nodes:
  - {name: a0, gpus: 4, cpu: 64, memory: 512Gi, topology: {rack: r0}}
  - {name: a1, gpus: 4, cpu: 64, memory: 512Gi, topology: {rack: r0}}
  - {name: a2, gpus: 4, cpu: 64, memory: 512Gi, topology: {rack: r0}}
  - {name: b0, gpus: 4, cpu: 64, memory: 512Gi, topology: {rack: r1}}
  - {name: b1, gpus: 4, cpu: 64, memory: 512Gi, topology: {rack: r1}}
  - {name: b2, gpus: 4, cpu: 64, memory: 512Gi, topology: {rack: r1}}
  - {name: c0, gpus: 4, cpu: 64, memory: 512Gi, topology: {rack: r2}}
  - {name: c1, gpus: 4, cpu: 64, memory: 512Gi, topology: {rack: r2}}
  - {name: c2, gpus: 4, cpu: 64, memory: 512Gi, topology: {rack: r2}}
queues:
  - name: q
    resources: {gpu: {quota: 36}}
EOF2
req POST /v1/jobs '{"name":"two","queue":"q","tasks":[{"count":2,"gpus":4}]}'
job_is "a job takes two nodes of rack r0" two 'j["state"] == "running" and j["nodes"] == ["a0", "a1"]'
# bin-packing alone would take a2 and b0..b2: its first pair would straddle r0 and r1
req POST /v1/jobs '{"name":"pairs","queue":"q","tasks":[{"count":4,"gpus":4,"slice":{"size":2,"required":"rack"}}]}'
check "submit with tasks[0].slice: 201, the slice in the answer" \
	[ "$CODE" = 201 -a "$(jfield 'j["tasks"][0]["slice"]')" = "{'size': 2, 'required': 'rack'}" ]
job_is "... its slices of 2 land in r1 and r2, none on a2 beside the other job" pairs \
	'j["state"] == "running" and sorted(j["nodes"]) == ["b0", "b1", "c0", "c1"]'
req POST /v1/jobs '{"name":"odd","queue":"q","tasks":[{"count":3,"gpus":4,"slice":{"size":2,"required":"rack"}}]}'
check "a slice size that does not divide count: 400 naming tasks[0].slice.size" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = "tasks[0].slice.size" ]
req POST /v1/jobs '{"name":"wide","queue":"q","tasks":[{"count":4,"gpus":4,"slice":{"size":4,"required":"rack"}}]}'
check "a slice no rack could ever hold: 400 naming tasks[0].slice.size" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = "tasks[0].slice.size" ] &&
	check "... saying the largest rack holds 3" grep -q 'a slice of 4 tasks must fit inside one rack, and the largest rack holds 3 of these tasks' <<<"$BODY"
req POST /v1/jobs '{"name":"zone","queue":"q","tasks":[{"count":2,"gpus":4,"slice":{"size":2,"required":"zone"}}]}'
check "a slice level the cluster lacks: 400 naming tasks[0].slice.required" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = "tasks[0].slice.required" ]
req GET /v1/jobs/wide
check "... and the refused jobs were not created (404)" [ "$CODE" = 404 ]
# a2, b2 and c2 are free, one per rack: a slice of two waits, saying why
"$FW" jobs submit --queue q --gpus 4 --count 2 --slice 2:rack --name cli-slice --server "http://127.0.0.1:$PORT" \
	--token-file "$S/token" >/dev/null 2>&1
job_is "fairway jobs submit --slice 2:rack: it waits, no rack holding two free nodes (reason slices)" cli-slice \
	'j["state"] == "pending" and j["reason"] == "slices" and j["reasonText"] == "slices: it needs 1 slice of 2 tasks, each inside one rack, and the racks have room for 0 slices now" and j["taskSlices"] == [{"size": 2, "required": "rack"}]'
# 12 GPUs free, 4 in each rack: a gang bound to one rack says which level holds it back
req POST /v1/jobs '{"name":"rackwide","queue":"q","requiredLevel":"rack","tasks":[{"count":3,"gpus":4}]}'
job_is "a gang of 12 GPUs bound to one rack waits (reason topology), naming the rack" rackwide \
	'j["state"] == "pending" and j["reason"] == "topology" and j["reasonText"] == "topology: the gang needs 12 GPUs inside one rack, its required level; the largest rack has 4 free"'
req DELETE /v1/jobs/rackwide
req DELETE /v1/jobs/two
job_is "... and starts in r0 once the job there ends" cli-slice \
	'j["state"] == "running" and sorted(j["nodes"]) in (["a0", "a1"], ["a0", "a2"], ["a1", "a2"])'
stop_daemon

# --- nodeSelector: a job starts only on nodes with its labels; kept across a restart --------
fleet_daemon labelled state-labels <<'EOF2'
now: 0
nodes:
  - {name: a1, gpus: 8, cpu: 64, memory: 512Gi, labels: {gpu: a}}
  - {name: b1, gpus: 8, cpu: 64, memory: 512Gi, labels: {gpu: b, ib: null}}
queues:
  - name: q
    resources: {gpu: {quota: 16}}
jobs:
  - {name: seeded, queue: q, tasks: [{gpus: 2}], nodeSelector: {ib: null}}
EOF2
node_is "GET /v1/nodes/b1 shows its labels (a label without a value as \"\")" b1 'j["labels"] == {"gpu": "b", "ib": ""}'
# (kept as a minimal label set meeting the same nodes: b1 alone has ib, and gpu: b)
job_is "a config job's nodeSelector is kept: it runs on b1, the node with ib" seeded \
	'j["state"] == "running" and j["nodes"] == ["b1"] and j["nodeSelector"] in ({"ib": ""}, {"gpu": "b"})'
# a task group's own selector: a leader on a1, a worker on the node with ib
cat >"$T/pair.json" <<'EOF3'
{"name": "pair", "queue": "q", "tasks": [{"gpus": 1, "nodeSelector": {"gpu": "a"}},
                                         {"gpus": 1, "nodeSelector": {"ib": null}}]}
EOF3
"$FW" jobs submit --file "$T/pair.json" --server "http://127.0.0.1:$PORT" --token-file "$S/token" >/dev/null 2>&1
job_is "a job whose task groups have selectors of their own (jobs submit --file): each group on its nodes" pair \
	'j["state"] == "running" and sorted(j["nodes"]) == ["a1", "b1"] and "nodeSelector" not in j and j["taskNodeSelectors"] == [{"gpu": "a"}, {"ib": ""}]'
req DELETE /v1/jobs/pair
req POST /v1/jobs '{"name":"g-nowhere","queue":"q","tasks":[{"gpus":1},{"gpus":1,"nodeSelector":{"gpu":"c"}}]}'
check "a task group's selector no node meets: 400 naming tasks[1].nodeSelector" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = "tasks[1].nodeSelector" ] &&
	check "... saying the group could never start" grep -q 'no node has all these labels (gpu: c), so this task group could never start' <<<"$BODY"
req POST /v1/jobs '{"name":"g-apart","queue":"q","nodeSelector":{"ib":null},"tasks":[{"gpus":1,"nodeSelector":{"gpu":"a"}}]}'
check "a task group's selector that no node meets together with the job's: 400, saying so" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = "tasks[0].nodeSelector" ] &&
	check "... naming the job's selector" grep -q "with the job's nodeSelector" <<<"$BODY"
req POST /v1/jobs '{"name":"on-a","queue":"q","tasks":[{"gpus":1}],"nodeSelector":{"gpu":"a"}}'
check "submit with a nodeSelector: 201, the selector in the answer" \
	[ "$CODE" = 201 -a "$(jfield 'j["nodeSelector"]')" = "{'gpu': 'a'}" ]
job_is "... it runs on a1, not on b1 where bin-packing would put it" on-a \
	'j["state"] == "running" and j["nodes"] == ["a1"]'
req DELETE /v1/jobs/on-a # a1 all free: only big-b's selector keeps it waiting
req POST /v1/jobs '{"name":"big-b","queue":"q","tasks":[{"gpus":8}],"nodeSelector":{"gpu":"b"}}'
job_is "a job too big for its nodes waits, the reason naming its node filter" big-b \
	'j["state"] == "pending" and j["reason"] == "node_filter" and j["nodeSelector"] == {"gpu": "b"}'
req POST /v1/jobs '{"name":"nowhere","queue":"q","tasks":[{"gpus":1}],"nodeSelector":{"gpu":"c"}}'
check "a selector no node meets: 400 naming nodeSelector, saying where labels are shown" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = nodeSelector ] &&
	check "... with the label it asked" grep -q 'no node has all these labels (gpu: c).*GET /v1/nodes' <<<"$BODY"
req POST /v1/jobs '{"name":"typo","queue":"q","tasks":[{"gpus":1}],"nodeSelector":{"gpu":8}}'
check "a selector value that is no string: 400 naming nodeSelector.gpu" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = nodeSelector.gpu ]
req GET /v1/jobs/nowhere
check "... and the refused jobs were not created (404)" [ "$CODE" = 404 ]
CL=(--server "http://127.0.0.1:$PORT" --token-file "$S/token")
"$FW" jobs submit --queue q --gpus 1 --name cli-sel --node-selector gpu=a "${CL[@]}" >/dev/null 2>&1
job_is "fairway jobs submit --node-selector gpu=a: it runs on a1" cli-sel \
	'j["nodeSelector"] == {"gpu": "a"} and j["state"] == "running" and j["nodes"] == ["a1"]'
"$FW" jobs submit --queue q --gpus 1 --name cli-bad --node-selector gpu "${CL[@]}" >"$T/selbad" 2>&1
rc=$?
check "--node-selector gpu (no =): exit 2, saying the form" \
	bash -c "[ $rc = 2 ] && grep -q \"'gpu' is not KEY=VALUE (KEY= for a label without a value)\" '$T/selbad'"
"$FW" jobs submit --queue q --gpus 1 --name cli-none --node-selector ib=,gpu=z "${CL[@]}" >"$T/selnone" 2>&1
rc=$?
check "--node-selector no node meets: the daemon's 400 in words, exit non-zero" \
	bash -c "[ $rc != 0 ] && grep -q 'no node has all these labels' '$T/selnone'"
check "... naming the command that shows the labels, and the API's path" \
	grep -qF 'could never start; `fairway nodes show NAME` or GET /v1/nodes shows each node'"'"'s labels (set under' "$T/selnone"
req DELETE /v1/jobs/cli-sel
stop_daemon
start_daemon "$S" "$PORT" --config "$T/labelled.yaml" || bad "daemon restarts on labelled.yaml"
job_is "after a restart the waiting job keeps its selector and reason" big-b \
	'j["state"] == "pending" and j["reason"] == "node_filter" and j["nodeSelector"] == {"gpu": "b"}'
req DELETE /v1/jobs/seeded
job_is "once b1 is free, it starts there" big-b 'j["state"] == "running" and j["nodes"] == ["b1"]'
req POST /v1/jobs '{"name":"wait-b","queue":"q","tasks":[{"gpus":8}],"nodeSelector":{"gpu":"b"}}'
job_is "a second job for b1 waits" wait-b 'j["state"] == "pending"'
stop_daemon
# the fleet relabelled: no node has gpu: b any more; the waiting job stays listed, never to start
sed 's/labels: {gpu: b, ib: null}/labels: {gpu: c, ib: null}/' "$T/labelled.yaml" >"$T/relabelled.yaml"
start_daemon "$S" "$PORT" --config "$T/relabelled.yaml" || bad "daemon restarts on relabelled.yaml"
job_is "a waiting job whose nodeSelector no node meets after a restart: pending, reason node_filter, never" wait-b \
	'j["state"] == "pending" and j["reason"] == "node_filter" and j["expectedStart"] is None and "nodeSelector" in j["reasonText"] and "cancel it" in j["reasonText"]'
req GET /v1/plan
check "... listed in /v1/plan's pending" [ "$(jfield '[p["name"] for p in j["pending"]]')" = "['wait-b']" ]
"$FW" jobs why wait-b --server "http://127.0.0.1:$PORT" >"$T/why-sel" 2>&1
check "... fairway jobs why says it can never start, naming its node filter" \
	grep -q "why it waits: its node filter leaves out every node" "$T/why-sel"
stop_daemon

# --- a store write that fails mid-request or mid-cycle leaves nothing half-applied --------------
# (SQLite triggers added from outside make chosen writes fail, as a full
# disk would: RAISE fails the statement; a deferred foreign key, the COMMIT)
fleet_daemon faults state-faults <<'EOF2'
now: 0
nodes:
  - {name: solo, gpus: 8, cpu: 64, memory: 512Gi}
queues:
  - name: q
    resources: {gpu: {quota: 8}}
EOF2
sqlq() {
	python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1], timeout=30)
c.executescript(sys.argv[2])
c.close()' "$S/fairway.db" "$1"
}
stored_state() { # the job's state in the store
	python3 -c 'import json, sqlite3, sys
r = sqlite3.connect(sys.argv[1]).execute("SELECT doc FROM jobs WHERE key = ?", (sys.argv[2],)).fetchone()
print(json.loads(r[0])["state"] if r else "none")' "$S/fairway.db" "$1"
}
sqlq 'CREATE TABLE fk_parent (id INTEGER PRIMARY KEY);
CREATE TABLE fk_child (p INTEGER REFERENCES fk_parent (id) DEFERRABLE INITIALLY DEFERRED);'
# a request: the cancel's write succeeds, its COMMIT fails
req POST /v1/jobs '{"name":"victim","queue":"q","tasks":[{"gpus":1}]}'
job_is "a job runs" victim 'j["state"] == "running"'
sqlq "CREATE TRIGGER no_commit AFTER INSERT ON jobs WHEN NEW.key IN ('victim', 'ghost')
	BEGIN INSERT INTO fk_child VALUES (1); END;"
req DELETE /v1/jobs/victim
check "a cancel whose commit fails: 500 naming store" [ "$CODE" = 500 -a "$(jfield 'j["error"]["field"]')" = store ]
req GET /v1/jobs/victim
check "... the job still runs, in the backend as in the store (not cancelled)" \
	[ "$(jfield 'j["state"]')/$(stored_state victim)" = running/running ]
req POST /v1/jobs '{"name":"ghost","queue":"q","tasks":[{"gpus":1}]}'
check "a submission whose commit fails: 500 naming store" [ "$CODE" = 500 -a "$(jfield 'j["error"]["field"]')" = store ]
req GET /v1/jobs/ghost
check "... the job does not exist (404), in the backend as in the store" [ "$CODE/$(stored_state ghost)" = 404/none ]
sqlq 'DROP TRIGGER no_commit;'
req POST /v1/jobs '{"name":"ghost","queue":"q","tasks":[{"gpus":1}]}'
check "... its name is free once the store takes writes (201)" [ "$CODE" = 201 ]
req DELETE /v1/jobs/victim
check "... and the cancel goes through (200)" [ "$CODE" = 200 ]
# a cycle: the backend starts the job, the decision log refuses the row
sqlq "CREATE TRIGGER no_log BEFORE INSERT ON decisions WHEN NEW.job = 'stuck'
	BEGIN SELECT RAISE(ABORT, 'injected: disk full'); END;"
req POST /v1/jobs '{"name":"stuck","queue":"q","tasks":[{"gpus":1}]}'
becomes "a cycle whose decision log write fails: it fails, /v1/health saying why" /v1/health \
	'not j["ok"] and "injected: disk full" in j["error"]'
req GET /v1/jobs/stuck
check "... the start it rolled back is undone in the backend too: pending, as in the store" \
	[ "$(jfield 'j["state"]')/$(stored_state stuck)" = pending/pending ]
sqlq 'DROP TRIGGER no_log;'
job_is "once the store takes writes again, the job starts" stuck 'j["state"] == "running"'
check "... its start applied and logged once" [ "$(jfield '[d["kind"] for d in j["decisions"]]')" = "['start']" ]
stop_daemon

# --- a cycle whose commit fails counts nothing and leaves its usage save due --------------------
fleet_daemon usage state-usage <<'EOF2'
now: 0
nodes:
  - {name: solo, gpus: 8, cpu: 64, memory: 512Gi}
queues:
  - name: q
    resources: {gpu: {quota: 8}}
EOF2
stop_daemon
history_rows() { python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM usage_history").fetchone()[0])' "$S/fairway.db"; }
sqlq "CREATE TRIGGER no_history BEFORE INSERT ON usage_history
	BEGIN SELECT RAISE(ABORT, 'injected: disk full'); END;"
start_daemon "$S" "$PORT" --config "$T/usage.yaml" || bad "daemon restarts with usage history writes failing"
becomes "the usage history write fails: the cycle fails" /v1/health 'not j["ok"] and "injected: disk full" in j["error"]'
req POST /v1/jobs '{"name":"counted","queue":"q","tasks":[{"gpus":1}]}'
sleep 1.2
req GET /v1/health
check "... and so does every cycle after it: the save it failed is still due (not put off 10 s)" \
	[ "$(jfield 'j["ok"], j["cycles"]')" = "False 0" ]
check "... the starts each of them applied and rolled back are not counted" \
	[ "$(metric fairway_starts_total)/$(metric fairway_cycles_total)" = 0/0 ]
rows=$(history_rows)
sqlq 'DROP TRIGGER no_history;'
becomes "once the store takes the row, cycles run" /v1/health 'j["ok"]'
job_is "... the job starts" counted 'j["state"] == "running"'
check "... counted once: fairway_starts_total 1" [ "$(metric fairway_starts_total)" = 1 ]
check "... and the usage history row, due all along, is written at once (not a minute later)" \
	[ "$(history_rows)" -gt "$rows" ]
stop_daemon

# --- run-time limits: a queue's maxRuntime ends its running jobs (timeout) ---------------------
# One node; queue capped (maxRuntime 2 s) and q (none).  A job of capped
# with a runtime of an hour ends as timeout after 2 s, is not requeued,
# says why, and is counted; q's job runs on.  The limit through the CLI,
# the listing and /metrics; a bad value refused naming the field; the
# ended job and the limit survive a restart.  Then a job's own limit
# (maxRuntime on the job, as sbatch --time) in q, which has none: it ends
# as timeout at its own 2 s, saying it was its own; through the CLI
# (jobs submit --max-runtime, jobs why); a queue's smaller limit binds
# over a job's larger one (timeLimit); a job's limit survives a restart.
fleet_daemon limits state-limits <<'EOF2'
now: 0
nodes:
  - {name: solo, gpus: 8, cpu: 64, memory: 512Gi}
queues:
  - name: q
    resources: {gpu: {quota: 4}}
EOF2
C=(--server "http://127.0.0.1:$PORT" --token-file "$S/token")
req PUT /v1/queues/capped '{"deserved":{"gpu":4},"maxRuntime":2}'
check "PUT a queue with maxRuntime 2: 201, in its document" [ "$CODE" = 201 -a "$(jfield 'j["maxRuntime"]')" = 2 ]
req PATCH /v1/queues/capped '{"maxRuntime":-1}'
check "maxRuntime -1: 400 naming maxRuntime" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = maxRuntime ]
req PUT /v1/queues/badlimit '{"maxRuntime":"2h"}'
check "maxRuntime \"2h\" (a string): 400 naming maxRuntime, no queue made" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = maxRuntime ]
req GET /v1/queues/q
check "a queue without a limit has no maxRuntime in its document" [ "$(jfield '"maxRuntime" in j')" = False ]
req POST /v1/jobs '{"name":"capped-long","queue":"capped","runtime":3600,"tasks":[{"gpus":1}]}'
req POST /v1/jobs '{"name":"free-long","queue":"q","runtime":3600,"tasks":[{"gpus":1}]}'
req POST /v1/cycle
job_is "a job of the capped queue starts" capped-long 'j["state"] == "running"'
t0=$(date +%s.%N)
job_is "after its queue's 2 s limit it ends: timeout, with an end time" capped-long \
	'j["state"] == "timeout" and j["endTime"] - j["startTime"] >= 2'
check "... not before its 2 s" python3 -c 'import sys, time; sys.exit(time.time() - float(sys.argv[1]) < 1)' "$t0"
check "... its reason: time_limit, its text naming the queue and the limit" python3 -c '
import json, sys
j = json.loads(sys.argv[1])
assert j["reason"] == "time_limit", j
assert "run-time limit (maxRuntime) of its queue \"capped\" is 2s; it is stopped, not requeued" in j["reasonText"], j
assert [d["reason"] for d in j["decisions"] if d["kind"] == "timeout"] == ["time_limit"], j
assert not [d for d in j["decisions"] if d["kind"] == "evict"], j' "$BODY"
sleep 0.6 # cycles more: it stays ended
req GET /v1/jobs/capped-long
check "not requeued: still timeout cycles later" [ "$(jfield 'j["state"]')" = timeout ]
req GET /v1/jobs/free-long
check "the job of the queue without a limit runs on" [ "$(jfield 'j["state"]')" = running ]
req GET "/v1/jobs?state=timeout"
check "GET /v1/jobs?state=timeout lists it once" [ "$(jfield '[x["name"] for x in j["jobs"]]')" = "['capped-long']" ]
req GET "/v1/jobs?state=pending"
check "... and it is not pending" [ "$(jfield '"capped-long" in [x["name"] for x in j["jobs"]]')" = False ]
"$FW" jobs list --state timeout "${C[@]}" >"$T/timeout" 2>&1
check "fairway jobs list --state timeout shows it, reason time_limit" \
	grep -q '^capped-long .* timeout .* time_limit .*(run-time limit)$' "$T/timeout"
req GET "/v1/jobs?reason=time_limit"
check "GET /v1/jobs?reason=time_limit (no state): an empty list, and a hint that ended jobs list with state=all" \
	[ "$CODE" = 200 -a "$(jfield 'len(j["jobs"]), j["hint"].startswith("time_limit is a reason only ended jobs carry"), "ask for state=all or state=timeout" in j["hint"]')" = "0 True True" ]
req GET "/v1/jobs?reason=time_limit&state=pending"
check "GET /v1/jobs?reason=time_limit&state=pending: empty, the hint says that state asks for jobs that have not timed out" \
	[ "$CODE" = 200 -a "$(jfield 'len(j["jobs"]), "state= here asks for jobs that have not timed out" in j["hint"]')" = "0 True" ]
req GET "/v1/jobs?reason=time_limit&state=timeout"
check "... with state=timeout: capped-long, and no hint" \
	[ "$(jfield '[x["name"] for x in j["jobs"]], "hint" in j')" = "['capped-long'] False" ]
"$FW" jobs list --reason time_limit "${C[@]}" >"$T/tlr" 2>&1
check "fairway jobs list --reason time_limit (no --state): no row, and the daemon's hint on stderr" \
	bash -c "! grep -q '^capped-long' '$T/tlr' && grep -q '^fairway jobs: nothing listed: time_limit is a reason only ended jobs carry .*(fairway jobs list --reason time_limit --state all)$' '$T/tlr'"
"$FW" jobs list --reason time_limit --state all "${C[@]}" >"$T/tlr" 2>&1
check "... with --state all: capped-long" grep -q '^capped-long .* timeout .* time_limit ' "$T/tlr"
"$FW" jobs why capped-long "${C[@]}" >"$T/why" 2>&1
check "fairway jobs why: state timeout, why it ended: the queue's run-time limit" bash -c \
	"grep -q '^state: timeout$' '$T/why' && grep -q '^why it ended: ended: it has run [0-9]*s and the run-time limit (maxRuntime) of its queue \"capped\" is 2s' '$T/why'"
req DELETE /v1/jobs/capped-long
check "cancel it: 409 EENDED, it has ended (timeout)" [ "$CODE" = 409 -a "$(jfield 'j["error"]["code"]')" = EENDED ] &&
	check "... (the message)" grep -q '^job "capped-long" has already ended (timeout at ' <<<"$(jfield 'j["error"]["message"]')"
check "/metrics: fairway_jobs_timed_out_total 1" [ "$(metric fairway_jobs_timed_out_total)" = 1 ]
check "/metrics: ... not an eviction (fairway_evictions_total 0)" [ "$(metric fairway_evictions_total)" = 0 ]
check "/metrics: fairway_queue_max_runtime_seconds for capped only" bash -c \
	"[ \"\$(curl -s http://127.0.0.1:$PORT/metrics | grep '^fairway_queue_max_runtime_seconds{')\" = 'fairway_queue_max_runtime_seconds{queue=\"capped\"} 2' ]"
check "the store keeps it as timeout" [ "$(stored_state capped-long)" = timeout ]
"$FW" queues set capped --max-runtime 1h "${C[@]}" >/dev/null 2>&1
req GET /v1/queues/capped
check "fairway queues set --max-runtime 1h: maxRuntime 3600, the rest kept" \
	[ "$(jfield 'j["maxRuntime"], j["deserved"]["gpu"]')" = "3600 4.0" ]
check "fairway queues list shows it (MAX RUNTIME)" bash -c \
	"'$FW' queues list ${C[*]} | grep -q '^capped .* 1h00m  *[0-9.e+-]*  *-  *-  *-$' && '$FW' queues list ${C[*]} | grep -q 'MAX RUNTIME'"
check "fairway queues list --json has it" bash -c \
	"'$FW' queues list --json ${C[*]} | grep -q '\"maxRuntime\": 3600'"
"$FW" queues set capped --max-runtime -5 "${C[@]}" >/dev/null 2>"$T/err"
check "fairway queues set --max-runtime -5: exit 2, says the range" \
	bash -c "[ $? -eq 2 ] && grep -q -- '--max-runtime -5: must be from 0 to 31536000 seconds' '$T/err'"
check "fairway queues --help teaches --max-runtime" bash -c "'$FW' queues --help | grep -q -- '--max-runtime S (run-time limit'"
"$FW" queues set capped --max-runtime 0 "${C[@]}" >/dev/null 2>&1
req GET /v1/queues/capped
check "fairway queues set --max-runtime 0 removes it" [ "$(jfield '"maxRuntime" in j')" = False ]
check "/metrics: no fairway_queue_max_runtime_seconds once no queue has a limit" bash -c \
	"! curl -s http://127.0.0.1:$PORT/metrics | grep -q '^fairway_queue_max_runtime_seconds'"
"$FW" queues set capped --max-runtime 5m "${C[@]}" >/dev/null 2>&1
# a job's own run-time limit (its maxRuntime) in q, whose queues set none
req POST /v1/jobs '{"name":"own-long","queue":"q","runtime":3600,"maxRuntime":4,"tasks":[{"gpus":1}]}'
check "POST a job with maxRuntime 4: 201, its maxRuntime and the timeLimit that binds (4) in the answer" \
	[ "$CODE" = 201 -a "$(jfield 'j["maxRuntime"], j["timeLimit"]')" = "4 4" ]
req POST /v1/jobs '{"name":"own-bad","queue":"q","maxRuntime":-1,"tasks":[{"gpus":1}]}'
check "a job's maxRuntime -1: 400 naming maxRuntime, with the range" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], j["error"]["message"]')" = "maxRuntime must be between 0 and 31536000" ]
req POST /v1/jobs '{"name":"own-bad","queue":"q","maxRuntime":"2h","tasks":[{"gpus":1}]}'
check "a job's maxRuntime \"2h\" (a string): 400 naming maxRuntime" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = maxRuntime ]
req GET /v1/jobs/own-bad
check "... and no job own-bad was made" [ "$CODE" = 404 ]
req GET /v1/jobs/own-long
check "GET /v1/jobs/own-long: maxRuntime 4, timeLimit 4" [ "$(jfield 'j["maxRuntime"], j["timeLimit"]')" = "4 4" ]
req POST /v1/cycle
job_is "a job with its own 4 s limit starts" own-long 'j["state"] == "running" and j["timeLimit"] == 4'
check "... its expectedEnd is its start + its limit, not + its runtime (3600)" \
	[ "$(jfield 'j.get("expectedEnd", 0) - j["startTime"]')" = 4 ]
job_is "after its own 4 s it ends: timeout, with an end time" own-long \
	'j["state"] == "timeout" and j["endTime"] - j["startTime"] >= 4'
check "... its text says its own limit ended it, not its queue's" python3 -c '
import json, sys
j = json.loads(sys.argv[1])
assert j["reason"] == "time_limit", j
assert "its own run-time limit (maxRuntime) is 4s; it is stopped, not requeued" in j["reasonText"], j
assert "its queue" not in j["reasonText"], j
assert j["maxRuntime"] == 4, j
assert [d["reason"] for d in j["decisions"] if d["kind"] == "timeout"] == ["time_limit"], j
assert not [d for d in j["decisions"] if d["kind"] == "evict"], j' "$BODY"
"$FW" jobs why own-long "${C[@]}" >"$T/why" 2>&1
check "fairway jobs why: state timeout, why it ended: its own run-time limit" bash -c \
	"grep -q '^state: timeout$' '$T/why' && grep -q '^why it ended: ended: it has run [0-9]*s and its own run-time limit (maxRuntime) is 4s' '$T/why'"
req GET /v1/jobs/free-long
check "the job of q without a limit of its own runs on" [ "$(jfield 'j["state"], "timeLimit" in j')" = "running False" ]
# bounded only by its limit (no runtime): expected to end when the limit ends it
req POST /v1/jobs '{"name":"own-only","queue":"q","maxRuntime":3600,"tasks":[{"gpus":1}]}'
req POST /v1/cycle
job_is "a running job with no runtime and a 3600 s limit: expectedEnd = startTime + timeLimit" own-only \
	'j["state"] == "running" and j["timeLimit"] == 3600 and j.get("expectedEnd", 0) - j["startTime"] == 3600'
"$FW" jobs why own-only "${C[@]}" >"$T/why" 2>&1
check "... fairway jobs why says when it is expected to end" grep -q '^expected to end ' "$T/why"
req DELETE /v1/jobs/own-only
"$FW" jobs submit --queue q --gpus 1 --name cli-own --max-runtime 2h "${C[@]}" >/dev/null 2>&1
req GET /v1/jobs/cli-own
check "fairway jobs submit --max-runtime 2h: maxRuntime 7200" [ "$(jfield 'j["maxRuntime"]')" = 7200 ]
"$FW" jobs submit --queue q --gpus 1 --max-runtime 2x "${C[@]}" >/dev/null 2>"$T/err"
check "fairway jobs submit --max-runtime 2x: exit 2, says what it takes" \
	bash -c "[ $? -eq 2 ] && grep -q -- \"--max-runtime '2x': expected seconds or a DURATION\" '$T/err'"
check "fairway jobs --help teaches --max-runtime" bash -c "'$FW' jobs --help | grep -q -- '--max-runtime S]  (its own run-time limit'"
req POST /v1/jobs '{"name":"capped-own","queue":"capped","maxRuntime":7200,"tasks":[{"gpus":1}]}'
check "a job's maxRuntime 7200 in capped (300): timeLimit 300, the smaller" \
	[ "$CODE" = 201 -a "$(jfield 'j["maxRuntime"], j["timeLimit"]')" = "7200 300" ]
job_is "... it starts, its view saying timeLimit 300" capped-own 'j["state"] == "running" and j["timeLimit"] == 300'
"$FW" jobs why capped-own "${C[@]}" >"$T/why" 2>&1
check "fairway jobs why: the queue's limit binds, its own is larger" \
	grep -q "^run-time limit: 5m (its queue's, or a queue's above it; its own, 2h00m, is larger)" "$T/why"
"$FW" jobs why cli-own "${C[@]}" >"$T/why" 2>&1
check "fairway jobs why: its own limit binds" grep -q '^run-time limit: 2h00m (its own maxRuntime)' "$T/why"
stop_daemon
start_daemon "$S" "$PORT" --config "$T/limits.yaml" || bad "daemon restarts on limits.yaml"
req GET /v1/jobs/capped-long
check "restart: the timed-out job is still timeout" [ "$(jfield 'j["state"]')" = timeout ]
req GET /v1/queues/capped
check "restart: the queue's maxRuntime is back (300)" [ "$(jfield 'j["maxRuntime"]')" = 300 ]
req GET /v1/jobs/free-long
check "restart: the job without a limit runs on" [ "$(jfield 'j["state"]')" = running ]
req GET /v1/jobs/own-long
check "restart: the job its own limit ended is still timeout, maxRuntime 4" \
	[ "$(jfield 'j["state"], j["maxRuntime"]')" = "timeout 4" ]
job_is "restart: a job's own maxRuntime is back (cli-own: 7200, running)" cli-own \
	'j["state"] == "running" and j["maxRuntime"] == 7200 and j["timeLimit"] == 7200'
stop_daemon

# --- numbers, durations, times and decision kinds, as the client and the API take them -----------
# Ten starts in two queues: the per-queue stats add up to the totals.  An
# open maintenance window drains m1: `fairway plan --kind drain` names the
# node.  GPUs and CPUs are kept in thousandths: a finer value is refused
# (the client naming the flag, the API the member), not rounded.
# Durations take the config's compound forms (1h30m) everywhere.  A
# reservation's times are within 10 years of now, its end not past; an
# ended one leaves the list (?state=all, --all lists it).  A run-time
# limit's ending is decision kind timeout, not evict.
fleet_daemon numbers state-numbers <<'EOF2'
now: 0
nodes:
  - {name: m0, gpus: 8, cpu: 64, memory: 512Gi}
  - {name: m1, gpus: 8, cpu: 64, memory: 512Gi}
queues:
  - {name: qa, resources: {gpu: {quota: 8}}}
  - {name: qb, resources: {gpu: {quota: 8}}}
EOF2
C=(--server "http://127.0.0.1:$PORT" --token-file "$S/token")
for i in 0 1 2 3 4; do
	req POST /v1/jobs "{\"name\":\"sa-$i\",\"queue\":\"qa\",\"tasks\":[{\"gpus\":2}]}"
	req POST /v1/jobs "{\"name\":\"sb-$i\",\"queue\":\"qb\",\"tasks\":[{\"gpus\":1}]}"
done
req POST /v1/cycle
req GET /v1/stats
check "stats: ten starts, and the per-queue starts add up to them (qa 5, qb 5)" \
	[ "$(jfield 'j["decisions"]["starts"], sum(q["starts"] for q in j["queues"]), sorted((q["queue"], q["starts"]) for q in j["queues"] if q["starts"])')" = "10 10 [('qa', 5), ('qb', 5)]" ]
"$FW" stats "${C[@]}" >"$T/nstats" 2>&1
check "fairway stats: qa and qb with 5 starts each, as the totals' 10" bash -c \
	"grep -q '^decisions   10 starts' '$T/nstats' && grep -Eq '^qa +[0-9.]+ +[0-9.]+ +0 +5 ' '$T/nstats' && grep -Eq '^qb +[0-9.]+ +[0-9.]+ +0 +5 ' '$T/nstats'"
now=$(date +%s)
req POST /v1/reservations "{\"kind\":\"maintenance\",\"nodes\":[\"m1\"],\"start\":$((now - 1)),\"end\":$((now + 3))}"
short=$(jfield 'j["id"]')
for _ in $(seq 1 20); do
	req POST /v1/cycle
	"$FW" plan --kind drain "${C[@]}" >"$T/pdrain" 2>&1
	grep -q '^  drain ' "$T/pdrain" && break
	sleep 0.1
done
check "fairway plan --kind drain: the row names the node (m1), not -" grep -Eq '^  drain +m1 ' "$T/pdrain"
sleep 4.2 # its end a whole second past: the table says "1s ago", not "now"
req GET /v1/reservations
check "an ended reservation leaves GET /v1/reservations; endedNotListed counts it" \
	[ "$(jfield '[r["id"] for r in j["reservations"]], j.get("endedNotListed")')" = "[] 1" ]
req GET "/v1/reservations?state=all"
check "... ?state=all lists it" [ "$(jfield '[r["id"] for r in j["reservations"]]')" = "['$short']" ]
req GET "/v1/reservations?state=ended"
check "... ?state=ended: 400 naming state" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = state ]
"$FW" reservations list "${C[@]}" >"$T/rl" 2>&1
check "fairway reservations list: no row for it, a line says 1 ended is not listed" bash -c \
	"! grep -q '^$short ' '$T/rl' && grep -q '^1 ended reservation not listed (--all lists them)$' '$T/rl'"
"$FW" reservations list --all "${C[@]}" >"$T/rl" 2>&1
check "fairway reservations list --all: its row, ended (... ago)" grep -Eq "^$short +maintenance .* ago +m1$" "$T/rl"
req DELETE "/v1/reservations/$short"
for i in 0 1 2 3 4; do req DELETE "/v1/jobs/sa-$i"; req DELETE "/v1/jobs/sb-$i"; done
# thousandths: refused past them, by the API and by the client
while IFS='|' read -r res key val unit; do
	req PATCH /v1/queues/qa "{\"$res\":{\"$key\":$val}}"
	check "PATCH a queue's $res.$key $val: 400 naming it and the precision" \
		[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], j["error"]["message"]')" = "$res.$key must have at most 3 decimals ($unit); got $val" ]
done <<'LIST'
deserved|gpu|2.5555|0.001 GPU
deserved|gpu|0.0001|0.001 GPU
limit|gpu|0.0004|0.001 GPU
deserved|cpu|0.0001|0.001 CPU, a millicore
LIST
req PATCH /v1/queues/qa '{"deserved":{"memory":1.5}}'
check "PATCH a queue's deserved.memory 1.5: 400, whole MiB" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["message"]')" = "must be a whole number of MiB; got 1.5" ]
req PATCH /v1/queues/qa '{"gpuModelLimits":{"H100":1.0005}}'
check "PATCH gpuModelLimits H100 1.0005: 400 naming gpuModelLimits.H100 and the precision" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], j["error"]["message"]')" = "gpuModelLimits.H100 must have at most 3 decimals (0.001 GPU); got 1.0005" ]
req GET /v1/queues/qa
check "... none of them changed the queue (deserved 8 GPUs, no limit, no model limit)" \
	[ "$(jfield 'j["deserved"]["gpu"], j["limit"]["gpu"], "gpuModelLimits" in j')" = "8.0 None False" ]
req POST /v1/jobs '{"name":"fine","queue":"qa","tasks":[{"gpus":1,"gpuFraction":0.0015}]}'
check "a job's gpuFraction 0.0015: 400 naming tasks[0].gpuFraction, not 0.002" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], j["error"]["message"]')" = "tasks[0].gpuFraction must have at most 3 decimals (0.001 of a GPU); got 0.0015" ]
req POST /v1/jobs '{"name":"fine","queue":"qa","tasks":[{"gpus":1,"cpu":0.0001}]}'
check "a job's cpu 0.0001: 400 naming tasks[0].cpu" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = "tasks[0].cpu" ]
"$FW" queues set qa --deserved-gpus 2.5555 "${C[@]}" >"$T/out" 2>&1
check "fairway queues set --deserved-gpus 2.5555: exit 2, the flag and the precision" \
	bash -c "[ $? -eq 2 ] && grep -q -- '--deserved-gpus 2.5555: at most 3 decimals (0.001 GPU)' '$T/out'"
"$FW" queues set qa --deserved-gpus 2.555 "${C[@]}" >/dev/null 2>&1
req GET /v1/queues/qa
check "fairway queues set --deserved-gpus 2.555: kept as it is" [ "$(jfield 'j["deserved"]["gpu"]')" = 2.555 ]
"$FW" jobs submit --queue qa --gpus 1 --gpu-fraction 0.0015 "${C[@]}" >"$T/out" 2>&1
check "fairway jobs submit --gpu-fraction 0.0015: exit 2, the flag and the precision" \
	bash -c "[ $? -eq 2 ] && grep -q -- '--gpu-fraction 0.0015: at most 3 decimals (0.001 of a GPU)' '$T/out'"
# durations: the config's compound forms
"$FW" jobs submit --queue qa --gpus 1 --runtime 2h --max-runtime 1h30m --name dur "${C[@]}" >"$T/out" 2>&1
req GET /v1/jobs/dur
check "fairway jobs submit --max-runtime 1h30m: 5400 s (--runtime 2h: 7200)" \
	[ "$(jfield 'j["maxRuntime"], j["runtime"]')" = "5400 7200" ]
"$FW" queues set qb --min-runtime 1m30s "${C[@]}" >/dev/null 2>&1
req GET /v1/queues/qb
check "fairway queues set --min-runtime 1m30s: 90 s" [ "$(jfield 'j["minRuntime"]')" = 90 ]
"$FW" decisions --since 1h30m "${C[@]}" >"$T/out" 2>&1
check "fairway decisions --since 1h30m: the last 90 minutes' rows" grep -Eq '^([0-9a-z]+ ago|now) +[0-9]+ start +sa-0 ' "$T/out"
now=$(date +%s)
"$FW" reservations create --kind maintenance --nodes m1 --start +1h30m --end +2h --id dur-rsv "${C[@]}" >"$T/out" 2>&1
req GET /v1/reservations/dur-rsv
check "fairway reservations create --start +1h30m: 5400 s from now" \
	[ "$(jfield 'abs(j["start"] - '"$now"' - 5400) <= 5 and abs(j["end"] - '"$now"' - 7200) <= 5')" = True ]
req DELETE /v1/reservations/dur-rsv
# a reservation's times: within 10 years of now
req POST /v1/reservations "{\"kind\":\"maintenance\",\"nodes\":[\"m1\"],\"start\":1000,\"end\":$((now + 3600))}"
check "a reservation from 1970 (start 1000): 400 naming start, more than 10 years before now" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], "more than 10 years before" in j["error"]["message"]')" = "start True" ]
req POST /v1/reservations "{\"kind\":\"maintenance\",\"nodes\":[\"m1\"],\"start\":$((now + 864000000000)),\"end\":$((now + 864000086400))}"
check "a reservation 10000000 days on: 400 naming start, more than 10 years after now" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], "more than 10 years after" in j["error"]["message"]')" = "start True" ]
"$FW" reservations create --kind maintenance --nodes m1 --start 1000 --end +1h "${C[@]}" >"$T/out" 2>&1
check "fairway reservations create --start 1000: exit 2 naming --start" \
	bash -c "[ $? -eq 2 ] && grep -q -- '--start 1000: more than 10 years before now' '$T/out'"
req GET "/v1/reservations?state=all"
check "... and none was made" [ "$(jfield 'len(j["reservations"])')" = 0 ]
req POST /v1/reservations "{\"kind\":\"queue\",\"queue\":\"qb\",\"nodes\":[\"m1\"],\"start\":$((now + 9000)),\"end\":$((now + 9060))}"
qbr=$(jfield 'j["id"]')
req DELETE /v1/queues/qb
check "delete a queue with a reservation: 409, naming fairway reservations delete ID" \
	[ "$CODE" = 409 ] && check "... (the message)" grep -q "delete it first (fairway reservations delete $qbr, or DELETE /v1/reservations/$qbr)" <<<"$BODY"
req DELETE "/v1/reservations/$qbr"
# a run-time limit's ending: kind timeout, not evict
req DELETE /v1/jobs/dur
req POST /v1/jobs '{"name":"capped","queue":"qb","runtime":3600,"maxRuntime":1,"tasks":[{"gpus":1}]}'
job_is "a job with maxRuntime 1 ends: timeout" capped 'j["state"] == "timeout"'
req GET "/v1/decisions?kind=timeout"
check "GET /v1/decisions?kind=timeout: its ending, reason time_limit" \
	[ "$(jfield '[(d["job"], d["reason"]) for d in j["decisions"]]')" = "[('capped', 'time_limit')]" ]
req GET "/v1/decisions?kind=evict"
check "... ?kind=evict: not it (no eviction at all)" [ "$(jfield 'j["decisions"]')" = "[]" ]
"$FW" decisions --kind evict "${C[@]}" >"$T/out" 2>&1
check "fairway decisions --kind evict: no row for it" bash -c "! grep -q capped '$T/out'"
"$FW" decisions --kind timeout "${C[@]}" >"$T/out" 2>&1
check "fairway decisions --kind timeout: its row" grep -Eq '^([0-9a-z]+ ago|now) +[0-9]+ timeout +capped ' "$T/out"
"$FW" stats "${C[@]}" >"$T/out" 2>&1
check "... as fairway stats counts it: 0 evictions, 1 ended at a run-time limit" \
	grep -q ' 0 evictions, 1 ended at a run-time limit,' "$T/out"
stop_daemon

# --- GPU-hour budgets: a queue that has used its gpuHourBudget starts nothing ------------------
# One node; under org: spent (YAML gpuHourBudget 50, usage 200 GPU-hours
# a half-life before the config's now: 100 at the seed) and fresh (no
# budget, no usage).  spent's job waits, over_budget, its
# text naming spent and both amounts; fresh's starts.  Bad budgets are
# 400s naming gpuHourBudget with nothing applied; raising the budget
# (the CLI) starts the job; a tiny one holds the next, and 0 clears it.
# Usage the daemon accrues counts: fresh's running job spends a budget of
# 0.0001.  The budget, /metrics, queues list, jobs why; a restart keeps
# the API's budget over the YAML's.
fleet_daemon budget state-budget <<'EOF2'
now: 604800
scheduler: {usageHalfLife: 7d}
nodes:
  - {name: solo, gpus: 8, cpu: 64, memory: 512Gi}
queues:
  - {name: org, resources: {gpu: {quota: 8}}}
  - {name: spent, parent: org, gpuHourBudget: 50, usage: {gpuHours: 200, at: 0}, resources: {gpu: {quota: 4}}}
  - {name: fresh, parent: org, resources: {gpu: {quota: 4}}}
EOF2
C=(--server "http://127.0.0.1:$PORT" --token-file "$S/token")
req GET /v1/queues/spent
check "the YAML's gpuHourBudget seeds the queue (50), its usage decayed to the config's now (200 -> about 100)" \
	[ "$(jfield 'j["gpuHourBudget"], 99.9 < j["usageGpuHours"] <= 100')" = "50.0 True" ]
req GET /v1/queues/org
check "org's usageGpuHours counts the queues under it (about 100), no budget of its own" \
	[ "$(jfield '99.9 < j["usageGpuHours"] <= 100, "gpuHourBudget" in j')" = "True False" ]
req GET /v1/queues
check "GET /v1/queues: gpuHourBudget for spent only" \
	[ "$(jfield '[q["name"] for q in j["queues"] if "gpuHourBudget" in q]')" = "['spent']" ]
req POST /v1/jobs '{"name":"held","queue":"spent","runtime":3600,"tasks":[{"gpus":1}]}'
req POST /v1/jobs '{"name":"free","queue":"fresh","runtime":3600,"tasks":[{"gpus":1}]}'
req POST /v1/cycle
job_is "fresh's job starts" free 'j["state"] == "running"'
job_is "spent's job waits: over_budget, expected when spent's usage (100, nothing of it running) decays below 50: one half-life, 7 days, from now" held \
	'j["state"] == "pending" and j["reason"] == "over_budget" and "unknownWhy" not in j and abs(j["expectedStart"] - __import__("time").time() - 7 * 86400) < 300'
check "... its text names the queue and both amounts" python3 -c '
import json, sys
j = json.loads(sys.argv[1])
want = "over budget: its queue \"spent\" has used 100 GPU-hours, its decayed usage, of its budget of 50 (gpuHourBudget); it starts once usage decays below it"
assert j["reasonText"] == want, j' "$BODY"
check "/metrics: fairway_queue_gpu_hour_budget for spent only" bash -c \
	"[ \"\$(curl -s http://127.0.0.1:$PORT/metrics | grep '^fairway_queue_gpu_hour_budget{')\" = 'fairway_queue_gpu_hour_budget{queue=\"spent\"} 50' ]"
check "/metrics: fairway_pending_jobs{reason=\"over_budget\"} 1" [ "$(metric 'fairway_pending_jobs{reason="over_budget"}')" = 1 ]
check "/metrics: fairway_queue_usage_gpu_hours{queue=\"spent\"} about 100" \
	python3 -c 'import sys; sys.exit(not 99.9 < float(sys.argv[1]) <= 100)' "$(metric 'fairway_queue_usage_gpu_hours{queue="spent"}')"
req GET /v1/fairshare
FS=$BODY
check "GET /v1/fairshare: spent's gpuHourBudget 50 beside its usageGpuHours (about 100)" \
	[ "$(jfield '[(q["gpuHourBudget"], 99.9 < q["usageGpuHours"] <= 100) for q in j["queues"] if q["queue"] == "spent"]')" = "[(50.0, True)]" ]
check "... fresh and org, no budget: gpuHourBudget null" \
	[ "$(jfield 'sorted(q["queue"] for q in j["queues"] if "gpuHourBudget" in q and q["gpuHourBudget"] is None)')" = "['fresh', 'org']" ]
check "... org's usageGpuHours is its subtree's: spent's plus fresh's (what a budget of org's would be held to)" python3 -c '
import json, sys
q = {x["queue"]: x["usageGpuHours"] for x in json.loads(sys.argv[1])["queues"]}
assert q["org"] > 99.9 and abs(q["org"] - q["spent"] - q["fresh"]) < 1e-9, q' "$FS"
req GET /v1/plan
check "GET /v1/plan's fairshare has the budgets too" \
	[ "$(jfield '[(q["queue"], q["gpuHourBudget"]) for q in j["fairshare"]]')" = "[('org', None), ('fresh', None), ('spent', 50.0)]" ]
check "fairway fairshare --json: spent's gpuHourBudget 50, fresh's null" bash -c \
	"'$FW' fairshare --json ${C[*]} | python3 -c 'import json, sys
q = {x[\"queue\"]: x for x in json.load(sys.stdin)[\"queues\"]}
sys.exit(not (q[\"spent\"][\"gpuHourBudget\"] == 50 and q[\"fresh\"][\"gpuHourBudget\"] is None))'"
"$FW" fairshare "${C[@]}" >"$T/fs-budget" 2>&1
check "fairway fairshare: a BUDGET(GPUh) column, spent's 50 marked spent (it has used about 100), fresh's -" \
	bash -c "grep -q 'BUDGET(GPUh)\$' '$T/fs-budget' && grep -Eq '^spent .* 50 spent\$' '$T/fs-budget' && grep -Eq '^fresh .* -\$' '$T/fs-budget'"
"$FW" queues set spent --gpu-hour-budget 0.001 "${C[@]}" >/dev/null 2>&1
req POST /v1/cycle
"$FW" fairshare "${C[@]}" >"$T/fs-small" 2>&1
check "fairway fairshare: a budget of 0.001 GPU-hours shows as 0.001, not 0 (spent, beside its usage of about 100)" \
	grep -Eq '^spent .* (99\.9[0-9]*|100) +0\.001 spent$' "$T/fs-small"
"$FW" queues set spent --gpu-hour-budget 50 "${C[@]}" >/dev/null 2>&1
req POST /v1/cycle
curl -s "http://127.0.0.1:$PORT/metrics" >"$T/metrics-budget"
check "/metrics: org's fairway_queue_usage_gpu_hours is its subtree's (spent's plus fresh's, to the 3 decimals shown)" \
	awk '$1 == "fairway_queue_usage_gpu_hours{queue=\"org\"}" {o = $2} $1 == "fairway_queue_usage_gpu_hours{queue=\"spent\"}" {s = $2}
	     $1 == "fairway_queue_usage_gpu_hours{queue=\"fresh\"}" {f = $2} END {d = o - s - f; exit !(o > 99.9 && d < 0.0015 && d > -0.0015)}' \
	"$T/metrics-budget"
missing=$(dashboard_missing "$T/metrics-budget" fairway_queue_gpu_hours_left)
check "with a budget set, every metric the Grafana dashboard draws is exported, the budget's too (missing: $missing)" \
	[ "$missing" = none ]
check "without budgetSafe: no LEFT(GPUh) column in fairway fairshare" bash -c "! grep -q 'LEFT(GPUh)' '$T/fs-budget'"
check "without budgetSafe: no fairway_queue_gpu_hours_left in /metrics" bash -c "! grep -q fairway_queue_gpu_hours_left '$T/metrics-budget'"
req GET /v1/fairshare
check "without budgetSafe: GET /v1/fairshare has no gpuHoursLeft" [ "$(jfield 'any("gpuHoursLeft" in q for q in j["queues"])')" = False ]
req GET /v1/health
check "without budgetSafe: GET /v1/health says budgetSafe false" [ "$(jfield 'j["budgetSafe"]')" = False ]
check "the dashboard has a panel drawing usage against budget (fairway_queue_usage_gpu_hours, fairway_queue_gpu_hour_budget)" \
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(not any(all(m in " ".join(t["expr"] for t in p["targets"]) for m in sys.argv[2:]) for p in d["panels"]))' \
	docs/grafana-fairway.json fairway_queue_usage_gpu_hours fairway_queue_gpu_hour_budget
"$FW" jobs why held "${C[@]}" >"$T/why" 2>&1
check "fairway jobs why: why it waits, over budget, naming spent, and when it may start" bash -c \
	"grep -q '^why it waits: over budget: its queue \"spent\" has used 100 GPU-hours, its decayed usage, of its budget of 50 (gpuHourBudget)' '$T/why' &&
	 grep -Eq '^expected start: .*\([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z; the earliest plausible start, not a promise\)$' '$T/why'"
"$FW" queues list "${C[@]}" >"$T/qlist" 2>&1
check "fairway queues list: GPU-H USED and GPU-H BUDGET (spent 100 of 50; fresh no budget)" bash -c \
	"grep -q 'GPU-H USED GPU-H BUDGET' '$T/qlist' && grep -Eq '^spent .* 100 +50  +- +-$' '$T/qlist' &&
	 grep -Eq '^fresh .* [0-9.e+-]+ +-  +- +-$' '$T/qlist'"
check "fairway queues list --json has it" bash -c "'$FW' queues list --json ${C[*]} | grep -q '\"gpuHourBudget\": 50'"
# bad values: 400 naming the field, nothing applied
for v in -1 1000000001 '"10"' true; do
	req PATCH /v1/queues/spent "{\"priority\":3,\"gpuHourBudget\":$v}"
	check "PATCH gpuHourBudget $v: 400 naming gpuHourBudget" \
		[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = gpuHourBudget ]
done
check "... saying the range" [ "$(req PATCH /v1/queues/spent '{"gpuHourBudget":-1}'; jfield 'j["error"]["message"]')" = "must be between 0 and 1000000000" ]
req PATCH /v1/queues/spent '{"priority":3,"gpuHourBudget":1e400}'
check "gpuHourBudget 1e400 (no finite number; jansson refuses the body): 400 naming gpuHourBudget, saying the number" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], j["error"]["message"]')" = \
		"gpuHourBudget is out of range: 1e400 does not fit a 64-bit integer or a double" ]
req GET /v1/queues/spent
check "... and nothing applied: budget 50, priority 0" [ "$(jfield 'j["gpuHourBudget"], j["priority"]')" = "50.0 0" ]
req PUT /v1/queues/badbudget '{"parent":"org","gpuHourBudget":-5}'
check "PUT a new queue with gpuHourBudget -5: 400 naming it" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = gpuHourBudget ]
req PUT /v1/queues/badbudget '{"parent":"org",
  "gpuHourBudget": -1e400}'
check "PUT a new queue with gpuHourBudget -1e400: 400 naming it" [ "$CODE" = 400 -a "$(jfield 'j["error"]["field"]')" = gpuHourBudget ]
req POST /v1/queues '{"name":"badbudget","parent":"org","gpuHourBudget":1e400,"priority":1e400}'
check "POST with two numbers out of range: 400 naming the body, with the first one's line and column" \
	[ "$CODE" = 400 -a "$(jfield 'j["error"]["field"], "at line 1, column 56" in j["error"]["message"]')" = "body True" ]
req GET /v1/queues/badbudget
check "... no queue made" [ "$CODE" = 404 ]
"$FW" queues set spent --gpu-hour-budget -5 "${C[@]}" >/dev/null 2>"$T/err"
check "fairway queues set --gpu-hour-budget -5: exit 2, says the range" \
	bash -c "[ $? -eq 2 ] && grep -q -- '--gpu-hour-budget -5: must be from 0 to 1000000000 GPU-hours' '$T/err'"
"$FW" queues set spent --gpu-hour-budget 2h "${C[@]}" >/dev/null 2>"$T/err"
check "fairway queues set --gpu-hour-budget 2h: exit 2, not a number" \
	bash -c "[ $? -eq 2 ] && grep -q -- \"--gpu-hour-budget '2h' is not a number of GPU-hours\" '$T/err'"
check "fairway queues --help teaches --gpu-hour-budget" bash -c "'$FW' queues --help | grep -q -- '--gpu-hour-budget H (GPU-hours'"
req GET /v1/jobs/held
check "a refused change starts nothing: held still over_budget" [ "$(jfield 'j["state"], j["reason"]')" = "pending over_budget" ]
# a GET's answer PUTs back as it is (usageGpuHours taken and dropped)
req GET /v1/queues/spent
req PUT /v1/queues/spent "$BODY"
check "PUT of a GET's queue document: 200, the budget kept" [ "$CODE" = 200 -a "$(jfield 'j["gpuHourBudget"]')" = 50.0 ]
# raise it: the job starts
"$FW" queues set spent --gpu-hour-budget 150.5 "${C[@]}" >/dev/null 2>&1
req GET /v1/queues/spent
check "fairway queues set --gpu-hour-budget 150.5: gpuHourBudget 150.5, the rest kept" \
	[ "$(jfield 'j["gpuHourBudget"], j["deserved"]["gpu"], j["parent"]')" = "150.5 4.0 org" ]
job_is "budget raised above the usage: the held job starts" held 'j["state"] == "running"'
# a tiny budget holds the next job; 0 clears it
req PATCH /v1/queues/spent '{"gpuHourBudget":0.0001}'
check "PATCH gpuHourBudget 0.0001: 200" [ "$CODE" = 200 -a "$(jfield 'j["gpuHourBudget"]')" = 0.0001 ]
req POST /v1/jobs '{"name":"held2","queue":"spent","runtime":3600,"tasks":[{"gpus":1}]}'
job_is "a budget of 0.0001 holds the next job, its text saying 0.0001 (not the core's 1)" held2 \
	'j["reason"] == "over_budget" and "of its budget of 0.0001 (gpuHourBudget)" in j["reasonText"]'
req GET /v1/jobs/held
check "... the job already running runs on" [ "$(jfield 'j["state"]')" = running ]
req PATCH /v1/queues/spent '{"gpuHourBudget":0}'
check "PATCH gpuHourBudget 0: 200, no gpuHourBudget in the document" [ "$CODE" = 200 -a "$(jfield '"gpuHourBudget" in j')" = False ]
job_is "budget cleared: the job starts" held2 'j["state"] == "running"'
check "/metrics: no fairway_queue_gpu_hour_budget once no queue has a budget" bash -c \
	"! curl -s http://127.0.0.1:$PORT/metrics | grep -q '^fairway_queue_gpu_hour_budget'"
# usage the daemon accrues counts: fresh's job has run a second or more
becomes "fresh's usage accrues from its running job (usageGpuHours > 0.0003: a GPU-second and more)" \
	/v1/queues/fresh 'j["usageGpuHours"] > 0.0003'
req PATCH /v1/queues/fresh '{"gpuHourBudget":0.0001}'
req POST /v1/jobs '{"name":"fresh2","queue":"fresh","runtime":3600,"tasks":[{"gpus":1}]}'
job_is "fresh's budget of 0.0001, spent by its own running job: its next job waits, over_budget" fresh2 \
	'j["state"] == "pending" and j["reason"] == "over_budget" and "its queue \"fresh\"" in j["reasonText"]'
req PATCH /v1/queues/fresh '{"gpuHourBudget":null}'
check "PATCH gpuHourBudget null removes it too" [ "$CODE" = 200 -a "$(jfield '"gpuHourBudget" in j')" = False ]
job_is "... and fresh's next job starts" fresh2 'j["state"] == "running"'
# a restart keeps the API's budget, not the YAML's
req PATCH /v1/queues/spent '{"gpuHourBudget":75.25}'
stop_daemon
start_daemon "$S" "$PORT" --config "$T/budget.yaml" || bad "daemon restarts on budget.yaml"
req GET /v1/queues/spent
check "restart: spent's gpuHourBudget is the API's 75.25 (not the YAML's 50), its usage kept" \
	[ "$(jfield 'j["gpuHourBudget"], 99.9 < j["usageGpuHours"] < 101')" = "75.25 True" ]
req POST /v1/jobs '{"name":"held3","queue":"spent","runtime":3600,"tasks":[{"gpus":1}]}'
job_is "restart: the budget holds spent's next job" held3 \
	'j["reason"] == "over_budget" and "of its budget of 75.25 (gpuHourBudget)" in j["reasonText"]'
check "restart: /metrics has the budget" [ "$(metric 'fairway_queue_gpu_hour_budget{queue="spent"}')" = 75.25 ]
stop_daemon

# --- scheduler.budgetSafe (the YAML's reaches the daemon): a job starts only
# if its whole run fits what the budget has left.  tight (under org) has a
# budget of 10 GPU-hours, nothing used: long (8 GPUs, maxRuntime 2h: 16
# GPU-h) waits, budget_short; short (1 GPU, runtime 1h) starts, and what
# is left then, 9, is in long's text, which names tight and says what the
# run is; a job with no runtime and no limit has no bound and waits, its
# text naming tight and asking for a maxRuntime.  forever (no bound) runs
# in free, under no budget, until org gets one: what org has left is then
# unknown, and wide's text (free, 1 GPU-h) names org and forever.
fleet_daemon safe state-safe <<'EOF2'
now: 0
scheduler: {budgetSafe: true}
nodes:
  - {name: solo, gpus: 8, cpu: 64, memory: 512Gi}
queues:
  - {name: org, resources: {gpu: {quota: 8}}}
  - {name: tight, parent: org, gpuHourBudget: 10, resources: {gpu: {quota: 8}}}
  - {name: free, parent: org, resources: {gpu: {quota: 8}}}
EOF2
req POST /v1/jobs '{"name":"long","queue":"tight","maxRuntime":7200,"tasks":[{"gpus":8}]}'
req POST /v1/jobs '{"name":"short","queue":"tight","runtime":3600,"tasks":[{"gpus":1}]}'
req POST /v1/cycle
job_is "budgetSafe: short (1 GPU-h) starts" short 'j["state"] == "running"'
job_is "budgetSafe: long (16 GPU-h of 10 left) waits, budget_short, start unknown" long \
	'j["state"] == "pending" and j["reason"] == "budget_short" and j["expectedStart"] is None and j["unknownWhy"] == "budget_short"'
SHORT_TEXT='budget short: its whole run may use 16 GPU-hours (8 GPUs × its 2h00m maxRuntime) and its queue "tight" has 9 GPU-hours left of its budget of 10 after its usage and what its running jobs may still use (budgetSafe)'
check "budgetSafe: long's reasonText names tight, its run and the 9 left" [ "$(jfield 'j["reasonText"]')" = "$SHORT_TEXT" ]
check "budgetSafe: ... and its unknownWhyText the same" [ "$(jfield 'j["unknownWhyText"]')" = "$SHORT_TEXT" ]
"$FW" jobs why long --server "http://127.0.0.1:$PORT" >"$T/whyshort" 2>&1
check "budgetSafe: fairway jobs why long prints it" grep -qxF "why it waits: $SHORT_TEXT" "$T/whyshort"
req POST /v1/jobs '{"name":"nobound","queue":"tight","tasks":[{"gpus":1}]}'
job_is "budgetSafe: a job with no runtime and no limit waits, naming tight, asked for a maxRuntime" nobound \
	'j["reason"] == "budget_short" and j["reasonText"].startswith("budget short: its queue \"tight\" has a GPU-hour budget of 10 and budgetSafe is on") and j["reasonText"].endswith("give it a run-time limit (maxRuntime) or a runtime")'
check "/metrics: fairway_pending_jobs{reason=\"budget_short\"} 2" [ "$(metric 'fairway_pending_jobs{reason="budget_short"}')" = 2 ]
# What tight's budget has left after the last plan, about 9 (10 less
# short's run: the part it ran, now usage, and the rest it may still run),
# in GET /v1/fairshare, /metrics and the fairshare table; org and free,
# without a budget, have none; GET /v1/health says budgetSafe.
req GET /v1/fairshare
check "budgetSafe: GET /v1/fairshare: tight's gpuHoursLeft about 9, org and free none" \
	[ "$(jfield '[(q["queue"], 8.99 < q["gpuHoursLeft"] < 9.01 if "gpuHoursLeft" in q else None) for q in j["queues"]]')" = "[('org', None), ('free', None), ('tight', True)]" ]
curl -s "http://127.0.0.1:$PORT/metrics" >"$T/metrics-left"
check "budgetSafe: /metrics: fairway_queue_gpu_hours_left{queue=\"tight\"} about 9, the only one" \
	awk '/^fairway_queue_gpu_hours_left[{]/ {n++; if ($1 == "fairway_queue_gpu_hours_left{queue=\"tight\"}" && $2 > 8.99 && $2 < 9.01) t++}
	     END {exit !(n == 1 && t == 1)}' "$T/metrics-left"
req GET /v1/health
check "budgetSafe: GET /v1/health says budgetSafe true" [ "$(jfield 'j["budgetSafe"]')" = True ]
"$FW" fairshare --server "http://127.0.0.1:$PORT" >"$T/fs-safe" 2>&1
check "budgetSafe: fairway fairshare: a LEFT(GPUh) column, tight's 9.0 beside its budget of 10, org's -" \
	bash -c "grep -q 'BUDGET(GPUh)   LEFT(GPUh)\$' '$T/fs-safe' && grep -Eq '^tight .* 10 +9\.0\$' '$T/fs-safe' && grep -Eq '^org .* - +-\$' '$T/fs-safe'"
# later (1 GPU, maxRuntime 9.5 h: 9.5 GPU-h of the 9 left) waits,
# budget_short, but not for ever: once short's hour is over its run is
# usage, and when that has decayed to 0.5 GPU-h (a half-life, 7 days,
# on) later fits; its expectedStart says so.
req POST /v1/jobs '{"name":"later","queue":"tight","maxRuntime":34200,"tasks":[{"gpus":1}]}'
req POST /v1/cycle
job_is "budgetSafe: later (9.5 GPU-h of 9 left) waits, budget_short, with a start time" later \
	'j["reason"] == "budget_short" and j["expectedStart"] is not None and j.get("unknownWhy") is None'
LATER_AT=$(jfield 'j["expectedStart"]')
req GET /v1/fairshare
check "budgetSafe: ... expected about a half-life (7 days) after the plan, when the decay leaves room" \
	python3 -c 'import sys; d = int(sys.argv[1]) - int(sys.argv[2]); sys.exit(not 6 * 86400 < d < 8 * 86400)' \
	"$LATER_AT" "$(jfield 'j["at"]')"
req POST /v1/jobs '{"name":"forever","queue":"free","tasks":[{"gpus":1}]}'
job_is "budgetSafe: forever (no bound) runs in free, under no budget" forever 'j["state"] == "running"'
req PATCH /v1/queues/org '{"gpuHourBudget":100}'
req POST /v1/jobs '{"name":"wide","queue":"free","runtime":3600,"tasks":[{"gpus":1}]}'
job_is "budgetSafe: org's budget with forever running under it: wide waits, naming org and forever" wide \
	'j["reason"] == "budget_short" and j["reasonText"] == "budget short: its whole run may use 1 GPU-hour (1 GPU × its 1h00m runtime), and what is left of the budget of 100 of queue \"org\", above its queue \"free\", is unknown: job \"forever\" running under it has no run-time limit (maxRuntime) or runtime (budgetSafe)"'
# org's left is unknown now: null in GET /v1/fairshare, no sample in
# /metrics (tight's still there), ? in the table; --json passes it.
req GET /v1/fairshare
check "budgetSafe: org's gpuHoursLeft null (forever has no bound), tight's still about 9" \
	[ "$(jfield '[(q["queue"], q.get("gpuHoursLeft", "absent") if q["queue"] != "tight" else 8.99 < q["gpuHoursLeft"] < 9.01) for q in j["queues"]]')" = "[('org', None), ('free', 'absent'), ('tight', True)]" ]
curl -s "http://127.0.0.1:$PORT/metrics" >"$T/metrics-safe"
check "budgetSafe: /metrics: org's budget 100, no gpu_hours_left sample for org, tight's there" bash -c \
	"grep -qx 'fairway_queue_gpu_hour_budget{queue=\"org\"} 100' '$T/metrics-safe' && ! grep -q '^fairway_queue_gpu_hours_left{queue=\"org\"}' '$T/metrics-safe' && grep -q '^fairway_queue_gpu_hours_left{queue=\"tight\"} ' '$T/metrics-safe'"
check "budgetSafe: /metrics: the help says a queue whose left is unknown has no sample" \
	grep -q '^# HELP fairway_queue_gpu_hours_left .*(so what is left is unknown) has no sample' "$T/metrics-safe"
missing=$(dashboard_missing "$T/metrics-safe")
check "budgetSafe: every metric the Grafana dashboard draws is exported, GPU-hours left too (missing: $missing)" \
	[ "$missing" = none ]
check "the dashboard's budget panel draws fairway_queue_gpu_hours_left" python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(not any("fairway_queue_gpu_hour_budget" in " ".join(t["expr"] for t in p["targets"]) and
                 "fairway_queue_gpu_hours_left" in " ".join(t["expr"] for t in p["targets"]) for p in d["panels"]))' \
	docs/grafana-fairway.json
"$FW" fairshare --server "http://127.0.0.1:$PORT" >"$T/fs-safe2" 2>&1
check "budgetSafe: fairway fairshare: org's LEFT(GPUh) is ? (unknown)" grep -Eq '^org .* 100 +\?$' "$T/fs-safe2"
check "budgetSafe: fairway fairshare --json: org's gpuHoursLeft null, tight's a number" bash -c \
	"'$FW' fairshare --json --server http://127.0.0.1:$PORT | python3 -c 'import json, sys
q = {x[\"queue\"]: x for x in json.load(sys.stdin)[\"queues\"]}
sys.exit(not (q[\"org\"][\"gpuHoursLeft\"] is None and isinstance(q[\"tight\"][\"gpuHoursLeft\"], float)))'"
stop_daemon

# --- before the first plan: the cycle results answer empty and leak nothing ---
fleet_daemon noplan state-noplan <<'EOF2'
now: 0
nodes:
  - {name: solo, gpus: 8, cpu: 64, memory: 512Gi}
queues:
  - name: q
    resources: {gpu: {quota: 8}}
EOF2
stop_daemon
python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("INSERT INTO queues (key, doc) VALUES (?, ?)", ("orphan", "{\"name\":\"orphan\",\"parent\":\"nowhere\"}"))
c.commit()' "$S/fairway.db"
start_daemon "$S" "$PORT" --config "$T/noplan.yaml" || bad "daemon restarts with a queue under an unknown parent"
becomes "a stored queue under an unknown parent: cycles fail, no plan yet" /v1/health 'not j["ok"] and not j["viewReady"]'
req GET /v1/nodes
check "GET /v1/nodes before the first plan: 503 EAGAIN saying why the cycles fail" [ "$CODE" = 503 -a "$(jfield 'j["error"]["code"]')" = EAGAIN ] &&
	check "... naming the orphan queue" grep -q 'the last one failed: .*orphan' "$T/body"
req GET /v1/nodes/solo
check "GET /v1/nodes/solo before the first plan: 503, not 404" [ "$CODE" = 503 ]
req GET /v1/fairshare
check "GET /v1/fairshare before the first plan: 200, no queues, at null" [ "$CODE" = 200 -a "$(jfield 'j["queues"], j["at"]')" = "[] None" ]
stop_daemon
check "... and neither leaks (no LeakSanitizer report when the daemon stops)" bash -c "! grep -q LeakSanitizer '$T/daemon.log'"

# --- --backend-opt min-job-age: ended jobs are forgotten, in memory and in the store --------
start_daemon "$T/state-age" "$PORT" --config "$T/solo.yaml" --backend-opt min-job-age=2 ||
	bad "daemon starts with --backend-opt min-job-age=2"
S=$T/state-age
TOKEN=$(cat "$S/token")
req POST /v1/jobs '{"name":"brief","queue":"q","runtime":1,"tasks":[{"gpus":1}]}'
req POST /v1/jobs '{"name":"stays","queue":"q","tasks":[{"gpus":1}]}'
job_is "min-job-age: a 1 s job ends (done)" brief 'j["state"] == "done"'
check "... and is still there right after its end" [ "$(stored_state brief)" = done ]
for _ in $(seq 1 60); do
	req GET /v1/jobs/brief
	[ "$CODE" = 404 ] && break
	sleep 0.1
done
check "min-job-age=2: GET /v1/jobs/brief answers 404 once it ended 2 s ago" [ "$CODE" = 404 ]
check "... its document is gone from the store" [ "$(stored_state brief)" = none ]
check "... /metrics counts it in fairway_jobs_purged_total" [ "$(metric fairway_jobs_purged_total)" = 1 ]
req GET /v1/jobs/stays
check "... a running job is kept" [ "$CODE" = 200 -a "$(jfield 'j["state"]')" = running ]
req POST /v1/jobs '{"name":"brief","queue":"q","runtime":1,"tasks":[{"gpus":1}]}'
check "... and the forgotten name may be used again (201)" [ "$CODE" = 201 ]
job_is "... that new job runs and ends, its decisions its own (one start, not the old job's too)" brief \
	'j["state"] == "done" and [d["kind"] for d in j["decisions"]].count("start") == 1'
stop_daemon

# --- --log-keep: the decision log and usage history keep their recent rows only ---------------
start_daemon "$T/state-keep" "$PORT" --config "$T/solo.yaml" --log-keep 3s ||
	bad "daemon starts with --log-keep 3s"
S=$T/state-keep
TOKEN=$(cat "$S/token")
log_rows() { # the job's rows in the decision log
	python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM decisions WHERE job = ?", (sys.argv[2],)).fetchone()[0])' \
		"$S/fairway.db" "$1"
}
req POST /v1/jobs '{"name":"logged","queue":"q","runtime":1,"tasks":[{"gpus":1}]}'
job_is "--log-keep: a job starts and ends, its start in the decision log" logged \
	'j["state"] == "done" and [d["kind"] for d in j["decisions"]] == ["start"]'
check "... one row in the store's decision log" [ "$(log_rows logged)" = 1 ]
for _ in $(seq 1 40); do # every cycle deletes the rows older than 3 s
	[ "$(log_rows logged)" = 0 ] && break
	sleep 0.25
done
check "--log-keep 3s: the start's row leaves the store 3 s on" [ "$(log_rows logged)" = 0 ]
check "... /metrics counts it (fairway_log_rows_trimmed_total, table decisions)" \
	[ "$(metric 'fairway_log_rows_trimmed_total{table="decisions"}')" -ge 1 ]
req GET /v1/jobs/logged
check "... the job itself stays (that is min-job-age's to forget), with no decisions left" \
	[ "$CODE" = 200 -a "$(jfield 'j["state"], j["decisions"]')" = "done []" ]
stop_daemon

# --- a restart on a config whose queues or jobs the store overrides: one warning line ----------
# warnings_since N: the warning lines of the daemon log past its first N lines
warnings_since() { tail -n +$(($1 + 1)) "$T/daemon.log" | grep 'fairway serve: warning:'; }
n0=$(wc -l <"$T/daemon.log")
fleet_daemon drift state-drift <<'EOF2'
now: 0
nodes:
  - {name: d0, gpus: 8, cpu: 64, memory: 512Gi}
queues:
  - {name: a, resources: {gpu: {quota: 4}}}
  - {name: b, resources: {gpu: {quota: 4}}}
jobs:
  - {name: seeded, queue: a, submitTime: 0, tasks: [{gpus: 1}]}
EOF2
job_is "config drift: the first start seeds the config's job" seeded 'j["state"] in ("pending", "running")'
stop_daemon
check "config drift: a first start warns of nothing" [ -z "$(warnings_since "$n0")" ]
n0=$(wc -l <"$T/daemon.log")
start_daemon "$S" "$PORT" --config "$T/drift.yaml" || bad "daemon restarts on drift.yaml"
stop_daemon
check "config drift: a restart on the same config warns of nothing" [ -z "$(warnings_since "$n0")" ]
sed -e 's/{name: a, resources: {gpu: {quota: 4}}}/{name: a, resources: {gpu: {quota: 6}}}/' \
	-e 's/^jobs:/  - {name: c, resources: {gpu: {quota: 2}}}\njobs:/' "$T/drift.yaml" >"$T/drift2.yaml"
echo '  - {name: late, queue: b, submitTime: 0, tasks: [{gpus: 1}]}' >>"$T/drift2.yaml"
n0=$(wc -l <"$T/daemon.log")
start_daemon "$S" "$PORT" --config "$T/drift2.yaml" || bad "daemon restarts on drift2.yaml"
warnings_since "$n0" >"$T/drift.warn"
check "config drift: a restart on a changed config warns once, naming each difference, and that the store wins" \
	[ "$(cat "$T/drift.warn")" = "fairway serve: warning: the queues or jobs of $T/drift2.yaml differ from the store's: queue \"a\" has other deserved in the config; queue \"c\" is in the config, not the store; job \"late\" is in the config, not the store; the store wins (the config seeds queues and jobs only at the first start, then supplies only the fleet): change queues with the API (PUT or PATCH /v1/queues/NAME, fairway queues set) and submit jobs with POST /v1/jobs (fairway jobs submit)" ]
req GET /v1/queues/a
check "... and the store did win: a keeps deserved.gpu 4" [ "$(jfield 'j["deserved"]["gpu"]')" = 4.0 ]
req GET /v1/queues/c
check "... no queue c" [ "$CODE" = 404 ]
req GET /v1/jobs/late
check "... no job late" [ "$CODE" = 404 ]
stop_daemon

# --- estimate texts a QA pass found misleading (two windows, a limit, minRuntime) -----------------
fleet_daemon qa-two state-qa <<'EOF2'
now: 0
nodes:
  - {name: n0, gpus: 8, cpu: 64, memory: 512Gi}
queues:
  - {name: team-a, resources: {gpu: {quota: 4}}, minRuntime: 1h}
  - {name: team-b, resources: {gpu: {quota: 4}}}
EOF2
C=(--server "http://127.0.0.1:$PORT" --token-file "$S/token")
now=$(date +%s)
req POST /v1/reservations "{\"kind\":\"maintenance\",\"nodes\":[\"n0\"],\"start\":$((now + 86400)),\"end\":$((now + 90000))}"
req POST /v1/reservations "{\"kind\":\"maintenance\",\"nodes\":[\"n0\"],\"start\":$((now + 60)),\"end\":$((now + 120))}"
req POST /v1/cycle
node_is "two windows to come: n0 leaves at the first and is back at its end, not the second's" n0 \
	"j['leavesAt'] == $((now + 60)) and abs(j['backAt'] - $((now + 120))) <= 2"
req DELETE /v1/reservations/rsv-1
req DELETE /v1/reservations/rsv-2
"$FW" queues set team-b --limit-gpus 4 "${C[@]}" >/dev/null 2>&1
"$FW" jobs submit --name wide --queue team-b --gpus 8 "${C[@]}" >"$T/qa-out" 2>"$T/qa-err"
check "jobs submit over a queue's GPU limit: submitted, with a warning that it never starts while the limit holds" \
	bash -c "grep -q '^submitted wide' '$T/qa-out' && grep -q 'warning: it needs 8 GPUs and queue \"team-b\" has a GPU limit of 4 GPUs: it can never start while that limit holds' '$T/qa-err'"
req POST /v1/cycle
job_is "... and its reason names the queue and its limit, start unknown (queue_limit)" wide \
	'j["reason"] == "over_quota" and "its queue team-b has a GPU limit of 4 GPUs: it can never start" in j["reasonText"] and j["unknownWhy"] == "queue_limit"'
req DELETE /v1/jobs/wide
req POST /v1/jobs '{"name":"a-fill","queue":"team-a","tasks":[{"gpus":8}],"preemptible":true}'
req POST /v1/cycle
req POST /v1/jobs '{"name":"b-wait","queue":"team-b","tasks":[{"gpus":4}]}'
req POST /v1/cycle
job_is "a reclaim held back by minRuntime: reason min_runtime naming team-a, expected when it ends" b-wait \
	'j["reason"] == "min_runtime" and "jobs of queue team-a," in j["reasonText"] and abs(j["expectedStart"] - '$((now + 3600))') <= 5'
stop_daemon

# --- a starving gang holds its queue's limit (limit_held), as a user reads it ------------------
# Queue capped: quota and limit 16 GPUs, r8 and r4 running (12 GPUs).  Gang
# big (2 x 8) waits for the limit's whole room (over_quota); once it has
# waited past scheduler.starveAfter (2 s here), small (4 GPUs, which the
# limit's 4 GPUs of room would take) waits for it, reason limit_held,
# expected no sooner than big.  Every place a user looks names the reason,
# the gang and the queue by name (docs/policies.md "A starving gang holds
# its queues' limits").  A period of an hour: only POST /v1/cycle plans.
PERIOD=1h fleet_daemon held state-held <<'EOF2'
scheduler: {starveAfter: 2s}
nodes:
  - {name: n0, gpus: 8, cpu: 64, memory: 512Gi}
  - {name: n1, gpus: 8, cpu: 64, memory: 512Gi}
  - {name: n2, gpus: 8, cpu: 64, memory: 512Gi}
  - {name: n3, gpus: 8, cpu: 64, memory: 512Gi}
queues:
  - {name: capped, resources: {gpu: {quota: 16, limit: 16}}}
EOF2
C=(--server "http://127.0.0.1:$PORT" --token-file "$S/token")
"$FW" jobs submit --name r8 --queue capped --gpus 8 --runtime 600 "${C[@]}" >/dev/null 2>&1
"$FW" jobs submit --name r4 --queue capped --gpus 4 --runtime 900 "${C[@]}" >/dev/null 2>&1
req POST /v1/cycle
"$FW" jobs submit --name big --queue capped --gpus 8 --count 2 --runtime 1200 "${C[@]}" >/dev/null 2>&1
req POST /v1/cycle
job_is "limit_held: gang big waits for the limit's whole room (over_quota) while r8 and r4 run" big \
	'j["state"] == "pending" and j["reason"] == "over_quota" and j["expectedStart"] is not None'
sleep 2.2 # big starves (starveAfter 2s)
"$FW" jobs submit --name small --queue capped --gpus 4 --runtime 300 "${C[@]}" >/dev/null 2>&1
req POST /v1/cycle
req GET /v1/jobs/big
big_at=$(jfield 'j["expectedStart"]')
HELD='limit held: job big, a gang waiting past the starvation age, waits for room under the limit of queue capped; until it starts, no later job of that queue takes the room it waits for'
# held_ok: the python condition over a job j that every JSON answer must meet
held_ok="j['name'] == 'small' and j['state'] == 'pending' and j['reason'] == 'limit_held' and j['reasonText'] == '$HELD' and j['expectedStart'] is not None and j['expectedStart'] >= $big_at"
job_is "limit_held: GET /v1/jobs/small: pending, limit_held, naming big and capped, expected no sooner than big ($big_at)" \
	small "$held_ok"
req GET '/v1/jobs?reason=limit_held'
check "limit_held: GET /v1/jobs?reason=limit_held lists small alone, as GET /v1/jobs/small" \
	[ "$(jfield "[j['name'] for j in j['jobs']] == ['small'] and all($held_ok for j in j['jobs'])")" = True ]
req GET /v1/plan
check "limit_held: GET /v1/plan: small pending, limit_held, named, after big" \
	[ "$(jfield "[$held_ok for j in j['pending'] if j['name'] == 'small'] == [True]")" = True ]
check "limit_held: /metrics fairway_pending_jobs{reason=\"limit_held\"} 1" \
	[ "$(metric 'fairway_pending_jobs{reason="limit_held"}')" = 1 ]
"$FW" jobs list "${C[@]}" >"$T/held-list" 2>&1
check "limit_held: fairway jobs list: small's REASON limit_held, an expected START" \
	grep -Eq '^small +capped +[^ ]+ +pending +4 +limit_held +in [0-9hms]+ +\(expected start\)$' "$T/held-list"
"$FW" jobs list --reason limit_held "${C[@]}" >"$T/held-list" 2>&1
check "limit_held: fairway jobs list --reason limit_held: the header and small alone" \
	bash -c "[ \$(wc -l <'$T/held-list') = 2 ] && grep -Eq '^small +capped .* limit_held ' '$T/held-list'"
for cmd in "jobs list" "jobs list --reason limit_held" "plan"; do
	# shellcheck disable=SC2086
	BODY=$("$FW" $cmd --json "${C[@]}" 2>&1)
	check "limit_held: fairway $cmd --json: small as the API has it" \
		[ "$(jfield "[$held_ok for j in j.get('jobs', j.get('pending', [])) if j['name'] == 'small'] == [True]")" = True ]
done
BODY=$("$FW" jobs show small --json "${C[@]}" 2>&1)
check "limit_held: fairway jobs show small --json: as GET /v1/jobs/small" [ "$(jfield "$held_ok")" = True ]
for cmd in show why; do
	"$FW" jobs $cmd small "${C[@]}" >"$T/held-show" 2>&1
	check "limit_held: fairway jobs $cmd small: why it waits names big and capped, an expected start" \
		bash -c "grep -qxF 'why it waits: $HELD' '$T/held-show' && grep -q '^expected start: in [0-9hms]* (' '$T/held-show'"
done
"$FW" plan --server "http://127.0.0.1:$PORT" >"$T/held-plan" 2>&1
check "limit_held: fairway plan --server: small's WAITING line names big and capped" \
	grep -Eq "^  small +capped +$HELD\$" "$T/held-plan"
stop_daemon
# The same with a gang that waits for nodes, not for the limit: big is
# reserved (other's o8 and o8b hold two of the three nodes) and fills the
# limit of 16 once it starts, so small is expected no sooner than big's
# end (it read the first free node's time while the estimate left a
# reserved gang out of the limit's room).
PERIOD=1h fleet_daemon held-resv state-held-resv <<'EOF2'
scheduler: {starveAfter: 2s}
nodes:
  - {name: n0, gpus: 8, cpu: 64, memory: 512Gi}
  - {name: n1, gpus: 8, cpu: 64, memory: 512Gi}
  - {name: n2, gpus: 8, cpu: 64, memory: 512Gi}
queues:
  - {name: capped, resources: {gpu: {quota: 16, limit: 16}}}
  - {name: other, resources: {gpu: {quota: 16}}}
EOF2
C=(--server "http://127.0.0.1:$PORT" --token-file "$S/token")
"$FW" jobs submit --name o8 --queue other --gpus 8 --runtime 600 "${C[@]}" >/dev/null 2>&1
"$FW" jobs submit --name o8b --queue other --gpus 8 --runtime 700 "${C[@]}" >/dev/null 2>&1
req POST /v1/cycle
"$FW" jobs submit --name big --queue capped --gpus 8 --count 2 --runtime 1200 "${C[@]}" >/dev/null 2>&1
req POST /v1/cycle
job_is "limit_held, reserved gang: big waits for nodes (has_reservation)" big \
	'j["state"] == "pending" and j["reason"] == "has_reservation" and j["expectedStart"] is not None'
sleep 2.2 # big starves (starveAfter 2s)
"$FW" jobs submit --name small --queue capped --gpus 4 --runtime 3600 "${C[@]}" >/dev/null 2>&1
req POST /v1/cycle
req GET /v1/jobs/big
big_end=$(jfield 'j["expectedStart"] + 1200')
job_is "limit_held, reserved gang: small waits for big, expected no sooner than big's end ($big_end), as big fills the limit" \
	small "j['reason'] == 'limit_held' and j['reasonText'] == '$HELD' and j['expectedStart'] is not None and j['expectedStart'] >= $big_end"
stop_daemon

# --- the client's --server and its jobs table ---------------------------------------------------
# A period of an hour: after the first cycle, nothing is planned until
# POST /v1/cycle, so a job submitted meanwhile stays not_yet_considered.
PERIOD=1h start_daemon "$T/state-cli" "$PORT" --config "$T/solo.yaml" || bad "daemon starts for the client checks"
S=$T/state-cli
TOKEN=$(cat "$S/token")
for base in "http://127.0.0.1:$PORT/" "http://127.0.0.1:$PORT//" "http://127.0.0.1:$PORT/v1" "http://127.0.0.1:$PORT/v1/"; do
	out=$("$FW" jobs --server "$base" 2>&1)
	rc=$?
	check "--server $base: the same endpoints as without the trailing part" \
		[ "$rc" -eq 0 -a "$(head -1 <<<"$out" | awk '{print $1}')" = JOB ]
done
out=$(FAIRWAY_SERVER="http://127.0.0.1:$PORT/v1/" "$FW" queues 2>&1)
rc=$?
check "FAIRWAY_SERVER with a trailing /v1/: read the same way" [ "$rc" -eq 0 -a "$(grep -c '^q ' <<<"$out")" = 1 ]
out=$("$FW" stats --server "http://127.0.0.1:$PORT" 2>&1)
check "fairway stats: a whole-second period in the span words of every table (--period 1h: a cycle every 1h00m)" \
	grep -Eq '^fairway serve \(local backend\), up [0-9hms]+, a cycle every 1h00m$' <<<"$out"
"$FW" jobs submit --name hog --queue q --gpus 8 --server "http://127.0.0.1:$PORT/" --token-file "$S/token" >/dev/null 2>&1
check "--server with a trailing slash: a change (POST) reaches the daemon too" [ $? -eq 0 ]
req POST /v1/cycle
req POST /v1/jobs '{"name":"waiter","queue":"q","tasks":[{"gpus":1}]}'
"$FW" jobs --server "http://127.0.0.1:$PORT" >"$T/cols" 2>&1
# every row's REASON ends before the START column and its START begins there
columns_line_up() {
	python3 -c 'import sys
lines = open(sys.argv[1]).read().splitlines()
at, start = lines[0].index("REASON"), lines[0].index("START")
rows = [l for l in lines[1:] if l.strip()]
for l in rows:
    reason = l[at:start].strip()
    assert reason and " " not in reason and l[start - 1] == " " and l[start] != " ", l
sys.exit(not any(sys.argv[2] in l[at:start] for l in rows))' "$T/cols" "$1"
}
check "fairway jobs: REASON as wide as not_yet_considered (18), START still lined up" columns_line_up not_yet_considered
req POST /v1/cycle
"$FW" jobs --server "http://127.0.0.1:$PORT" >"$T/cols" 2>&1
check "fairway jobs: a wait with no estimate reads START unknown, alone" \
	grep -Eq '^waiter .* pending .* unknown$' "$T/cols"
check "... and a running job's START says (started)" grep -Eq '^hog .* running .* (now|[0-9]+s ago) +\(started\)$' "$T/cols"
# cancelling several jobs stops at the first token error: said once, exit 2, nothing cancelled
rc=0
env -u FAIRWAY_TOKEN_FILE "$FW" jobs cancel hog waiter nobody --server "http://127.0.0.1:$PORT" \
	--token-file "$T/no-such-token" >"$T/cx" 2>"$T/cx.err" || rc=$?
check "fairway jobs cancel a b c without a token: the token error once, exit 2, nothing on stdout" \
	bash -c "[ $rc = 2 ] && [ ! -s '$T/cx' ] && [ \"\$(wc -l <'$T/cx.err')\" = 1 ] && grep -q 'cannot read the token from $T/no-such-token' '$T/cx.err'"
echo wrong-token-wrong-token >"$T/wrong-token"
rc=0
"$FW" jobs cancel hog waiter nobody --server "http://127.0.0.1:$PORT" --token-file "$T/wrong-token" >"$T/cx" 2>"$T/cx.err" || rc=$?
check "fairway jobs cancel a b c with a refused token: the 401 once, exit 2" \
	bash -c "[ $rc = 2 ] && [ ! -s '$T/cx' ] && [ \"\$(grep -c ': 401: ' '$T/cx.err')\" = 1 ]"
check "... naming the file whose token was refused and where the daemon's is" \
	grep -q ": 401: .*this client sent the token in $T/wrong-token, which the daemon refused: .*by default STATE_DIR/token" "$T/cx.err"
req GET /v1/jobs/hog
check "... and hog still runs" [ "$(jfield 'j["state"]')" = running ]
# a report with every GPU bad: the node is unhealthy, takes no work; BAD shows the GPUs
"$FW" nodes health solo --healthy --bad-gpus 0,1,2,3,4,5,6,7 --reason 'XID 79' --server "http://127.0.0.1:$PORT" \
	--token-file "$S/token" >"$T/solo-health" 2>&1
check "fairway nodes health --healthy with every GPU bad: says it was recorded as unhealthy, and why" \
	grep -qx "solo: health recorded as unhealthy: every GPU bad (8 of 8): XID 79" "$T/solo-health"
req POST /v1/cycle
req GET /v1/nodes/solo
check "every GPU bad in a healthy report: unhealthy, not schedulable, the reason says so" \
	[ "$(jfield 'j["healthy"], j["schedulable"], j["healthReason"]')" = "False False every GPU bad (8 of 8): XID 79" ]
"$FW" nodes --server "http://127.0.0.1:$PORT" >"$T/solo-bad" 2>&1
check "fairway nodes: UNHEALTHY, BAD 0-7 and the reason" grep -Eq '^solo .* UNHEALTHY +0-7 +every GPU bad \(8 of 8\): XID 79$' "$T/solo-bad"
stop_daemon

if grep -E 'ERROR: AddressSanitizer|runtime error|LeakSanitizer' "$T/daemon.log"; then
	bad "the one-node daemon stops cleanly (no sanitizer report)"
else
	ok "the one-node daemon stops cleanly (no sanitizer report)"
fi
finish
