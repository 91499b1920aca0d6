#!/usr/bin/env bash
# tests/integration/slurm_usage.sh BUILD_DIR — fair share from Slurm's own
# decayed usage (connectors/slurm/usage.c), on a real lab with MariaDB,
# slurmdbd and priority/multifactor (tests/slurm/lab.sh ACCT=1
# PRIORITY=multifactor: accounts org(1) > team_a(60), team_b(40); Slurm
# recomputes usage every minute and keeps it per TRES):
#   usage_read            team_a alone holds the 32 GPUs until Slurm has
#                         charged it; fairway-slurm reports reading
#                         Slurm's usage with team_a's GPU-hours first
#   usage_config_ignores  a fresh fairway-slurm with --usage config splits
#                         the 32 GPUs 60/40 between team_a and team_b
#                         (team_a 19 +-1), as if nothing had run
#   usage_bends_the_share a fresh fairway-slurm (default --usage slurm)
#                         gives team_b most of them: team_a's past use,
#                         which only Slurm kept, halves its weight
#   budget_holds_account  with team_a's gpuHourBudget of 0.0001 in the YAML
#                         (it has used more, by Slurm's books), fairway
#                         starts none of its jobs, whose comments say
#                         "fairway: waiting: over_budget; ..." (with when
#                         its usage decays below it), and team_b's run
#   budget_safe_counts_time_limits  with scheduler.budgetSafe and team_b's
#                         gpuHourBudget of 50, of its two 8-GPU jobs the
#                         one with -t 600 (80 GPU-h) waits, commented
#                         "fairway: waiting: budget_short; ...", and the
#                         one with -t 60 (8 GPU-h) runs
#   grptresmins_holds_account  Slurm's own budget, no YAML one (the queues
#                         are slurmdbd's accounts): `sacctmgr modify account
#                         team_a set GrpTRESMins=gres/gpu=1` while
#                         fairway-slurm runs is read within 30 s ("GPU-hour
#                         budgets from Slurm's GrpTRESMins: team_a 0.01667
#                         GPU-h (1 GPU-minute)") and team_a's jobs submitted
#                         next wait, "fairway: waiting: over_budget; ...",
#                         team_a having used more (Slurm's books); team_b's run
#   grptresmins_config_wins  the YAML's gpuHourBudget of 1000 for team_a
#                         stands over Slurm's 1 GPU-minute: fairway releases
#                         team_a's jobs, slurmctld holds them back itself
#                         (AssocGrpGRESMinutes, AccountingStorageEnforce has
#                         limits), and their comments say so; none runs
#   grptresmins_safe_from_slurm_conf  with 'safe' added to slurm.conf's
#                         AccountingStorageEnforce (scontrol reconfigure) and
#                         no budgetSafe in the YAML, under team_a's
#                         GrpTRESMins of its use + 120 GPU-minutes, its 8-GPU
#                         job with -t 600 (4800 GPU-minutes) waits,
#                         budget_short, and the one with -t 5 (40) runs
#   limit_held_books_no_node  with team_a's MaxJobs=1 (enforced: this lab's
#                         AccountingStorageEnforce has limits), fairway
#                         releases 4 of its whole-node jobs, Slurm runs 1
#                         and holds 3 back (AssocMaxJobsLimit): those 3
#                         book no node, so team_b's 3 whole-node jobs
#                         submitted next run at once on the idle nodes,
#                         and a held-back job's comment names the limit
#   users_config_order    with scheduler.userFairShare and --opt usage=own,
#                         of root's and then nobody's team_a job, each of 5
#                         GPUs on all 4 nodes (one fits at a time), root's
#                         starts: nothing tells the users apart but order
#   users_usage_from_slurm  the same reading Slurm's usage: nobody's starts,
#                         root's past use in team_a (Slurm's association
#                         root@team_a) putting it behind
#   serve_usage_own       `fairway serve --backend slurm` with a fresh
#                         store and --backend-opt usage=own: GET
#                         /v1/fairshare shows team_a with no usage yet
#   serve_usage_from_slurm  the same with the default: team_a's usage is
#                         Slurm's (its GPU-hours, and root's among its
#                         users), taken as the daemon's own
#   serve_budget_from_slurm  `fairway serve --backend slurm` over queues
#                         without budgets, team_a's GrpTRESMins=gres/gpu=1:
#                         it logs the budget, holds team_a's job
#                         (over_budget in its comment) and GET /v1/fairshare
#                         shows team_a's gpuHourBudget of 1/60
#   serve_budget_metrics_from_slurm  the same daemon's /metrics has
#                         fairway_queue_gpu_hour_budget{queue="team_a"} of
#                         1/60 (the budget the scheduler saw, though the
#                         daemon's queues have none) and, budgetSafe off,
#                         no fairway_queue_gpu_hours_left; GET /v1/health
#                         says budgetSafe false
. "$(dirname "$0")/../slurm/lib.sh"
TEST_NAME=slurm_usage
export ACCT=1 PRIORITY=multifactor
lab_up 4
printf 'scheduler: {usageWeight: 1}\n' >"$T/noqueues.yaml"
export FW_CONFIG=$T/noqueues.yaml

# The two accounts' GPUs once fairway has placed all 32.
split_of() {
	wait_until 20 'test $(( $(gpus_of team_a) + $(gpus_of team_b) )) = 32'
	a=$(gpus_of team_a) b=$(gpus_of team_b)
}

submit 32 team_a 600
fw_start
# Slurm charges running jobs at its next decay pass (within a minute), and
# fairway-slurm reads every 30 s
if wait_until 150 'grep -Eq "usage from Slurm: .*most: team_a [0-9.]*[1-9]" "$T/fairway.log"' &&
	grep -Eq "fair share reads Slurm's decayed GPU usage every 30s( |\$)" "$T/fairway.log"; then
	ok usage_read
else
	bad usage_read "log: $(grep -i "usage\|error" "$T/fairway.log" | head -5)"
fi
fw_stop
cancel_all

submit 30 team_a 600
submit 30 team_b 600
fw_start --usage config
split_of
if ((a >= 18 && a <= 20)); then
	ok usage_config_ignores
else
	bad usage_config_ignores "team_a $a, team_b $b GPUs of 32 (expected 19/13 +-1)"
fi
fw_stop
cancel_all

submit 30 team_a 600
submit 30 team_b 600
fw_start
split_of
if ((b >= 18)); then
	ok usage_bends_the_share
else
	bad usage_bends_the_share "team_a $a, team_b $b GPUs of 32 (expected team_b 18+); $(grep "usage from Slurm" "$T/fairway.log" | tail -1)"
fi
fw_stop
cancel_all

# team_a has used more than a budget of 0.0001 GPU-hours (Slurm's books):
# fairway starts none of its jobs, each says why in its comment, and
# team_b's run
cat >"$T/budget.yaml" <<'EOF2'
scheduler: {usageWeight: 1}
queues:
  - {name: org}
  - {name: team_a, parent: org, gpuHourBudget: 0.0001}
  - {name: team_b, parent: org}
EOF2
submit 2 team_a 600
submit 2 team_b 600
FW_CONFIG=$T/budget.yaml fw_start
if wait_until 20 'test "$(squeue -h -A team_b -t R -o %i | wc -l)" = 2' &&
	wait_until 10 'test "$(squeue -h -A team_a -t PD -o "%k" | grep -c "^fairway: waiting: over_budget; ")" = 2' &&
	test "$(squeue -h -A team_a -t R -o %i | wc -l)" = 0; then
	ok budget_holds_account
else
	bad budget_holds_account "$(squeue -h -o '%i %a %T %Q %k' | head -6)"
fi
fw_stop
cancel_all

# scheduler.budgetSafe (Slurm's AccountingStorageEnforce=safe): a job's
# --time bounds its run, so of team_b's two 8-GPU jobs under a budget of
# 50 GPU-hours the 10-hour one (80 GPU-h) waits, budget_short, and the
# 1-hour one (8 GPU-h), submitted after it, runs
cat >"$T/safe.yaml" <<'EOF2'
scheduler: {usageWeight: 1, budgetSafe: true}
queues:
  - {name: org}
  - {name: team_a, parent: org}
  - {name: team_b, parent: org, gpuHourBudget: 50}
EOF2
sbatch -Q -A team_b --gres=gpu:8 -t 600 -J long -o /dev/null --wrap "sleep 600"
sbatch -Q -A team_b --gres=gpu:8 -t 60 -J short -o /dev/null --wrap "sleep 600"
FW_CONFIG=$T/safe.yaml fw_start
if wait_until 20 'test "$(squeue -h -A team_b -t R -o %j)" = short' &&
	wait_until 10 'squeue -h -A team_b -t PD -o "%j %k" | grep -q "^long fairway: waiting: budget_short; start unknown (budget_short)"'; then
	ok budget_safe_counts_time_limits
else
	bad budget_safe_counts_time_limits "$(squeue -h -o '%i %j %a %T %l %k' | head -6)"
fi
fw_stop
cancel_all

# An account's GPU-minutes used by Slurm's books: its association's
# GrpTRESMins usage of gres/gpu (`scontrol show assoc_mgr`)
gpu_minutes_of() {
	scontrol -o show assoc_mgr accounts="$1" flags=assoc | grep 'UserName= ' | grep -o 'GrpTRESMins=[^ ]*' |
		grep -o 'gres/gpu=[^,]*' | sed 's/.*(\([0-9]*\))$/\1/' | head -1
}
# grep -q PATTERN in what fairway-slurm logged past line N
logged_since() { tail -n +"$(($1 + 1))" "$T/fairway.log" | grep -q "$2"; }
grptres_mins() { # ACCOUNT N|-1: its GrpTRESMins on gres/gpu
	sacctmgr -i modify account "$1" set GrpTRESMins=gres/gpu="$2" >"$T/sacctmgr.log" 2>&1 ||
		echo "sacctmgr: $(cat "$T/sacctmgr.log")"
}

# Slurm's GrpTRESMins is team_a's budget (the queues here are slurmdbd's
# accounts: no YAML budget), read every 30 s: set while fairway runs, it
# holds team_a's jobs submitted once it is read; team_a has used more than
# its 1 GPU-minute (usage_read's 32 GPUs, charged by Slurm's decay pass)
why=
wait_until 90 'test "$(gpu_minutes_of team_a)" -ge 2 2>/dev/null' || why="team_a used $(gpu_minutes_of team_a) GPU-minutes (expected 2+)"
submit 1 team_b 600
n0=$(wc -l <"$T/fairway.log")
fw_start
wait_until 20 'logged_since $n0 "GPU-hour budgets: no account in Slurm has a GrpTRESMins on gres/gpu"' ||
	why="$why; no 'no account' note: $(tail -n +"$((n0 + 1))" "$T/fairway.log" | grep -v '^cycle' | head -5)"
why="$why$(grptres_mins team_a 1)"
if [ -z "$why" ] &&
	wait_until 45 'logged_since $n0 "GPU-hour budgets from Slurm.s GrpTRESMins: team_a 0.01667 GPU-h (1 GPU-minute)$"' &&
	submit 2 team_a 600 &&
	wait_until 15 'test "$(squeue -h -A team_a -t PD -o "%Q %k" | grep -c "^0 fairway: waiting: over_budget; ")" = 2' &&
	test "$(squeue -h -A team_b -t R -o %i | wc -l)" = 1 && test "$(squeue -h -A team_a -t R -o %i | wc -l)" = 0; then
	ok grptresmins_holds_account
else
	bad grptresmins_holds_account "${why:+$why; }$(squeue -h -o '%i %a %T %Q %k' | head -4); $(grep 'GPU-hour budgets' "$T/fairway.log" | tail -2)"
fi
fw_stop
cancel_all

# The YAML's budget for a queue stands over Slurm's: fairway releases
# team_a's jobs (1000 GPU-h), and slurmctld, enforcing limits, holds them
# back by GrpTRESMins; fairway books no node for them and says so
cat >"$T/wins.yaml" <<'EOF2'
scheduler: {usageWeight: 1}
queues:
  - {name: org}
  - {name: team_b, parent: org}
  - {name: team_a, parent: org, gpuHourBudget: 1000}
EOF2
submit 2 team_a 600
n0=$(wc -l <"$T/fairway.log")
FW_CONFIG=$T/wins.yaml fw_start
if wait_until 20 'logged_since $n0 "team_a (1 GPU-minute; the config.s gpuHourBudget 1000 stands)"' &&
	wait_until 20 'test "$(squeue -h -A team_a -t PD -o "%r %k" | grep -c "^AssocGrpGRESMinutes fairway: released onto .*; Slurm holds it back (AssocGrpGRESMinutes)")" = 2' &&
	test "$(squeue -h -A team_a -t R -o %i | wc -l)" = 0; then
	ok grptresmins_config_wins
else
	bad grptresmins_config_wins "$(squeue -h -o '%i %a %T %Q %r %k' | head -4); $(grep 'GPU-hour budgets' "$T/fairway.log" | tail -1)"
fi
fw_stop
cancel_all

# slurm.conf's AccountingStorageEnforce=safe is budgetSafe (the YAML has
# none): under a GrpTRESMins of team_a's use + 120 GPU-minutes, its 8-GPU
# job with -t 600 (4800) waits, budget_short, and the one with -t 5 (40)
# runs
conf=$SLURM_CONF
sed -i 's/^AccountingStorageEnforce=associations,limits$/&,safe/' "$conf"
scontrol reconfigure
why=
wait_until 10 'scontrol show config | grep -q "^AccountingStorageEnforce *= associations,limits,safe"' ||
	why="slurm.conf: $(scontrol show config | grep AccountingStorageEnforce)"
used=$(gpu_minutes_of team_a)
why="$why$(grptres_mins team_a $((${used:-0} + 120)))"
sbatch -Q -A team_a --gres=gpu:8 -t 600 -J long -o /dev/null --wrap "sleep 600"
sbatch -Q -A team_a --gres=gpu:8 -t 5 -J short -o /dev/null --wrap "sleep 600"
n0=$(wc -l <"$T/fairway.log")
fw_start
if [ -z "$why" ] &&
	wait_until 20 'test "$(squeue -h -A team_a -t R -o %j)" = short' &&
	wait_until 10 'squeue -h -A team_a -t PD -o "%j %Q %k" | grep -q "^long 0 fairway: waiting: budget_short; "' &&
	logged_since "$n0" "; budgetSafe on: slurm.conf's AccountingStorageEnforce has safe$"; then
	ok grptresmins_safe_from_slurm_conf
else
	bad grptresmins_safe_from_slurm_conf "${why:+$why; }used ${used:-?} GPU-minutes; $(squeue -h -o '%i %j %a %T %l %k' | head -4); $(grep 'GPU-hour budgets' "$T/fairway.log" | tail -1)"
fi
fw_stop
cancel_all
sed -i 's/^\(AccountingStorageEnforce=associations,limits\),safe$/\1/' "$conf"
scontrol reconfigure
why="$(grptres_mins team_a -1)"
[ -z "$why" ] || bad grptresmins_reset "$why"

sacctmgr -i modify user root where account=team_a set MaxJobs=1 >"$T/sacctmgr.log" 2>&1 ||
	bad limit_held_books_no_node "sacctmgr: $(cat "$T/sacctmgr.log")"
for i in 1 2 3 4; do sbatch -Q -A team_a --gres=gpu:8 -t 1 -o /dev/null --wrap "sleep 40"; done
fw_start
wait_until 15 'test "$(squeue -h -A team_a -t R -o %i | wc -l)" = 1 && test "$(gpus_of team_a)" = 32'
for i in 1 2 3; do sbatch -Q -A team_b --gres=gpu:8 -t 1 -o /dev/null --wrap "sleep 40"; done
if wait_until 15 'test "$(squeue -h -A team_b -t R -o %i | wc -l)" = 3' &&
	wait_until 10 'squeue -h -A team_a -t PD -o "%k" | grep -q "Slurm holds it back (AssocMaxJobsLimit)"'; then
	ok limit_held_books_no_node
else
	bad limit_held_books_no_node "$(squeue -h -o '%i %a %T %Q %r %k' | head -8)"
fi
fw_stop
cancel_all

if id nobody >/dev/null 2>&1 && command -v runuser >/dev/null; then
	sacctmgr -i modify user root where account=team_a set MaxJobs=-1 >"$T/sacctmgr.log" 2>&1 &&
		sacctmgr -i add user nobody account=team_a >>"$T/sacctmgr.log" 2>&1 ||
		bad users_usage_from_slurm "sacctmgr: $(cat "$T/sacctmgr.log")"
	printf 'scheduler: {usageWeight: 1, userFairShare: true}\n' >"$T/users.yaml"
	# the first of root's and nobody's jobs fairway starts, with these flags
	first_user() {
		local r u
		r=$(sbatch --parsable -A team_a -N 4 --gres=gpu:5 -t 1 -o /dev/null --wrap "sleep 30")
		sleep 1.1 # nobody's is the younger
		u=$(runuser -u nobody -- sbatch --parsable -A team_a -N 4 --gres=gpu:5 -t 1 -o /dev/null --chdir=/tmp \
			--wrap "sleep 30")
		FW_CONFIG=$T/users.yaml fw_start "$@"
		wait_until 15 "test \$(squeue -h -j $r,$u -t R,PD -o '%T %Q' | awk '\$1 != \"PENDING\" || \$2 > 0' | wc -l) -ge 1"
		squeue -h -j "$r,$u" -t R,PD -o '%u %T %Q' | awk '$2 != "PENDING" || $3 > 0 { print $1 }' | head -1
		fw_stop
		scancel "$r" "$u" 2>/dev/null
		wait_until 30 no_jobs
	}
	w=$(first_user --opt usage=own) # the daemon's spelling of --usage config
	if [ "$w" = root ]; then ok users_config_order; else bad users_config_order "first: '$w' (expected root)"; fi
	w=$(first_user)
	if [ "$w" = nobody ]; then
		ok users_usage_from_slurm
	else
		bad users_usage_from_slurm "first: '$w' (expected nobody); $(grep "usage from Slurm" "$T/fairway.log" | tail -1)"
	fi
else
	skip users_usage_from_slurm "no user nobody, or no runuser, to submit as"
fi

FAIRWAY=$B/tools/fairway
SPID=
trap '[ -n "$SPID" ] && kill -KILL "$SPID" 2>/dev/null; cleanup' EXIT
{
	printf 'queues:\n  - {name: team_a}\n  - {name: team_b}\nnodes:\n'
	for i in 1 2 3 4; do printf '  - {name: gpu%03d, gpus: 8, gpuModel: h100, cpu: 64, memory: 500Gi}\n' "$i"; done
} >"$T/serve.yaml"
# team_a's usage in GET /v1/fairshare after the daemon's first cycles, as
# "GPU-hours root's-GPU-hours", with these backend options
serve_usage() {
	rm -rf "$T/state" "$T/port"
	"$FAIRWAY" serve --backend slurm --backend-opt "conf=$SLURM_CONF" "$@" --config "$T/serve.yaml" \
		--state "$T/state" --listen 127.0.0.1:0 --port-file "$T/port" --period 500ms >>"$T/serve.log" 2>&1 &
	SPID=$!
	wait_until 20 'test -s "$T/port"' && sleep 2
	curl -s -H "Authorization: Bearer $(cat "$T/state/token" 2>/dev/null)" \
		"http://127.0.0.1:$(cat "$T/port" 2>/dev/null)/v1/fairshare" |
		python3 -c 'import json, sys
q = [x for x in json.load(sys.stdin)["queues"] if x["queue"] == "team_a"][0]
r = [u["usageGpuHours"] for u in q.get("users", []) if u["user"] == "root"]
print("%.3f %.3f" % (q["usageGpuHours"], r[0] if r else 0))' 2>/dev/null
	kill -TERM "$SPID" 2>/dev/null
	wait "$SPID" 2>/dev/null
	SPID=
}
if [ -x "$FAIRWAY" ] && "$FAIRWAY" serve --help 2>&1 | grep -q '^  slurm'; then
	read -r ua ur <<<"$(serve_usage --backend-opt usage=own)"
	if [ "$ua" = 0.000 ] && [ "$ur" = 0.000 ]; then
		ok serve_usage_own
	else
		bad serve_usage_own "team_a usage '$ua' GPU-h, root's '$ur' (expected 0.000 0.000); $(tail -3 "$T/serve.log")"
	fi
	read -r ua ur <<<"$(serve_usage)"
	if awk -v a="${ua:-0}" -v r="${ur:-0}" 'BEGIN { exit !(a > 0.1 && r > 0.1) }' &&
		grep -Eq "fair share reads Slurm's decayed GPU usage every 30s( |\$)" "$T/serve.log"; then
		ok serve_usage_from_slurm
	else
		bad serve_usage_from_slurm "team_a usage '$ua' GPU-h, root's '$ur' (expected > 0.1 each); $(tail -3 "$T/serve.log")"
	fi
	# Slurm's budget in the daemon: its queues have none of their own
	why="$(grptres_mins team_a 1)"
	jb=$(sbatch --parsable -A team_a --gres=gpu:1 -t 5 -o /dev/null --wrap "sleep 600")
	rm -rf "$T/state" "$T/port"
	"$FAIRWAY" serve --backend slurm --backend-opt "conf=$SLURM_CONF" --config "$T/serve.yaml" \
		--state "$T/state" --listen 127.0.0.1:0 --port-file "$T/port" --period 500ms >>"$T/serve.log" 2>&1 &
	SPID=$!
	if [ -z "$why" ] && wait_until 20 'test -s "$T/port"' &&
		wait_until 20 "squeue -h -j $jb -t PD -o '%Q %k' | grep -q '^0 fairway: waiting: over_budget; '" &&
		grep -q "^fairway serve: GPU-hour budgets from Slurm's GrpTRESMins: team_a 0.01667 GPU-h (1 GPU-minute)$" "$T/serve.log" &&
		curl -s -H "Authorization: Bearer $(cat "$T/state/token" 2>/dev/null)" \
			"http://127.0.0.1:$(cat "$T/port" 2>/dev/null)/v1/fairshare" |
		python3 -c 'import json, sys
q = [x for x in json.load(sys.stdin)["queues"] if x["queue"] == "team_a"][0]
sys.exit(abs(q.get("gpuHourBudget") - 1 / 60) > 1e-9)' 2>/dev/null; then
		ok serve_budget_from_slurm
	else
		bad serve_budget_from_slurm "${why:+$why; }$(squeue -h -j "$jb" -o '%i %T %Q %k'); $(grep -i 'budget\|error' "$T/serve.log" | tail -3)"
	fi
	sport=$(cat "$T/port" 2>/dev/null)
	curl -s "http://127.0.0.1:$sport/metrics" >"$T/serve.metrics" 2>/dev/null
	if awk '$1 == "fairway_queue_gpu_hour_budget{queue=\"team_a\"}" { v = $2; n++ }
		/^fairway_queue_gpu_hours_left/ { l++ }
		END { d = v - 1 / 60; exit !(n == 1 && d < 1e-9 && d > -1e-9 && !l) }' "$T/serve.metrics" &&
		curl -s "http://127.0.0.1:$sport/v1/health" | python3 -c 'import json, sys
sys.exit(json.load(sys.stdin).get("budgetSafe") is not False)' 2>/dev/null; then
		ok serve_budget_metrics_from_slurm
	else
		bad serve_budget_metrics_from_slurm "$(grep 'budget' "$T/serve.metrics" | tail -3)"
	fi
	kill -TERM "$SPID" 2>/dev/null
	wait "$SPID" 2>/dev/null
	SPID=
	scancel "$jb" 2>/dev/null
	grptres_mins team_a -1 >/dev/null
else
	skip serve_usage_from_slurm "fairway serve has no slurm backend in $B"
fi
finish
