#!/usr/bin/env bash
# tests/integration/slurm_accounts.sh BUILD_DIR — the queue tree imported
# from slurmdbd when fairway's YAML has none, on a real lab with MariaDB
# and slurmdbd (tests/slurm/lab.sh ACCT=1: accounts org(1) > team_a(60),
# team_b(40); big(28)):
#   accounts_imported     the driver reports slurmdbd's account tree as
#                         queues (org/team_a, org/team_b, big)
#   accounts_share_60_40  team_a and team_b competing for 32 GPUs get
#                         their FairShare 60/40 (+-1 job) in the first cycle
#   accounts_grp_tres     big's GrpTRES=gres/gpu:h100=3 is imported as a
#                         GPU model limit (the log says big[h100<=3]), and
#                         of its 6 jobs 3 run at most, though GPUs are free
#   qos_goes_first        of team_a's 6 normal and 2 --qos=high jobs of a
#                         whole node each (the high ones submitted last),
#                         on 4 free nodes the 2 high ones start at once
#   usage_not_kept_says_why  with priority/basic Slurm keeps no usage:
#                         fairway-slurm says so, naming PriorityType, and
#                         uses the config's (slurm_usage.sh: when it does)
. "$(dirname "$0")/../slurm/lib.sh"
TEST_NAME=slurm_accounts
export ACCT=1
lab_up 4
printf 'scheduler: {usageWeight: 0}\n' >"$T/noqueues.yaml"
sacctmgr -i modify account big set GrpTRES=gres/gpu:h100=3 >"$T/sacctmgr.log" 2>&1 ||
	bad accounts_grp_tres "sacctmgr: $(cat "$T/sacctmgr.log")"

submit 30 team_a 30
submit 30 team_b 30
FW_CONFIG=$T/noqueues.yaml fw_start
wait_until 15 'grep -q "queues from slurmdbd" "$T/fairway.log"'
line=$(grep "queues from slurmdbd" "$T/fairway.log")
if [[ $line == *org/team_a* && $line == *org/team_b* && $line == *" big"* ]]; then
	ok accounts_imported
else
	bad accounts_imported "log: $(head -3 "$T/fairway.log")"
fi
wait_until 15 'test $(( $(gpus_of team_a) + $(gpus_of team_b) )) = 32'
a=$(gpus_of team_a) b=$(gpus_of team_b)
if grep -q "fair share uses the config's usage: slurm.conf: field PriorityType: priority/basic keeps no usage" \
	"$T/fairway.log"; then
	ok usage_not_kept_says_why
else
	bad usage_not_kept_says_why "log: $(grep -i usage "$T/fairway.log" | head -3)"
fi
if ((a >= 18 && a <= 20 && a + b == 32)); then
	ok accounts_share_60_40
else
	bad accounts_share_60_40 "team_a $a, team_b $b GPUs of 32 (expected 19/13 +-1)"
fi
# big's GrpTRES: at most 3 of its H100s, with the other accounts' jobs
# ended (scancel) and the GPUs free
scancel -A team_a >/dev/null 2>&1
scancel -A team_b >/dev/null 2>&1
submit 6 big 30
wait_until 15 'test "$(gpus_of big)" -ge 3'
sleep 3 # a few more cycles: no fourth
g=$(gpus_of big)
if grep -q " big\[h100<=3\]" "$T/fairway.log" && [ "$g" = 3 ]; then
	ok accounts_grp_tres
else
	bad accounts_grp_tres "big holds $g GPUs (expected 3); log: $(grep "queues from slurmdbd" "$T/fairway.log"); $(squeue -h -A big -o "%i %T %Q %b %D %N %k" | head -8)"
fi
fw_stop
cancel_all
# A QOS's Priority orders an account's jobs before their submit time
sacctmgr -i add qos high set priority=100 >"$T/sacctmgr.log" 2>&1 &&
	sacctmgr -i modify user root set qos+=high >>"$T/sacctmgr.log" 2>&1 ||
	bad qos_goes_first "sacctmgr: $(cat "$T/sacctmgr.log")"
for q in normal normal normal normal normal normal high high; do
	sbatch -Q -A team_a --qos=$q --gres=gpu:8 -t 1 -o /dev/null --wrap "sleep 30" || bad qos_goes_first "sbatch --qos=$q"
done
started_of() { # jobs of QOS $1 fairway has started (running or released)
	squeue -h -q "$1" -t R,PD,CG -o '%T %Q' | awk '$1 != "PENDING" || $2 > 0' | wc -l
}
fw_start
wait_until 15 'test $(( $(started_of high) + $(started_of normal) )) -ge 4'
sleep 2 # a few more cycles: nothing else starts
h=$(started_of high) n=$(started_of normal)
if [ "$h" = 2 ] && [ "$n" = 2 ]; then
	ok qos_goes_first
else
	bad qos_goes_first "started: $h high, $n normal (expected 2 and 2); $(squeue -h -o '%i %q %T %Q %k' | head -8)"
fi
fw_stop
finish
