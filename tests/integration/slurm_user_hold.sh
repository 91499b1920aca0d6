#!/usr/bin/env bash
# tests/integration/slurm_user_hold.sh BUILD_DIR — a user's own hold is
# honoured (2 nodes x 8 fake GPUs).  fairway's hold (job_submit.lua's
# priority 0) and a user's `scontrol uhold` both show as priority 0 and
# JobHeldUser in Slurm 22.05, so fairway released a job its user held as
# soon as its plan started it.  Now job_submit.lua records a hold that is
# not fairway's in the Comment, and fairway leaves such a job alone:
#   uhold_not_planned     a job held with scontrol uhold while fairway is
#                         stopped stays held (priority 0, JobHeldUser) while
#                         fairway runs and starts a job submitted after it
#   uhold_commented       its comment says it is held by its user
#   release_returns_to_fairway  scontrol release gives it back to fairway
#                         (job_submit.lua holds it again, "queued"), and
#                         fairway starts it: its comment reads
#                         "fairway: started on ..."
#   submit_hold_not_planned  sbatch --hold: held the same way, commented
#   submit_hold_released_runs  and runs once released
#   admin_hold_keeps_users root's scontrol hold of a job its user holds
#                         (JobHeldAdmin, the Comment's record kept) keeps
#                         it held (it ran: fairway took the admin's hold
#                         for its own)
#   admin_hold_keeps_users_released_runs  released, fairway starts it
#   user_hold_not_planned a job of user nobody held by nobody (scontrol
#                         hold, a user's hold) while fairway runs: stays held
#   user_release_runs     released by nobody, fairway starts it
#   held_nodelist_change_refused  a -w change of a job its user holds is
#                         refused ("Job is in held state"): the -w record
#                         would replace the hold's in the Comment
#   hold_refused_while_w_waits  a uhold while a -w change waits in the
#                         Comment for fairway to read it is refused ("try
#                         again later"), the record kept
#   admin_hold_honoured   root's scontrol hold (JobHeldAdmin) of a job
#                         is honoured the same way (it was fairway's to
#                         plan: the job ran)
#   admin_release_runs    root's scontrol release: fairway starts it
# Through the daemon (fairway serve --backend slurm); before, a held job
# was in no list and `fairway jobs why` answered 404:
#   serve_held_listed     GET /v1/jobs lists a job its user holds (sbatch
#                         --hold) and one an administrator holds as
#                         pending, "planned" false, reason held, its queue
#                         (account) and GPUs, while Slurm still holds both
#   serve_held_why        GET /v1/jobs/ID answers 200 with reason held and
#                         a reasonText that says who holds it and "scontrol
#                         release ID"; the admin's names the administrator
#   serve_reason_held     GET /v1/jobs?reason=held (the backend's own
#                         reason) lists those two, and `fairway jobs list
#                         --reason held` too; ?reason=hold is refused
#                         naming held
#   cli_held_why          `fairway jobs why ID` prints it ("why it waits:
#                         held by its user ..."), exit 0
#   cli_held_listed       `fairway jobs` shows it pending with reason held
#                         and --json lists it
#   serve_released_runs   released, fairway starts it and lists it as its
#                         own again (no reason held)
#   requeuehold_honoured  a running job fairway started, requeue-held by
#                         its user (scontrol requeuehold: Slurm calls no
#                         submit hook on a requeue, so fairway took it for
#                         its own eviction and started it again once
#                         Slurm's EligibleTime after the requeue passed)
#                         stays held past that, its comment becomes the
#                         hold's record, and the daemon lists it with
#                         reason held
#   requeuehold_released_runs  released, fairway starts it again
. "$(dirname "$0")/../slurm/lib.sh"
TEST_NAME=slurm_user_hold
GPUS=8 SWITCHES=1 lab_up 2
HELD="fairway: held by its user: not planned until released (scontrol release)"

# still_held NAME JOB: after a few cycles, held (priority 0) with the
# hold's comment, whatever Slurm's reason (an administrator's hold)
still_held() {
	local c
	sleep 3
	c=$(squeue -h -j "$2" -o '%Q|%k')
	if [ "$c" = "0|$HELD" ]; then
		ok "$1"
	else
		bad "$1" "priority|comment '$c' ($(squeue -h -t all -j "$2" -o '%T %r'))"
	fi
}

# held_so NAME JOB: held (priority 0, JobHeldUser) with the hold's comment
held_so() {
	local c
	c=$(squeue -h -j "$2" -o '%Q|%r|%k')
	if [ "$c" = "0|JobHeldUser|$HELD" ]; then ok "$1"; else bad "$1" "priority|reason|comment '$c'"; fi
}
# started_by_fairway NAME JOB: runs (or ran), started by fairway
started_by_fairway() {
	if ! wait_until 20 "started $2"; then
		bad "$1" "job $2 did not start: $(squeue -h -j "$2" -o '%Q %r %k')"
		return
	fi
	case "$(squeue -h -t all -j "$2" -o %k)" in
	"fairway: started on "*) ok "$1" ;;
	*) bad "$1" "job $2 ran, but its comment is '$(squeue -h -t all -j "$2" -o %k)' (not fairway's start)" ;;
	esac
}

u=$(sbatch --parsable -A team_a --gres=gpu:1 -t 1 -o /dev/null --wrap 'sleep 2')
scontrol uhold "$u" || bad uhold "scontrol uhold $u refused"
out=$(scontrol update jobid="$u" nodelist=gpu002 2>&1)
if [ $? -ne 0 ] && grep -q "held state" <<<"$out"; then
	held_so held_nodelist_change_refused "$u"
else
	bad held_nodelist_change_refused "the update answered '$out': $(squeue -h -j "$u" -o '%Q|%r|%k')"
fi
w=$(sbatch --parsable -A team_a --gres=gpu:1 -t 1 -o /dev/null --wrap 'sleep 1')
scontrol update jobid="$w" nodelist=gpu002
out=$(scontrol uhold "$w" 2>&1)
if [ $? -ne 0 ] && grep -q "try again later" <<<"$out" && [ "$(squeue -h -j "$w" -o %k)" = "fairway: -w gpu002" ]; then
	ok hold_refused_while_w_waits
else
	bad hold_refused_while_w_waits "uhold answered '$out': $(squeue -h -j "$w" -o '%Q|%r|%k')"
fi
scancel "$w"
fw_start
c=$(sbatch --parsable -A team_a --gres=gpu:1 -t 1 -o /dev/null --wrap 'sleep 2')
wait_until 20 "started $c" || bad setup "control job $c did not start: $(squeue -h -j "$c" -o '%Q %r %k')"
sleep 2 # a few more cycles
if [ "$(squeue -h -j "$u" -o '%T %Q')" = "PENDING 0" ]; then
	ok uhold_not_planned
else
	bad uhold_not_planned "job $u: $(squeue -h -t all -j "$u" -o '%T %Q %r %k')"
fi
held_so uhold_commented "$u"
scontrol release "$u" || bad release "scontrol release $u refused"
started_by_fairway release_returns_to_fairway "$u"

h=$(sbatch --parsable --hold -A team_a --gres=gpu:1 -t 1 -o /dev/null --wrap 'sleep 2')
sleep 3
held_so submit_hold_not_planned "$h"
scontrol release "$h"
started_by_fairway submit_hold_released_runs "$h"

r=$(sbatch --parsable --hold -A team_a --gres=gpu:1 -t 1 -o /dev/null --wrap 'sleep 2')
scontrol hold "$r"
still_held admin_hold_keeps_users "$r"
scontrol release "$r"
started_by_fairway admin_hold_keeps_users_released_runs "$r"

if id nobody >/dev/null 2>&1 && command -v runuser >/dev/null; then
	N() { runuser -u nobody -- env SLURM_CONF="$SLURM_CONF" "$@"; }
	# behind a whole-node job on each node, so that it waits for fairway
	b1=$(sbatch --parsable -A team_a --gres=gpu:8 -t 1 -o /dev/null --wrap 'sleep 6')
	b2=$(sbatch --parsable -A team_a --gres=gpu:8 -t 1 -o /dev/null --wrap 'sleep 6')
	wait_until 20 "running $b1 && running $b2" || bad setup "jobs $b1 $b2 did not start"
	n=$(N sbatch --parsable -A team_a --gres=gpu:1 -t 1 -o /dev/null --chdir=/tmp --wrap 'sleep 2')
	N scontrol hold "$n" || bad user_hold "nobody's scontrol hold $n refused"
	wait_until 20 "gone $b1 && gone $b2" || bad setup "jobs $b1 $b2 did not end"
	sleep 2
	held_so user_hold_not_planned "$n"
	N scontrol release "$n" || bad user_release "nobody's scontrol release $n refused"
	started_by_fairway user_release_runs "$n"
else
	skip user_hold "no user nobody, or no runuser, to submit as"
fi

a=$(sbatch --parsable -A team_a --gres=gpu:1 -t 1 -o /dev/null --wrap 'sleep 2')
scontrol hold "$a"
still_held admin_hold_honoured "$a"
scontrol release "$a"
started_by_fairway admin_release_runs "$a"
fw_stop

serve_up 2
hu=$(sbatch --parsable --hold -A team_a --gres=gpu:2 -t 1 -o /dev/null --wrap 'sleep 2')
ha=$(sbatch --parsable --hold -A team_b --gres=gpu:1 -t 1 -o /dev/null --wrap 'sleep 2')
scontrol hold "$ha" # an administrator's hold on top of its user's
listed_held() { # the daemon's list has both held jobs, pending, reason held
	curl -s "$URL/v1/jobs" >"$T/jobs.json"
	python3 - "$T/jobs.json" "$hu" "$ha" <<'PY'
import json, sys
by = {j["name"]: j for j in json.load(open(sys.argv[1]))["jobs"]}
for name, queue, gpus in ((sys.argv[2], "team_a", 2), (sys.argv[3], "team_b", 1)):
    j = by[name]
    assert (j["state"], j["reason"], j["planned"], j["queue"], j["gpus"]) == ("pending", "held", False, queue, gpus), j
    assert j["expectedStart"] is None and j["unknownWhy"] == "held", j
PY
}
if wait_until 10 'listed_held 2>/dev/null' && [ "$(squeue -h -j "$hu,$ha" -o %Q | sort -u)" = 0 ]; then
	ok serve_held_listed
else
	bad serve_held_listed "GET /v1/jobs: $(head -c 600 "$T/jobs.json"); squeue: $(squeue -h -j "$hu,$ha" -o '%i %Q %r')"
fi
cu=$(curl -s -o "$T/hu.json" -w '%{http_code}' "$URL/v1/jobs/$hu")
ca=$(curl -s -o "$T/ha.json" -w '%{http_code}' "$URL/v1/jobs/$ha")
if [ "$cu/$ca" = 200/200 ] && python3 - "$T/hu.json" "$T/ha.json" "$hu" "$ha" <<'PY'; then
import json, sys
u, a = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert u["reason"] == "held" and u["reasonText"].startswith("held by its user"), u
assert "scontrol release %s lets fairway plan it" % sys.argv[3] in u["reasonText"], u
assert a["reason"] == "held" and "administrator" in a["reasonText"], a
assert "scontrol release %s" % sys.argv[4] in a["reasonText"], a
PY
	ok serve_held_why
else
	bad serve_held_why "GET $cu $(cat "$T/hu.json") / $ca $(cat "$T/ha.json")"
fi
curl -s "$URL/v1/jobs?reason=held" >"$T/held.json"
"$B/tools/fairway" jobs list --reason held --json --server "$URL" >"$T/held-cli.json" 2>&1
cb=$(curl -s -o "$T/hold.json" -w '%{http_code}' "$URL/v1/jobs?reason=hold")
if [ "$cb" = 400 ] && grep -q '(did you mean \\"held\\"?)' "$T/hold.json" &&
	python3 - "$T/held.json" "$T/held-cli.json" "$hu" "$ha" <<'PY'; then
import json, sys
for f in sys.argv[1:3]:
    names = sorted(j["name"] for j in json.load(open(f))["jobs"])
    assert names == sorted(sys.argv[3:]), (f, names)
PY
	ok serve_reason_held
else
	bad serve_reason_held "?reason=held: $(head -c 400 "$T/held.json"); --reason held: $(head -c 300 "$T/held-cli.json"); ?reason=hold: $cb $(head -c 300 "$T/hold.json")"
fi
out=$("$B/tools/fairway" jobs why "$hu" --server "$URL" 2>&1)
rc=$?
if [ $rc -eq 0 ] && grep -q "^why it waits: held by its user .*scontrol release $hu " <<<"$out"; then
	ok cli_held_why
else
	bad cli_held_why "exit $rc: $out"
fi
"$B/tools/fairway" jobs --server "$URL" >"$T/cli.txt" 2>&1
"$B/tools/fairway" jobs --server "$URL" --json >"$T/cli.json" 2>&1
if grep -Eq "^$hu +team_a +[^ ]+ +pending +2 +held " "$T/cli.txt" &&
	python3 -c 'import json,sys; assert any(j["name"] == sys.argv[2] and j["reason"] == "held" for j in json.load(open(sys.argv[1]))["jobs"])' "$T/cli.json" "$ha"; then
	ok cli_held_listed
else
	bad cli_held_listed "$(cat "$T/cli.txt") / $(head -c 300 "$T/cli.json")"
fi
scontrol release "$hu"
if wait_until 20 "started $hu" &&
	wait_until 5 '[ "$(curl -s "$URL/v1/jobs/$hu" | python3 -c "import json,sys; print(json.load(sys.stdin).get(\"reason\"))")" != held ]'; then
	ok serve_released_runs
else
	bad serve_released_runs "job $hu: $(squeue -h -t all -j "$hu" -o '%T %Q %r %k'); $(curl -s "$URL/v1/jobs/$hu")"
fi
rq=$(sbatch --parsable --requeue -A team_a --gres=gpu:1 -t 2 -o /dev/null --wrap 'sleep 60')
wait_until 20 "running $rq" || bad setup "job $rq did not start: $(squeue -h -j "$rq" -o '%Q %r %k')"
scontrol requeuehold "$rq" || bad requeuehold "scontrol requeuehold $rq refused"
rq_held() { [ "$(squeue -h -j "$rq" -o '%T|%Q|%k')" = "PENDING|0|$HELD" ]; }
wait_until 15 rq_held
# Slurm holds a requeued job back until its EligibleTime (a minute or two
# on): the hold must outlast that (before, fairway started it then)
elig=$(date -d "$(scontrol show job "$rq" | sed -n 's/.*EligibleTime=\([^ ]*\).*/\1/p')" +%s 2>/dev/null || echo 0)
until [ "$(date +%s)" -gt "$elig" ] || [ "$elig" -gt $(($(date +%s) + 300)) ]; do sleep 1; done
sleep 3
if rq_held &&
	[ "$(curl -s "$URL/v1/jobs/$rq" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("reason"))')" = held ]; then
	ok requeuehold_honoured
else
	bad requeuehold_honoured "job $rq: $(squeue -h -t all -j "$rq" -o '%T|%Q|%r|%k'); $(curl -s "$URL/v1/jobs/$rq")"
fi
scontrol release "$rq"
started_by_fairway requeuehold_released_runs "$rq"
scancel "$rq"
scontrol release "$ha"
serve_down
finish
