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
	grep -q "fair share reads Slurm's decayed GPU usage" "$T/fairway.log"; then
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
finish
