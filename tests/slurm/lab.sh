#!/usr/bin/env bash
# tests/slurm/lab.sh — a real, loopback-only Slurm 22.05 cluster (Debian 12
# packages) in a directory, for fairway's Slurm tests and benchmarks.
#
#   lab.sh start DIR    start munged, slurmctld and one slurmd per emulated
#                       node; prints nothing but errors; exit 0 when every
#                       node is idle
#   lab.sh stop DIR     stop exactly the processes `start` recorded (PIDs in
#                       DIR/run), cancel jobs first; never kills by name
#   lab.sh check        exit 0 when this machine can run a lab (root and the
#                       packages); otherwise print why on stdout, exit 77
#
# What it builds (the recipe of ../shared/reading/slurm-lab, rewritten):
#   - munged on a private socket and key (DIR/munge);
#   - slurmctld on 127.0.0.1:PORT_BASE, NODES slurmd processes (Debian
#     builds Slurm with --enable-multiple-slurmd) named gpu001.. on
#     127.0.0.1:PORT_BASE+i, each with GPUS fake GPUs (symlinks to /dev/null:
#     22.05 wants a char device per GPU);
#   - topology.conf (topology/tree) with SWITCHES leaf switches s1..sN over
#     consecutive node ranges, under one root switch;
#   - one partition `gpu` (Default) managed by fairway: contrib/slurm/
#     job_submit.lua holds every job submitted to it (JOB_SUBMIT=0: off);
#   - no slurmdbd by default (fairway's queue tree is the accounting it
#     needs); ACCT=1 adds MariaDB (127.0.0.1, data in DIR/mysql) and
#     slurmdbd, with the account tree of ACCOUNTS ("name:parent:fairshare
#     ...", default org:root:1 team_a:org:60 team_b:org:40 big:root:28)
#     and root as a user of every account.
# The daemons are exec'd through symlinks named exactly slurmctld/slurmd/
# slurmstepd: started under their Debian names (-wlm) they silently drop
# Gres= and bind 0.0.0.0.  CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
# binds them to $(hostname)'s address, which must be 127.x (checked).
#
# Knobs: NODES=16 GPUS=8 SWITCHES=2 PORT_BASE=(a free random range) ACCT=0
#        PRIORITY=basic (multifactor, with ACCT=1: Slurm keeps decayed usage,
#        and enforces the associations' limits)
#        JOB_SUBMIT=1 SCHED_PARAMS=(tuned: 1 s batch tick, no delay)
#        INSTALL=1 (apt-get the packages when missing; needs root)
# Clients: source DIR/env.sh (SLURM_CONF=DIR/etc/slurm.conf).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PKGS=(munge slurmctld slurmd slurm-client slurm-wlm-basic-plugins libslurm-dev)

log() { printf '[lab %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
die() { printf '[lab] error: %s\n' "$*" >&2; exit 1; }

missing_pkgs() {
	local p
	[ "${ACCT:-0}" = 1 ] && PKGS+=(slurmdbd mariadb-server)
	for p in "${PKGS[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || echo "$p"
	done
}

# Install with the package scripts forbidden to start the stock daemons
# (they would use /etc/slurm and the default ports).
install_pkgs() {
	local miss made=0
	miss=$(missing_pkgs | tr '\n' ' ')
	[ -z "$miss" ] && return 0
	[ "${INSTALL:-1}" = 1 ] && [ "$(id -u)" = 0 ] || return 1
	log "installing: $miss"
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod 755 /usr/sbin/policy-rc.d
		made=1
	fi
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086
	{ apt-get update -qq && apt-get install -y -qq --no-install-recommends $miss; } >/dev/null 2>&1
	local rc=$?
	[ $made = 1 ] && rm -f /usr/sbin/policy-rc.d
	return $rc
}

cmd_check() {
	[ "$(id -u)" = 0 ] || { echo "not root: the lab runs its daemons as root"; exit 77; }
	install_pkgs || { echo "missing packages: $(missing_pkgs | tr '\n' ' ')"; exit 77; }
	local hip
	hip=$(getent ahostsv4 "$(hostname)" | awk 'NR==1{print $1}')
	case "$hip" in 127.*) ;; *) echo "hostname $(hostname) resolves to '${hip:-nothing}', not 127.x"; exit 77;; esac
	exit 0
}

# A base port with PORT_BASE..PORT_BASE+NODES+1 all free on this machine.
pick_ports() {
	local base used try
	used=$(ss -Htan 2>/dev/null | awk '{n=split($4,a,":"); print a[n]}' | sort -u)
	for try in $(seq 50); do
		base=$((20000 + (RANDOM % 400) * 100))
		if ! echo "$used" | awk -v lo="$base" -v hi="$((base + NODES + 3))" '$1>=lo && $1<=hi {f=1} END {exit !f}'; then
			echo "$base"
			return 0
		fi
	done
	die "no free port range"
}

# ours PIDFILE: the pid file names a live process whose command line
# mentions DIR (a stale file may name a reused PID)
ours() {
	local p
	[ -s "$1" ] && p=$(cat "$1") && kill -0 "$p" 2>/dev/null &&
		{ tr '\0' '\n' <"/proc/$p/cmdline"; } 2>/dev/null | grep -qF "$LAB/"
}

wait_for() { # SECONDS CMD...: poll every 0.1 s
	local end=$((SECONDS + $1))
	shift
	while ((SECONDS < end)); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
	return 1
}

write_conf() {
	local W=3 last nodelist ports gfiles sw per i lo hi
	last=$(printf "%03d" "$NODES")
	nodelist="gpu[001-$last]"
	ports="[$((PORT_BASE + 1))-$((PORT_BASE + NODES))]"
	gfiles="$LAB/dev/nvidia[0-$((GPUS - 1))]"
	cat >"$LAB/etc/slurm.conf" <<CONF
# generated by fairway tests/slurm/lab.sh — loopback-only test cluster
ClusterName=fwlab
SlurmctldHost=localhost
SlurmctldPort=$PORT_BASE
SlurmdPort=$PORT_BASE
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$LAB/munge/munge.socket
CredType=cred/munge
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
TreeWidth=65533
StateSaveLocation=$LAB/state
SlurmdSpoolDir=$LAB/spool/%n
SlurmctldPidFile=$LAB/run/slurmctld.pid
SlurmdPidFile=$LAB/run/slurmd.%n.pid
SlurmctldLogFile=$LAB/log/slurmctld.log
SlurmdLogFile=$LAB/log/slurmd.%n.log
SlurmctldDebug=info
SlurmdDebug=error
PlugStackConfig=$LAB/etc/plugstack.conf
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
TopologyPlugin=topology/tree
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=$((512000 / 64))
GresTypes=gpu
SchedulerType=sched/backfill
SchedulerParameters=$SCHED_PARAMS
PriorityType=priority/$PRIORITY
${PRIORITY_EXTRA}SlurmdParameters=config_overrides
ReturnToService=2
JobRequeue=0
MaxJobCount=200000
MinJobAge=60
KillWait=2
InactiveLimit=0
SlurmctldTimeout=30
SlurmdTimeout=60
CONF
	[ "$JOB_SUBMIT" = 1 ] && echo "JobSubmitPlugins=lua" >>"$LAB/etc/slurm.conf"
	if [ "$ACCT" = 1 ]; then
		write_dbd_conf
	else
		echo "AccountingStorageType=accounting_storage/none" >>"$LAB/etc/slurm.conf"
	fi
	cat >>"$LAB/etc/slurm.conf" <<CONF
NodeName=DEFAULT CPUs=64 Boards=1 SocketsPerBoard=2 CoresPerSocket=32 ThreadsPerCore=1 RealMemory=512000 State=UNKNOWN
NodeName=$nodelist Gres=gpu:h100:$GPUS NodeHostname=localhost NodeAddr=127.0.0.1 Port=$ports
PartitionName=gpu Nodes=ALL Default=YES DefaultTime=00:10:00 MaxTime=INFINITE State=UP
CONF
	printf 'AutoDetect=off\nNodeName=%s Name=gpu Type=h100 File=%s\n' "$nodelist" "$gfiles" >"$LAB/etc/gres.conf"
	: >"$LAB/etc/plugstack.conf"
	# leaf switches s1..sN over consecutive ranges, one root above them
	per=$(((NODES + SWITCHES - 1) / SWITCHES))
	: >"$LAB/etc/topology.conf"
	made=0 # fewer than SWITCHES when there are fewer nodes (NODES=1)
	for ((sw = 1; sw <= SWITCHES; sw++)); do
		lo=$(((sw - 1) * per + 1)); hi=$((sw * per)); ((hi > NODES)) && hi=$NODES
		((lo > hi)) && break
		printf 'SwitchName=s%d Nodes=gpu[%03d-%03d]\n' "$sw" "$lo" "$hi" >>"$LAB/etc/topology.conf"
		made=$sw
	done
	printf 'SwitchName=root Switches=s[1-%d]\n' "$made" >>"$LAB/etc/topology.conf"
	[ "$JOB_SUBMIT" = 1 ] && cp "$ROOT/contrib/slurm/job_submit.lua" "$LAB/etc/job_submit.lua"
	printf 'export SLURM_CONF=%s\nexport FW_SLURM_LAB=%s\n' "$LAB/etc/slurm.conf" "$LAB" >"$LAB/env.sh"
	echo "$PORT_BASE" >"$LAB/port_base"
	return 0
}

DBPASS=fwlab # the lab's MariaDB user, loopback only
write_dbd_conf() {
	cat >>"$LAB/etc/slurm.conf" <<CONF
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=$((PORT_BASE + NODES + 1))
AccountingStoragePass=socket=$LAB/munge/munge.socket
AccountingStorageTRES=gres/gpu,gres/gpu:h100
CONF
	cat >"$LAB/etc/slurmdbd.conf" <<CONF
AuthType=auth/munge
AuthInfo=socket=$LAB/munge/munge.socket
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$((PORT_BASE + NODES + 1))
CommunicationParameters=NoInAddrAny
SlurmUser=root
DebugLevel=info
LogFile=$LAB/log/slurmdbd.log
PidFile=$LAB/run/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$((PORT_BASE + NODES + 2))
StorageUser=slurm
StoragePass=$DBPASS
StorageLoc=slurm_acct_db
CONF
	chmod 600 "$LAB/etc/slurmdbd.conf"
}

# MariaDB on 127.0.0.1 with its data in DIR/mysql, then slurmdbd, then the
# cluster and ACCOUNTS (before slurmctld, which must find its cluster)
start_accounting() {
	local sock=$LAB/mysql/mysqld.sock a name parent fs
	mkdir -p "$LAB/mysql"
	mariadb-install-db --no-defaults --datadir="$LAB/mysql/data" --user=root \
		--auth-root-authentication-method=socket --skip-test-db >"$LAB/log/mariadb-install.log" 2>&1 ||
		die "mariadb-install-db failed (see $LAB/log/mariadb-install.log)"
	setsid mariadbd --no-defaults --datadir="$LAB/mysql/data" --socket="$sock" \
		--pid-file="$LAB/run/mariadbd.pid" --port=$((PORT_BASE + NODES + 2)) --bind-address=127.0.0.1 \
		--skip-name-resolve --user=root --log-error="$LAB/log/mariadbd.log" \
		--innodb-buffer-pool-size=64M </dev/null >/dev/null 2>&1 &
	wait_for 60 mariadb --no-defaults -S "$sock" -uroot -e 'select 1' || die "mariadbd did not start"
	mariadb --no-defaults -S "$sock" -uroot -e "CREATE DATABASE slurm_acct_db;
		CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$DBPASS';
		GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';" || die "MariaDB setup failed"
	ln -sfn /usr/sbin/slurmdbd "$LAB/sbin/slurmdbd" # its command line names DIR
	"$LAB/sbin/slurmdbd" || die "slurmdbd failed (see $LAB/log/slurmdbd.log)"
	wait_for 60 sacctmgr -n show cluster || die "slurmdbd not answering (see $LAB/log/slurmdbd.log)"
	sacctmgr -i add cluster fwlab >/dev/null
	for a in ${ACCOUNTS:-org:root:1 team_a:org:60 team_b:org:40 big:root:28}; do
		IFS=: read -r name parent fs <<<"$a"
		sacctmgr -i add account "$name" cluster=fwlab parent="$parent" fairshare="$fs" >/dev/null ||
			die "sacctmgr add account $name failed"
		sacctmgr -i add user root account="$name" cluster=fwlab >/dev/null
	done
}

start_munge() {
	mungekey --create --keyfile="$LAB/munge/munge.key" 2>/dev/null || die "mungekey failed"
	chmod 400 "$LAB/munge/munge.key"
	munged --socket="$LAB/munge/munge.socket" --key-file="$LAB/munge/munge.key" \
		--pid-file="$LAB/run/munged.pid" --log-file="$LAB/log/munged.log" \
		--seed-file="$LAB/munge/munged.seed" --origin=127.0.0.1 --num-threads=4 ||
		die "munged did not start (see $LAB/log/munged.log)"
	wait_for 10 test -S "$LAB/munge/munge.socket" || die "munged socket missing"
}

all_idle() {
	[ "$(sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)" -ge "$NODES" ]
}

cmd_start() {
	(cmd_check) >/dev/null || die "cannot run a Slurm lab here: $(cmd_check)"
	[ -e "$LAB/run/slurmctld.pid" ] && ours "$LAB/run/slurmctld.pid" && die "a lab is already running in $LAB"
	mkdir -p "$LAB"/{etc,state,spool,log,run,sbin,dev,munge,jobs}
	chmod 755 "$LAB" "$LAB/munge"
	ln -sfn /usr/sbin/slurmctld-wlm "$LAB/sbin/slurmctld"
	ln -sfn /usr/sbin/slurmd-wlm "$LAB/sbin/slurmd"
	ln -sfn /usr/sbin/slurmstepd-wlm "$LAB/sbin/slurmstepd"
	for ((g = 0; g < GPUS; g++)); do ln -sfn /dev/null "$LAB/dev/nvidia$g"; done
	PORT_BASE=${PORT_BASE:-$(pick_ports)}
	write_conf
	export SLURM_CONF="$LAB/etc/slurm.conf"
	start_munge
	[ "$ACCT" = 1 ] && start_accounting
	"$LAB/sbin/slurmctld" -f "$SLURM_CONF" || die "slurmctld failed (see $LAB/log/slurmctld.log)"
	wait_for 30 scontrol ping || die "slurmctld not answering (see $LAB/log/slurmctld.log)"
	local i n
	for ((i = 1; i <= NODES; i++)); do
		n=$(printf "gpu%03d" "$i")
		mkdir -p "$LAB/spool/$n"
		# FW_SLURM_LAB marks this slurmd and every slurmstepd it forks, so
		# `stop` can find leftover step daemons (and kill them by PID)
		FW_SLURM_LAB="$LAB" "$LAB/sbin/slurmd" -f "$SLURM_CONF" -N "$n" -d "$LAB/sbin/slurmstepd" ||
			die "slurmd $n failed (see $LAB/log/slurmd.$n.log)"
	done
	wait_for $((30 + NODES / 4)) all_idle || die "nodes not idle: $(sinfo -h -o '%T %D' | tr '\n' ' ')"
	check_loopback
}

# every TCP listener of our daemons must be on 127.0.0.1
check_loopback() {
	local pids bad
	pids=$(cat "$LAB"/run/*.pid 2>/dev/null | paste -sd'|')
	bad=$(ss -ltnpH 2>/dev/null | awk '$4 !~ /^127\./' | grep -E "pid=($pids)," || true)
	[ -z "$bad" ] || die "non-loopback listeners: $bad"
}

# stop_pid PID: TERM, wait up to 10 s, then KILL that one PID
stop_pid() {
	local p=$1 k
	kill -TERM "$p" 2>/dev/null || return 0
	for k in $(seq 100); do kill -0 "$p" 2>/dev/null || return 0; sleep 0.1; done
	kill -KILL "$p" 2>/dev/null || true
}

cmd_stop() {
	[ -d "$LAB" ] || return 0
	export SLURM_CONF="$LAB/etc/slurm.conf"
	local f p pids=() d
	if ours "$LAB/run/slurmctld.pid"; then
		timeout 10 scancel --state=R -s KILL --full $(timeout 10 squeue -h -o %i 2>/dev/null) >/dev/null 2>&1 || true
		timeout 10 scancel $(timeout 10 squeue -h -o %i 2>/dev/null) >/dev/null 2>&1 || true
	fi
	for f in "$LAB"/run/slurmd.*.pid; do
		[ -e "$f" ] || continue
		ours "$f" && { p=$(cat "$f"); kill -TERM "$p" 2>/dev/null; pids+=("$p"); }
	done
	for p in "${pids[@]}"; do stop_pid "$p"; done
	rm -f "$LAB"/run/slurmd.*.pid
	ours "$LAB/run/slurmctld.pid" && stop_pid "$(cat "$LAB/run/slurmctld.pid")"
	# leftover slurmstepd and job processes carry FW_SLURM_LAB=DIR
	for d in /proc/[0-9]*; do
		p=${d#/proc/}
		[ "$p" = $$ ] && continue
		{ tr '\0' '\n' <"$d/environ"; } 2>/dev/null | grep -qxF "FW_SLURM_LAB=$LAB" && kill -KILL "$p" 2>/dev/null
	done
	ours "$LAB/run/slurmdbd.pid" && stop_pid "$(cat "$LAB/run/slurmdbd.pid")"
	ours "$LAB/run/mariadbd.pid" && stop_pid "$(cat "$LAB/run/mariadbd.pid")"
	ours "$LAB/run/munged.pid" && stop_pid "$(cat "$LAB/run/munged.pid")"
	rm -f "$LAB"/run/*.pid
	return 0
}

cmd=${1:-}
case "$cmd" in
check) cmd_check ;;
start | stop)
	[ $# -ge 2 ] || die "usage: $0 start|stop DIR"
	mkdir -p "$2"
	LAB=$(cd "$2" && pwd)
	case "$LAB" in /) die "refusing DIR=/" ;; esac
	NODES=${NODES:-16} GPUS=${GPUS:-8} SWITCHES=${SWITCHES:-2}
	JOB_SUBMIT=${JOB_SUBMIT:-1} ACCT=${ACCT:-0} PRIORITY=${PRIORITY:-basic} PRIORITY_EXTRA=
	# multifactor: Slurm keeps each association's decayed usage, recomputed
	# every minute (PriorityCalcPeriod's least), with a 7-day half-life; per
	# TRES (the GPUs) only where it enforces limits
	if [ "$PRIORITY" = multifactor ]; then
		PRIORITY_EXTRA=$'PriorityCalcPeriod=1\nPriorityDecayHalfLife=7-0\nPriorityWeightFairshare=1000\n'
		PRIORITY_EXTRA+=$'AccountingStorageEnforce=associations,limits\n'
	fi
	SCHED_PARAMS=${SCHED_PARAMS:-batch_sched_delay=0,sched_interval=2,sched_min_interval=0,bf_interval=1,bf_continue,default_queue_depth=1000}
	"cmd_$cmd"
	;;
*) die "usage: $0 start|stop DIR | check" ;;
esac
