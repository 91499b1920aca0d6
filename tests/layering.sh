#!/usr/bin/env bash
# tests/layering.sh BUILD_DIR — the core's layering, as docs/ARCHITECTURE.md
# states it: "lib/ and policies/ compile with only include/ and lib/ on the
# include path and link nothing but libm".  Read from the build's
# compile_commands.json (what the compiler was really given), so a core
# file compiled in another target (with sim/ or tools/ on its path, as
# policies/scorers.c once was inside sim's fwsim_fgd) fails here:
#   1. every lib/*.c and policies/*.c is compiled, once, into libfairway;
#   2. with no -I but include/, lib/ and libfairway's own build folders;
#   3. and quotes no header by a path out of include/ and lib/ ("../sim/x.h"
#      would find it past the include path);
#   4. libfairway's sources (meson's introspection) hold them all.
# The link side (libm alone) is lib/meson.build's fairway_dep: m_dep only.
# Prints PASS/FAIL lines and "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-asan}
[ -f "$B/compile_commands.json" ] || { echo "FAIL no $B/compile_commands.json"; echo "0 passed, 1 failed"; exit 1; }
python3 - "$B" "$(pwd)" <<'EOF'
import glob, json, os, re, shlex, sys

build, root = os.path.abspath(sys.argv[1]), sys.argv[2]
passed = failed = 0

def check(ok, what):
    global passed, failed
    print(("PASS " if ok else "FAIL ") + what)
    passed += ok
    failed += not ok

cmds = json.load(open(os.path.join(build, "compile_commands.json")))
core = sorted(glob.glob("lib/*.c") + glob.glob("policies/*.c"))
allowed = {os.path.join(root, "include"), os.path.join(root, "lib")}
for src in core:
    path = os.path.join(root, src)
    mine = [e for e in cmds if os.path.normpath(os.path.join(e["directory"], e["file"])) == path]
    outs = [e["output"] for e in mine]
    check(len(mine) == 1 and outs[0].startswith("lib/libfairway."),
          f"{src} is compiled once, into libfairway (outputs: {outs})")
    for e in mine:
        args = e.get("arguments") or shlex.split(e["command"])
        dirs = []
        for i, a in enumerate(args):
            if a == "-I" and i + 1 < len(args):
                dirs.append(args[i + 1])
            elif a.startswith("-I") and len(a) > 2:
                dirs.append(a[2:])
        bad = [d for d in dirs
               if os.path.normpath(os.path.join(e["directory"], d)) not in allowed
               and not os.path.normpath(os.path.join(e["directory"], d)).startswith(os.path.join(build, "lib"))]
        check(not bad, f"{src}: -I only include/ and lib/ (others: {bad})")
    quoted = re.findall(r'^\s*#\s*include\s+"([^"]+)"', open(path).read(), re.M)
    out = [q for q in quoted
           if not (q.startswith("fairway/") or (not "/" in q and os.path.exists(os.path.join(root, "lib", q))))]
    check(not out, f"{src}: quotes only fairway/ and lib/ headers (others: {out})")

# libfairway as meson knows it: every core file among its sources.
intro = os.path.join(build, "meson-info", "intro-targets.json")
targets = json.load(open(intro)) if os.path.exists(intro) else []
lib = [t for t in targets if t["name"] == "fairway" and t["type"] == "static library"]
srcs = set()
for t in lib:
    for s in t.get("target_sources", []):
        srcs.update(os.path.normpath(f) for f in s.get("sources", []))
check(bool(lib) and all(os.path.join(root, c) in srcs for c in core),
      "libfairway's sources hold every lib/*.c and policies/*.c")
print(f"{passed} passed, {failed} failed")
sys.exit(failed != 0)
EOF
