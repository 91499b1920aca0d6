#!/usr/bin/env bash
# scripts/gpu_check.sh OUTDIR — fairway-agent against the real NVML of this
# machine, checked against nvidia-smi (run scripts/gpu_bundle.sh first, on a
# machine with the build dependencies; it fills .gpu/).  Writes to OUTDIR:
# oneshot.json, watch.jsonl, assess.json, smi.txt, nvlink.txt, remap.csv,
# load.jsonl, load_smi.txt, check.txt and the programs' stderr.
# Checks: NVML available; one entry per GPU nvidia-smi lists, same names
# and UUIDs; temperatures within 5 C of nvidia-smi's; XID events
# registered; row-remap counters equal to nvidia-smi's; the NVLink links
# the agent counts up match nvidia-smi's active links; no link called down
# unless nvidia-smi shows it inactive while a sibling GPU has it up; a
# healthy GPU with no faults folds to healthy; --watch gives one line per
# report; --assess reads the report back.  Then, where python3 has torch
# with CUDA, GPU 0 runs bf16 matrix products for 20 s while the agent
# watches: its temperature must rise by 5 C or more, and the agent's
# hottest reading be within 5 C of nvidia-smi's.  And where python3 has
# cupy, a kernel writes to an invalid address while the agent watches:
# the driver raises an application XID for it (31, a page fault; or 13 or
# 43), which the agent must report, leaving the GPU healthy (an
# application fault is the program's, not the hardware's); with the
# bundle's `fairway`, the agent sends those reports to a `fairway serve`
# started there, with the agents' token, and the daemon's node must name
# the XID and stay healthy.  Ends with "N passed,
# N failed"; exit 0 only when all pass.  With the device tool (at most 8
# files come back, so pack them):
#   run(command="bash scripts/gpu_check.sh /tmp/gc; rc=$?; tar czf $OUT/gc.tgz -C /tmp gc; exit $rc",
#       carry=[".gpu"])
# GPU_CHECK_NVML=PATH loads that NVML instead (a dry run with the fake one
# and a stand-in nvidia-smi on PATH, before spending device time).
set -uo pipefail
cd "$(dirname "$0")/.."
O=${1:?usage: scripts/gpu_check.sh OUTDIR}
case $O in
-h | --help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
-*) echo "scripts/gpu_check.sh: unknown option '$O'; usage: scripts/gpu_check.sh OUTDIR (see --help)" >&2; exit 2 ;;
esac
mkdir -p "$O"
A=.gpu/fairway-agent
NV=()
[ -n "${GPU_CHECK_NVML:-}" ] && NV=(--nvml "$GPU_CHECK_NVML")
export LD_LIBRARY_PATH=$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if [ ! -x "$A" ]; then
	echo "gpu_check: $A missing: run scripts/gpu_bundle.sh first (and carry .gpu)"
	echo "0 passed, 1 failed"
	exit 1
fi
nvidia-smi -q >"$O/smi.txt" 2>&1
nvidia-smi nvlink -s >"$O/nvlink.txt" 2>&1
nvidia-smi --query-gpu=index,name,uuid,temperature.gpu --format=csv,noheader >"$O/smi.csv" 2>&1
nvidia-smi --query-remapped-rows=gpu_uuid,remapped_rows.correctable,remapped_rows.uncorrectable,remapped_rows.pending,remapped_rows.failure \
	--format=csv,noheader >"$O/remap.csv" 2>&1
"$A" "${NV[@]}" --pretty --wait 2000 >"$O/oneshot.json" 2>"$O/oneshot.err"
echo "oneshot exit $?" >>"$O/oneshot.err"
timeout 60 "$A" "${NV[@]}" --watch --interval 2 --count 3 --wait 0 >"$O/watch.jsonl" 2>"$O/watch.err"
echo "watch exit $?" >>"$O/watch.err"
"$A" --assess "$O/oneshot.json" >"$O/assess.json" 2>"$O/assess.err"
echo "assess exit $?" >>"$O/assess.err"
# an application fault: a kernel writes to address 0x10 (the dry run has
# the fake NVML deliver XID 31 instead).  With the daemon in the bundle,
# the agent also sends its reports to a `fairway serve` started here (the
# built-in example fleet; the agent speaks for its node a100-0) with the
# agents' token, which may only report node health.
if python3 -c 'import cupy' 2>/dev/null || [ -n "${GPU_CHECK_NVML:-}" ]; then
	POST=()
	if [ -x .gpu/fairway ]; then
		.gpu/fairway serve --state "$O/state" --listen 127.0.0.1:0 --port-file "$O/port" \
			>"$O/serve.log" 2>&1 &
		sp=$!
		for _ in $(seq 1 100); do
			[ -s "$O/port" ] && break
			sleep 0.1
		done
		[ -s "$O/port" ] && POST=(--server "http://127.0.0.1:$(cat "$O/port")" \
			--token-file "$O/state/agent-token" --node a100-0)
		# the daemon keeps a node's latest report: watch what it says
		# while the agent runs (every reason it gave, in order)
		python3 -c 'import json, sys, time, urllib.request
seen, t0 = [], time.time()
while time.time() - t0 < 45:
    try:
        j = json.loads(urllib.request.urlopen("http://127.0.0.1:%s/v1/nodes/a100-0" % sys.argv[1]).read())
        if not seen or seen[-1]["healthReason"] != j["healthReason"]:
            seen.append(j)
            open(sys.argv[2], "w").write(json.dumps(seen))
    except Exception:
        pass
    time.sleep(0.3)' "$(cat "$O/port" 2>/dev/null)" "$O/node.json" 2>/dev/null &
		wp=$!
	fi
	FAKE_NVML_XID=0:31 timeout 40 "$A" "${NV[@]}" "${POST[@]}" --watch --interval 2 --count 6 --wait 1000 \
		>"$O/xid.jsonl" 2>"$O/xid.err" &
	ap=$!
	sleep 3
	if [ -z "${GPU_CHECK_NVML:-}" ]; then
		cat >"$O/xid_kernel.py" <<'PY'
import cupy as cp
k = cp.RawKernel(r'''extern "C" __global__ void bad() { *(volatile int *)0x10 = 1; }''', "bad")
try:
    k((1,), (1,), ())
    cp.cuda.runtime.deviceSynchronize()
    print("kernel: no error")
except Exception as e:
    print("kernel:", type(e).__name__, e)
PY
		python3 "$O/xid_kernel.py" >"$O/xid_kernel.txt" 2>&1
	fi
	wait "$ap"
	if [ -n "${sp:-}" ]; then
		sleep 1
		kill "$wp" 2>/dev/null
		wait "$wp" 2>/dev/null
		kill -TERM "$sp"
		wait "$sp"
		echo "serve exit $?" >>"$O/serve.log"
	fi
fi
# under load: bf16 matrix products on GPU 0 for 20 s, the agent watching
# (5 reports, 4 s apart) and nvidia-smi sampled alongside
if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
	python3 -c 'import time, torch
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
t = time.time()
while time.time() - t < 20:
    a @ a
torch.cuda.synchronize()' >"$O/load_torch.err" 2>&1 &
	lp=$!
	sleep 2
	timeout 40 "$A" "${NV[@]}" --watch --interval 4 --count 5 --wait 0 >"$O/load.jsonl" 2>"$O/load.err" &
	ap=$!
	for _ in 1 2 3 4 5; do
		nvidia-smi --query-gpu=index,temperature.gpu,utilization.gpu --format=csv,noheader >>"$O/load_smi.txt" 2>&1
		sleep 4
	done
	wait "$ap" "$lp"
fi
python3 - "$O" <<'PY' | tee "$O/check.txt"
import json, re, sys
O = sys.argv[1]
res = []
def check(name, ok, detail=""):
    res.append(ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + str(detail)[:400]))
try:
    r = json.load(open(O + "/oneshot.json"))
except Exception as e:
    check("oneshot_json", False, e); r = None
if r:
    check("nvml_available", r["nvml"].get("available") is True, r["nvml"])
    smi = [l.split(", ") for l in open(O + "/smi.csv").read().strip().splitlines() if l.count(",") >= 3]
    check("gpu_count", len(smi) >= 1 and len(r["gpus"]) == len(smi), (len(r["gpus"]), smi))
    for g, s in zip(r["gpus"], smi):
        i = g["index"]
        check("gpu%d_name_uuid" % i, g["name"] == s[1] and g["uuid"] == s[2], (g["name"], g["uuid"], s))
        t = g["temperature_c"]
        check("gpu%d_temperature" % i, t is not None and abs(t - int(s[3])) <= 5, (t, s[3]))
        check("gpu%d_read" % i, g["unread"] is None and not g["lost"], g)
    check("xid_events_registered", r["nvml"].get("xid_events") is True, r["nvml"])
    # nvidia-smi --query-remapped-rows: uuid, correctable, uncorrectable, pending, failure
    # (pending and failure read "No"/"Yes", or 0/1 on some drivers)
    yes = lambda v: v.strip().lower() in ("yes", "1", "true")
    remap = {}
    for l in open(O + "/remap.csv"):
        f = [x.strip() for x in l.split(",")]
        if len(f) == 5 and f[0].startswith("GPU-") and f[1].isdigit():
            remap[f[0]] = (int(f[1]), int(f[2]), yes(f[3]), yes(f[4]))
    for g in r["gpus"]:
        if g["uuid"] in remap:
            rr = g["row_remap"]
            mine = rr and (rr["correctable"], rr["uncorrectable"], rr["pending"], rr["failed"])
            check("gpu%d_row_remap_matches_smi" % g["index"], mine == remap[g["uuid"]], (rr, remap[g["uuid"]]))
        else:
            print("NOTE gpu%d: nvidia-smi gives no row-remap counters (pre-Ampere?); not compared" % g["index"])
    # nvidia-smi nvlink -s: "GPU i: ..." then "Link l: <speed>" or "Link l: <inactive>"
    active, cur = {}, None
    for line in open(O + "/nvlink.txt"):
        m = re.match(r"GPU (\d+):", line)
        if m:
            cur = int(m.group(1)); active[cur] = set(); continue
        m = re.match(r"\s+Link (\d+): (.*)", line)
        if m and cur is not None and "inactive" not in m.group(2).lower():
            active[cur].add(int(m.group(1)))
    if not any(active.values()):
        print("NOTE nvidia-smi shows no NVLink link up on this machine: the link checks compare 0 with 0")
    for g in r["gpus"]:
        i = g["index"]
        up = len(active.get(i, ()))
        check("gpu%d_nvlink_up_matches_smi" % i, g["nvlink"]["up"] == up, (g["nvlink"], sorted(active.get(i, ()))))
        sib = set().union(*[v for k, v in active.items() if k != i]) if len(active) > 1 else set()
        check("gpu%d_nvlink_down_only_if_sibling_up" % i, set(g["nvlink"]["down"]) <= sib, (g["nvlink"], sorted(sib)))
        rr = g.get("row_remap") or {}
        faults = (g["xid"] or (g["ecc_uncorrectable"]["volatile"] or 0) > 0 or g["nvlink"]["down"]
                  or rr.get("pending") or rr.get("failed"))
        if not faults:
            check("gpu%d_healthy" % i, g["health"] == "healthy", g["health"])
    lines = [l for l in open(O + "/watch.jsonl") if l.strip()]
    check("watch_three_reports", len(lines) == 3, len(lines))
    try:
        a = json.load(open(O + "/assess.json"))
        check("assess_reads_back", a["node_health"] == r["node_health"] and a["bad_gpus"] == r["bad_gpus"], a)
    except Exception as e:
        check("assess_reads_back", False, e)
import os
if os.path.exists(O + "/xid.jsonl"):
    seen = []
    for l in open(O + "/xid.jsonl"):
        try:
            x = json.loads(l)
        except Exception:
            continue
        for g in x["gpus"]:
            for e in g["xid"]:
                seen.append((g["index"], e["code"], g["health"], x["node_health"]))
    kern = open(O + "/xid_kernel.txt").readline().strip() if os.path.exists(O + "/xid_kernel.txt") else "(dry run)"
    print("NOTE invalid-address kernel: %s; XIDs the agent reported (gpu, code, gpu health, node health): %s" % (kern, seen))
    app = [t for t in seen if t[1] in (13, 31, 43)]
    check("fault_xid_reported", len(app) >= 1, seen)
    check("fault_xid_not_judged", bool(app) and all(t[2] == "healthy" and t[3] == "healthy" for t in app), seen)
    if os.path.exists(O + "/serve.log"):
        # the daemon heard it: the node's health reason names the XID, and
        # an application XID leaves the node healthy and schedulable
        try:
            seen = json.load(open(O + "/node.json"))
        except Exception as e:
            seen = [{"error": str(e)}]
        reasons = [str(x.get("healthReason")) for x in seen]
        print("NOTE the daemon's reasons for a100-0, in order: %s" % reasons)
        hit = [x for x in seen if any("XID %d" % t[1] in str(x.get("healthReason")) for t in app)]
        check("daemon_got_the_xid", len(hit) >= 1, reasons)
        check("daemon_node_still_healthy", bool(hit) and all(x.get("healthy") is True and x.get("badGpus") == []
                                                             for x in hit), hit)
        log = open(O + "/serve.log").read()
        check("daemon_sigterm_exit_0", "serve exit 0" in log, log[-300:])
else:
    print("NOTE no cupy here: the application-fault check did not run")
if os.path.exists(O + "/load.jsonl"):
    temps = []
    for l in open(O + "/load.jsonl"):
        try:
            temps.append(json.loads(l)["gpus"][0]["temperature_c"])
        except Exception:
            pass
    smi_t = [int(l.split(",")[1]) for l in open(O + "/load_smi.txt") if l.count(",") == 2 and l.split(",")[1].strip().isdigit()]
    print("NOTE under load: agent read %s C, nvidia-smi %s C" % (temps, smi_t))
    check("load_five_reports", len(temps) == 5, temps)
    check("load_agent_sees_heat", len(temps) >= 2 and max(temps) - temps[0] >= 5, temps)
    check("load_hottest_matches_smi", bool(temps) and bool(smi_t) and abs(max(temps) - max(smi_t)) <= 5, (temps, smi_t))
else:
    print("NOTE no torch with CUDA here: the load check did not run")
print("%d passed, %d failed" % (sum(res), len(res) - sum(res)))
sys.exit(0 if all(res) else 1)
PY
