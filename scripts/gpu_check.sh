#!/usr/bin/env bash
# scripts/gpu_check.sh OUTDIR — fairway-agent against the real NVML of this
# machine, checked against nvidia-smi (run scripts/gpu_bundle.sh first, on a
# machine with the build dependencies; it fills .gpu/).  Writes to OUTDIR:
# oneshot.json, watch.jsonl, assess.json, smi.txt, nvlink.txt, check.txt.
# Checks: NVML available; one entry per GPU nvidia-smi lists, same names
# and UUIDs; temperatures within 5 C of nvidia-smi's; XID events
# registered; the NVLink links the agent counts up match nvidia-smi's
# active links; no link called down unless nvidia-smi shows it inactive
# while a sibling GPU has it up; a healthy GPU with no faults folds to
# healthy; --watch gives one line per report; --assess reads the report
# back.  Ends with "N passed, N failed"; exit 0 only when all pass.
# GPU_CHECK_NVML=PATH loads that NVML instead (a dry run with the fake one
# and a stand-in nvidia-smi on PATH, before spending device time).
set -uo pipefail
cd "$(dirname "$0")/.."
O=${1:?usage: scripts/gpu_check.sh OUTDIR}
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
"$A" "${NV[@]}" --pretty --wait 2000 >"$O/oneshot.json" 2>"$O/oneshot.err"
echo "oneshot exit $?" >>"$O/oneshot.err"
timeout 60 "$A" "${NV[@]}" --watch --interval 2 --count 3 --wait 0 >"$O/watch.jsonl" 2>"$O/watch.err"
echo "watch exit $?" >>"$O/watch.err"
"$A" --assess "$O/oneshot.json" >"$O/assess.json" 2>"$O/assess.err"
echo "assess exit $?" >>"$O/assess.err"
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
    # nvidia-smi nvlink -s: "GPU i: ..." then "Link l: <speed>" or "Link l: <inactive>"
    active, cur = {}, None
    for line in open(O + "/nvlink.txt"):
        m = re.match(r"GPU (\d+):", line)
        if m:
            cur = int(m.group(1)); active[cur] = set(); continue
        m = re.match(r"\s+Link (\d+): (.*)", line)
        if m and cur is not None and "inactive" not in m.group(2).lower():
            active[cur].add(int(m.group(1)))
    for g in r["gpus"]:
        i = g["index"]
        up = len(active.get(i, ()))
        check("gpu%d_nvlink_up_matches_smi" % i, g["nvlink"]["up"] == up, (g["nvlink"], sorted(active.get(i, ()))))
        sib = set().union(*[v for k, v in active.items() if k != i]) if len(active) > 1 else set()
        check("gpu%d_nvlink_down_only_if_sibling_up" % i, set(g["nvlink"]["down"]) <= sib, (g["nvlink"], sorted(sib)))
        faults = g["xid"] or (g["ecc_uncorrectable"]["volatile"] or 0) > 0 or g["nvlink"]["down"]
        if not faults:
            check("gpu%d_healthy" % i, g["health"] == "healthy", g["health"])
    lines = [l for l in open(O + "/watch.jsonl") if l.strip()]
    check("watch_three_reports", len(lines) == 3, len(lines))
    try:
        a = json.load(open(O + "/assess.json"))
        check("assess_reads_back", a["node_health"] == r["node_health"] and a["bad_gpus"] == r["bad_gpus"], a)
    except Exception as e:
        check("assess_reads_back", False, e)
print("%d passed, %d failed" % (sum(res), len(res) - sum(res)))
sys.exit(0 if all(res) else 1)
PY
