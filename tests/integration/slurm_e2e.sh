#!/usr/bin/env bash
# tests/integration/slurm_e2e.sh BUILD_DIR — fairway driving a real Slurm
# 22.05 cluster (tests/slurm/lab.sh: 16 nodes x 8 fake GPUs, 2 switches),
# with real sbatch sleep jobs.  The scenarios (issue 7), one lab for all:
#   fairshare_60_40      two accounts with deserved 60/40 converge to 60/40
#                        (+-1 job) while both wait; the other takes the idle
#                        GPUs when one has no demand left
#   gang_one_switch      a 4-node x 8-GPU gang with --switches=1 starts only
#                        inside one switch, waits rather than start split or
#                        partial
#   drain_reason         a node fairway drains carries fairway's reason in
#                        Slurm and gets no new job
#   reserve_backfill     a 12-node job gets a fairway- reservation and starts
#                        no later than one cycle after its estimate; 1-node
#                        jobs backfill meanwhile without delaying it
#   reserve_behind_a_start_runs  a 16-node and a 1-node job waiting when
#                        fairway starts: the one its first cycle releases
#                        runs within 20 s while the other's fairway-
#                        reservation stands (it stayed pending for ever)
#   reserve_held_quietly the run's stderr has no "failed" line while the
#                        reservation is held in place (one a cycle before)
#   restart_kill9        fairway killed with -9 mid-run and restarted: no job
#                        runs twice, none is lost, the queue drains
#   pending_comment      a waiting job's reason and expected start are in its
#                        Slurm comment (squeue %k)
#   unknown_account_comment  a job whose account is no queue stays held and
#                        its comment says why
#   evict_requeue_held   reclaim (policy kai): preemptible (--requeue) jobs of
#                        the account over its share are requeued and held
#                        again, and the starved account's jobs start
# Prints PASS/FAIL lines and "N passed, N failed"; stops every process it
# started (trap), also on failure.  SKIP when the machine cannot run a lab.
# ONLY="evict gang" runs only those scenarios.
. "$(dirname "$0")/../slurm/lib.sh"
TEST_NAME=slurm_e2e
lab_up 16

# ------------------------------------------------------------ 1. 60/40
# Deserved 60/40 with over-quota weights 60/40: fair shares 76.8/51.2 of
# the 128 GPUs.  team_a fills the cluster first; team_b arrives; short jobs
# turn over and fairway hands the freed GPUs to whoever is below its share.
# Timed by events, not by how fast sbatch and squeue are (on a loaded
# machine 750 sbatch calls took so long that team_a's jobs ran out before
# a sample, "sleep 15" was outrun, and four squeue calls a sample saw the
# cluster full too seldom): every job is in before fairway starts, team_b's
# held by their user (sbatch --hold, which fairway leaves alone) until one
# scontrol release brings them all; the samples start once the first wave
# (team_a's jobs holding GPUs when fairway had seen all of team_b's) has
# ended, and each is one squeue call.
t_fairshare() {
	local a b pa pb full=0 good=0 d i end
	# 600 + 150 jobs of 20..28 s, the lengths in turn (each wave mixed: GPUs
	# free a few at a time, not all at one moment).  Under load GPUs stayed
	# idle for seconds after jobs ended (fairway's cycles took < 1 s), so the
	# cluster was seldom full: with 10..14 s jobs team_b's ran out after 3
	# full samples
	for i in $(seq 120); do
		for d in 20 22 24 26 28; do
			submit 1 team_a "$d" || { bad fairshare_60_40 "sbatch failed"; return; }
			((i > 30)) || submit 1 team_b "$d" --hold || { bad fairshare_60_40 "sbatch failed"; return; }
		done
	done
	fw_start
	wait_until 30 'test "$(gpus_of team_a)" -ge 120' || { bad fairshare_60_40 "team_a never filled the cluster ($(gpus_of team_a))"; fw_stop; cancel_all; return; }
	scontrol release "$(squeue -h -A team_b -t PD -o %i | paste -sd,)" || { bad fairshare_60_40 "scontrol release of team_b's jobs failed"; fw_stop; cancel_all; return; }
	first_wave || { bad fairshare_60_40 "team_a's first wave did not end in 90 s: $(wave_left) of its jobs hold GPUs"; fw_stop; cancel_all; return; }
	# While both wait: whenever the cluster is full (not between a job's
	# end and the next start), team_a holds 76.8 +- 1 of 128 GPUs
	end=$((SECONDS + 120))
	while ((full < 10 && SECONDS < end)); do
		read -r a b pa pb <<<"$(holdings)"
		((pa > 0 && pb > 0)) || break
		if ((a + b == 128)); then
			full=$((full + 1))
			((a >= 76 && a <= 78)) && good=$((good + 1))
			echo "  full sample $full: team_a $a GPUs, team_b $b GPUs"
		fi
		sleep 0.5
	done
	if ((full >= 5 && good * 10 >= full * 9)); then
		ok fairshare_60_40
	else
		bad fairshare_60_40 "$good of $full full-cluster samples had team_a at 76.8 +- 1 GPUs"
	fi
	# team_b stops: its waiting jobs go; team_a must take the idle GPUs
	scancel -A team_b -t PD
	if wait_until 40 'test "$(gpus_of team_a)" -ge 126' && [ "$(pending_of team_a)" -gt 0 ]; then
		ok fairshare_idle_to_other
	else
		bad fairshare_idle_to_other "team_a holds $(gpus_of team_a) GPUs with team_b idle"
	fi
	fw_stop
	cancel_all
}
# holdings: "A B PA PB" from one squeue call, one view of slurmctld: the GPUs
# fairway has given team_a and team_b (as gpus_of) and their jobs it holds
# back (as pending_of)
holdings() {
	squeue -h -A team_a,team_b -t R,PD,CG -o '%a %T %Q %b %D' |
		awk '{ n = $4; sub(/.*:/, "", n) }
		     $2 != "PENDING" || $3 > 0 { g[$1] += n * $5; next }
		     $3 == 0 { p[$1]++ }
		     END { print g["team_a"] + 0, g["team_b"] + 0, p["team_a"] + 0, p["team_b"] + 0 }'
}
# first_wave: once two cycles have begun since team_b's release (fairway
# has seen all of team_b's jobs), the team_a jobs holding GPUs are the first
# wave; wait (90 s at most) until every one of them has ended
first_wave() {
	local c
	c=$(grep -c '^cycle' "$T/fairway.log")
	wait_until 30 "test \$(grep -c '^cycle' '$T/fairway.log') -ge $((c + 2))" || return 1
	squeue -h -A team_a -t R,PD,CG -o '%i %T %Q' | awk '$2 != "PENDING" || $3 > 0 { print $1 }' >"$T/wave"
	wait_until 90 'test "$(wave_left)" = 0'
}
wave_left() { squeue -h -A team_a -t R,PD,CG -o %i | grep -cxF -f "$T/wave"; }

# ------------------------------------------------------------ 2. gang
# s1 = gpu[001-008], s2 = gpu[009-016].  Drained: gpu[001-005] and
# gpu[013-016].  Free whole nodes: 3 in s1, 4 in s2: the gang must start in
# s2.  Then with 3 + 3 free it must wait; with 4 free in s1 it starts there.
in_range() { # NODELIST LO HI: every node of the list within gpuLO..gpuHI
	local n
	for n in $(scontrol show hostnames "$1"); do
		n=${n#gpu}
		((10#$n >= $2 && 10#$n <= $3)) || return 1
	done
}
job_state() { squeue -h -j "$1" -o %T 2>/dev/null; }
job_nodes() { squeue -h -j "$1" -o %N 2>/dev/null; }
t_gang() {
	local id id2 nodes
	scontrol update nodename=gpu[001-005,013-016] state=drain reason=test-setup
	fw_start
	id=$(sbatch --parsable -A big -N 4 --gres=gpu:8 --switches=1 -t 1 -o /dev/null --wrap 'sleep 5')
	if wait_until 15 'test "$(job_state "$id")" = RUNNING'; then
		nodes=$(job_nodes "$id")
		if [ "$(scontrol show hostnames "$nodes" | wc -l)" = 4 ] && in_range "$nodes" 9 12; then
			ok gang_one_switch_placed
		else
			bad gang_one_switch_placed "ran on $nodes"
		fi
	else
		bad gang_one_switch_placed "never started: $(squeue -h -j "$id" -o '%T %k')"
	fi
	wait_until 20 'test -z "$(job_state "$id")"'
	scontrol update nodename=gpu012 state=drain reason=test-setup
	id2=$(sbatch --parsable -A big -N 4 --gres=gpu:8 --switches=1 -t 1 -o /dev/null --wrap 'sleep 3')
	sleep 4 # several cycles: 6 free nodes, but no switch with 4
	if [ "$(job_state "$id2")" = PENDING ] && [ "$(squeue -h -j "$id2" -o %Q)" = 0 ]; then
		ok gang_waits_not_split
	else
		bad gang_waits_not_split "state $(job_state "$id2") on $(job_nodes "$id2")"
	fi
	scontrol update nodename=gpu005 state=resume 2>/dev/null
	if wait_until 15 'test "$(job_state "$id2")" = RUNNING' && in_range "$(job_nodes "$id2")" 1 8; then
		ok gang_starts_when_switch_frees
	else
		bad gang_starts_when_switch_frees "state $(job_state "$id2") on $(job_nodes "$id2")"
	fi
	fw_stop
	cancel_all
	scontrol update nodename=gpu[001-004,012-016] state=resume 2>/dev/null
}

# ------------------------------------------------------------ 3. drain
# More demand than the 15 other nodes hold (130 one-GPU jobs, 120 GPUs):
# once fairway has filled them, gpu003 stays empty while 10 jobs wait.
# Timed by events, not by how fast sbatch is: with 8 s jobs submitted one
# by one while fairway ran, a loaded machine's sbatch calls can be too
# slow to keep 120 GPUs busy (the first jobs end before the last are in:
# 130 in 8 s is 16 sbatch a second), and one sample a second after the
# fill could fall between a job's end and the next start.  So every job
# is in before any starts (held by
# their user, sbatch --hold, which fairway leaves alone, then one
# scontrol release), each outlasts the check (100 s, limit 3 min: ended
# by cancel_all), and the check waits until fairway has logged two more
# cycles after the fill (the second begun after it), in which it would
# have placed a waiting job on gpu003.
t_drain() {
	local st reason on c held ids
	"$FWS" drain gpu003 "xid 79: GPU fell off the bus" >/dev/null || { bad drain_reason "drain failed"; return; }
	if "$FWS" drain gpu003 "xid 79: GPU fell off the bus" | grep -q "already drained"; then
		ok drain_idempotent
	else
		bad drain_idempotent "a second drain with the same reason did not report 'already drained'"
	fi
	st=$(sinfo -h -n gpu003 -o %T) reason=$(sinfo -h -n gpu003 -o %E)
	if [[ $st == drain* ]] && [ "$reason" = "fairway: xid 79: GPU fell off the bus" ]; then
		ok drain_reason
	else
		bad drain_reason "state '$st' reason '$reason'"
	fi
	fw_start
	submit 130 team_a 100 --hold -t 3 || { bad drain_no_new_job "sbatch failed"; fw_stop; cancel_all; "$FWS" resume gpu003; return; }
	ids=$(squeue -h -A team_a -t PD -o %i | paste -sd,)
	scontrol release "$ids" || { bad drain_no_new_job "scontrol release of team_a's jobs failed"; fw_stop; cancel_all; "$FWS" resume gpu003; return; }
	if ! wait_until 60 'test "$(gpus_of team_a)" -ge 120'; then
		bad drain_no_new_job "fairway never filled the 120 usable GPUs in 60 s: team_a holds $(gpus_of team_a)"
	else
		c=$(grep -c '^cycle' "$T/fairway.log")
		wait_until 30 "test \$(grep -c '^cycle' '$T/fairway.log') -ge $((c + 2))" || c=stuck
		on=$(squeue -h -t R,PD -w gpu003 -o %i | wc -l) held=$(gpus_of team_a)
		if [ "$c" = stuck ]; then
			bad drain_no_new_job "fairway logged no 2 cycles in 30 s after filling the GPUs (tail of $T/fairway.log: $(tail -2 "$T/fairway.log"))"
		elif [ "$on" = 0 ] && [ "$held" = 120 ] && [ "$(pending_of team_a)" = 10 ]; then
			ok drain_no_new_job
		else
			bad drain_no_new_job "$on jobs on gpu003, team_a holds $held of 120 usable GPUs, $(pending_of team_a) of its 130 jobs wait (10 should)"
		fi
	fi
	fw_stop
	cancel_all
	"$FWS" resume gpu003
}

# ------------------------------------------------------------ 4. reserve
# 12 whole-node blockers (8 GPUs, sleep 20, limit 1 min) leave 4 nodes
# free; a 12-node job must wait for them (a reservation), while 1-node
# jobs that arrive after it fit now without touching what it needs.
t_reserve() {
	local big res_start res_nodes started i small_done=0
	fw_start
	for i in $(seq 12); do
		sbatch -Q -A team_a --gres=gpu:8 -t 1 -o /dev/null --wrap 'sleep 20' >/dev/null
	done
	wait_until 20 'test "$(gpus_of team_a)" -eq 96' || { bad reserve_created "blockers did not start"; fw_stop; cancel_all; return; }
	big=$(sbatch --parsable -A big -N 12 --gres=gpu:8 -t 1 -o /dev/null --wrap 'sleep 3')
	wait_until 10 'scontrol -o show res "fairway-$big" 2>/dev/null | grep -q NodeCnt'
	res_nodes=$(scontrol -o show res "fairway-$big" 2>/dev/null | grep -o 'NodeCnt=[0-9]*')
	res_start=$(scontrol -o show res "fairway-$big" 2>/dev/null | grep -o 'StartTime=[^ ]*' | cut -d= -f2)
	if [ "$res_nodes" = NodeCnt=12 ]; then ok reserve_created; else bad reserve_created "reservation: '$(scontrol -o show res 2>&1)'"; fi
	submit 6 team_b 3 # 1-node backfill candidates
	echo 0 >"$T/small_started"
	wait_until 60 'small_while_waiting; test "$(job_state "$big")" = RUNNING'
	started=$(date +%s)
	if [ -n "$res_start" ] && ((started <= $(date -d "$res_start" +%s) + 2)); then
		ok reserve_starts_by_estimate
	else
		bad reserve_starts_by_estimate "reserved for $res_start, started $(date -d @"$started" +%T) (state $(job_state "$big"))"
	fi
	# backfill: the 1-node jobs started while the 12-node job waited
	if [ "$(cat "$T/small_started")" -ge 1 ]; then
		ok reserve_backfill
	else
		bad reserve_backfill "no 1-node job ran while the 12-node job waited"
	fi
	fw_stop
	cancel_all
}
# how many team_b jobs hold GPUs while the 12-node job still waits (max)
small_while_waiting() {
	local n
	[ "$(job_state "$big")" = PENDING ] || return 0
	n=$(gpus_of team_b)
	((n > $(cat "$T/small_started"))) && echo "$n" >"$T/small_started"
	return 0
}

# ------------------------------------------------------------ 4b. behind a start
# A 16-node job (-t 5) and a 1-node one (-t 10), both waiting when fairway
# starts: its first cycle releases one and reserves a node of it for the
# other from the first's planned end.  Seen in a lab: the released job
# stayed pending for ever (ReqNodeNotAvail, May be reserved for other
# job), its nodes idle, as Slurm starts it a moment after the plan's "now"
# and so would run it into the reservation, which each cycle moved along
# with "now"; and every cycle that held the reservation in place printed
# "reserve of N failed: object already exists".  Whether slurmctld looked
# at the release before the reservation was made went either way in the
# lab; tests/slurm/race_shim.c makes it look after (FW_DEFER_JOB: the
# release of the 16-node job, which fairway starts first, reaches it
# right after the reservation).
t_reserve_start() {
	local j1 j2 first second from
	from=$(($(cat "$T/fairway.log" 2>/dev/null | wc -l) + 1))
	j1=$(sbatch --parsable -A team_a -N 16 --gres=gpu:8 -t 5 -o /dev/null --wrap 'sleep 60')
	j2=$(sbatch --parsable -A team_b -N 1 --gres=gpu:8 -t 10 -o /dev/null --wrap 'sleep 60')
	FW_DEFER_JOB=$j1 LD_PRELOAD=$B/connectors/slurm/libfwrace.so \
		ASAN_OPTIONS=$ASAN_OPTIONS:verify_asan_link_order=0 fw_start
	if wait_until 10 'scontrol -o show res "fairway-$j2" 2>/dev/null | grep -q NodeCnt'; then
		first=$j1 second=$j2
	elif scontrol -o show res "fairway-$j1" 2>/dev/null | grep -q NodeCnt; then
		first=$j2 second=$j1
	else
		bad reserve_behind_a_start_runs "no fairway- reservation: $(scontrol -o show res 2>&1)"
		fw_stop; cancel_all; return
	fi
	if wait_until 20 'running "$first"' && scontrol -o show res "fairway-$second" 2>/dev/null | grep -q NodeCnt; then
		ok reserve_behind_a_start_runs
	else
		bad reserve_behind_a_start_runs "job $first: $(squeue -h -j "$first" -o '%T %R'), $(scontrol -o show res 2>&1)"
	fi
	sleep 3 # cycles that hold the reservation in place
	if tail -n "+$from" "$T/fairway.log" | grep -v '^cycle' | grep -q failed; then
		bad reserve_held_quietly "$(tail -n "+$from" "$T/fairway.log" | grep -v '^cycle' | grep failed | head -2)"
	else
		ok reserve_held_quietly
	fi
	fw_stop
	cancel_all
}

# ------------------------------------------------------------ 5. kill -9
t_restart() {
	local log=$T/ran.log n=60 ids i
	: >"$log"
	fw_start
	for ((i = 0; i < n; i++)); do
		sbatch -Q -A team_a --gres=gpu:4 -t 1 -o /dev/null --wrap "echo \$SLURM_JOB_ID >> $log; sleep 2"
	done
	sleep 2
	fw_kill9
	sleep 1
	fw_start
	sleep 1.5
	fw_kill9
	fw_start
	wait_until 90 no_jobs
	fw_stop
	ids=$(sort "$log" | uniq | wc -l)
	if [ "$ids" = "$n" ] && [ "$(wc -l <"$log")" = "$n" ]; then
		ok restart_kill9
	else
		bad restart_kill9 "$(wc -l <"$log") runs of $ids distinct jobs, expected $n once each; left: $(squeue -h | wc -l)"
	fi
	cancel_all
}

# ------------------------------------------------------------ 6. comment
t_comment() {
	local id c
	scontrol update nodename=gpu[001-016] state=drain reason=test-setup
	fw_start
	id=$(sbatch --parsable -A team_a --gres=gpu:1 -t 1 -o /dev/null --wrap 'sleep 1')
	wait_until 10 'squeue -h -j $id -o %k | grep -q "fairway: waiting: "'
	c=$(squeue -h -j "$id" -o %k)
	case "$c" in
	"fairway: waiting: "*) ok pending_comment ;;
	*) bad pending_comment "comment '$c'" ;;
	esac
	id=$(sbatch --parsable -A nobody --gres=gpu:1 -t 1 -o /dev/null --wrap 'sleep 1')
	if wait_until 10 'squeue -h -j $id -o %k | grep -q "account .nobody. is no fairway queue"'; then
		ok unknown_account_comment
	else
		bad unknown_account_comment "comment '$(squeue -h -j "$id" -o %k)'"
	fi
	fw_stop
	cancel_all
	scontrol update nodename=gpu[001-016] state=resume 2>/dev/null
}

# ------------------------------------------------------------ 7. evict
# team_b jobs requeued by fairway and held (priority 0), not running
evicted_held() {
	scontrol -o show job 2>/dev/null | grep 'Account=team_b' | grep -v 'JobState=RUNNING' |
		grep ' Priority=0 ' | grep -c 'Restarts=[1-9]'
}
t_evict() {
	local i held
	for i in $(seq 16); do
		sbatch -Q -A team_b --requeue --gres=gpu:8 -t 5 -o /dev/null --wrap 'sleep 120'
	done
	fw_start --policy kai
	wait_until 30 'test "$(squeue -h -t R -A team_b | wc -l)" = 16' || { bad evict_requeue_held "team_b did not fill the cluster"; fw_stop; cancel_all; return; }
	for i in $(seq 8); do
		sbatch -Q -A team_a --gres=gpu:8 -t 5 -o /dev/null --wrap 'sleep 60'
	done
	wait_until 30 'test "$(squeue -h -t R -A team_a | wc -l)" = 8'
	# every team_b job ran before team_a came: a pending held one was evicted
	# (requeued jobs pass through REQUEUE_HOLD/REQUEUED before PENDING)
	wait_until 10 'test "$(evicted_held)" -ge 8'
	held=$(evicted_held)
	if [ "$(squeue -h -t R -A team_a | wc -l)" = 8 ] && [ "$held" = 8 ] && [ "$(squeue -h -t R -A team_b | wc -l)" = 8 ]; then
		ok evict_requeue_held
	else
		bad evict_requeue_held "team_a running $(squeue -h -t R -A team_a | wc -l)/8, team_b running $(squeue -h -t R -A team_b | wc -l)/8, team_b requeued+held $held/8: $(scontrol -o show job | grep Account=team_b | grep -o 'JobState=[^ ]*\|Priority=[0-9]*\|Restarts=[0-9]*' | sort | uniq -c | tr '\n' ' ')"
	fi
	fw_stop
	cancel_all
}

# ONLY="gang drain" runs a subset
for t in ${ONLY:-fairshare evict gang drain reserve reserve_start restart comment}; do
	"t_$t"
done
grep -E 'failed|error' "$T/fairway.log" | grep -v 'failed 0' | head -5
finish
