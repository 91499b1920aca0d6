#!/usr/bin/env bash
# tests/report_screenshot.sh BUILD_DIR — the HTML report as a person sees
# it: replay a small trace through four policies with `fairway-sim run
# --report`, render the file in headless Chromium (Debian package
# `chromium`, installed by scripts/deps.sh), and check that the page and
# its charts really render: the PNG has the window's size, is not blank,
# shows every policy's colour in quantity, the winners' highlight, and ink
# spread down the chart sections.  PNG decoding is python3's standard
# library only (zlib).  Without chromium the render checks print SKIP and
# are not counted.  Prints PASS/FAIL lines and "N passed, N failed".
#
# The trace is $FAIRWAY_TRACES/microsoft-itp/cluster10.csv at 2x8 when it
# exists, else a synthetic 400-job trace made here.  The screenshot is
# kept at $FW_SCREENSHOT (default /tmp/fairway-report-screenshot.png).
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-asan}
SIM=$B/sim/fairway-sim
TRACES=${FAIRWAY_TRACES:-../shared/traces}
SHOT=${FW_SCREENSHOT:-/tmp/fairway-report-screenshot.png}
W=1400
H=3400
pass=0
fail=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

trace=$TRACES/microsoft-itp/cluster10.csv
if [ ! -f "$trace" ]; then
	trace=$tmp/synthetic.csv
	awk 'BEGIN { s = 7; t = 0; print "job_id,submission_time,duration,num_gpu";
		for (i = 0; i < 400; i++) {
			s = (s * 1103515245 + 12345) % 2147483648; t += s % 1800;
			s = (s * 1103515245 + 12345) % 2147483648; d = 60 + s % 20000;
			s = (s * 1103515245 + 12345) % 2147483648; r = s % 100;
			g = r < 60 ? 1 : r < 85 ? 2 + r % 7 : r < 97 ? 12 : 16;
			printf "job%04d,%d,%d,%d\n", i, t, d, g } }' >"$trace"
fi

report=$tmp/report.html
if "$SIM" run --trace "$trace" --nodes 2x8 --policies fifo,fairway,kai,slurm \
	--report "$report" >"$tmp/out.txt" 2>&1 && [ -s "$report" ]; then
	ok "report-written ($(wc -c <"$report") bytes)"
else
	bad "report-written"; tail -5 "$tmp/out.txt"
fi
nsvg=$(grep -o '<svg' "$report" 2>/dev/null | wc -l)
# occupancy + 6 CDF panels + at least one share row of 4 policies
if [ "$nsvg" -ge 11 ]; then ok "report-has-charts ($nsvg svg)"; else bad "report-has-charts ($nsvg svg)"; fi
if grep -qiE '<script|<link|<img|<iframe|@import|url\(|src=|href="https?:' "$report"; then
	bad "report-self-contained"
else
	ok "report-self-contained"
fi

CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROME" ]; then
	echo "SKIP render checks: chromium is not installed (scripts/deps.sh installs it)"
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
fi
rm -f "$SHOT"
timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --hide-scrollbars \
	--user-data-dir="$tmp/profile" --screenshot="$SHOT" --window-size=$W,$H \
	"file://$(cd "$(dirname "$report")" && pwd)/report.html" >"$tmp/chrome.txt" 2>&1
if [ -s "$SHOT" ]; then ok "screenshot-written ($SHOT)"; else bad "screenshot-written"; tail -5 "$tmp/chrome.txt"; fi

# Decode the PNG (stdlib only) and print one "PASS/FAIL name" line per check.
python3 - "$SHOT" "$W" "$H" <<'PY' >"$tmp/checks.txt" 2>&1
import struct, sys, zlib

def decode(path):
    d = open(path, 'rb').read()
    assert d[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
    pos, idat = 8, []
    while pos < len(d):
        n, = struct.unpack('>I', d[pos:pos + 4])
        typ, body = d[pos + 4:pos + 8], d[pos + 8:pos + 8 + n]
        pos += 12 + n
        if typ == b'IHDR':
            w, h, depth, ctype, _, _, inter = struct.unpack('>IIBBBBB', body)
        elif typ == b'IDAT':
            idat.append(body)
    assert depth == 8 and ctype in (2, 6) and inter == 0, 'unsupported PNG'
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(b''.join(idat)), w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride): line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride):
                line[i] = (line[i] + ((line[i - bpp] if i >= bpp else 0) + prev[i]) // 2) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows

def check(name, cond, detail):
    print(('PASS ' if cond else 'FAIL ') + name + ' (' + detail + ')')

path, W, H = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
w, h, bpp, rows = decode(path)
check('screenshot-size', (w, h) == (W, H), '%dx%d' % (w, h))
palette = {'fifo': (0x42, 0x69, 0xd0), 'fairway': (0xef, 0x8a, 0x17),
           'kai': (0x3c, 0xa9, 0x51), 'slurm': (0xd9, 0x4a, 0x8c)}
win = (0xdc, 0xf5, 0xe3)
near = {k: 0 for k in palette}
colours, ink, win_px, bands = set(), 0, 0, set()
for y in range(0, h):
    r = rows[y]
    for x in range(0, w * bpp, bpp):
        px = (r[x], r[x + 1], r[x + 2])
        if y % 2 == 0:
            colours.add(px)
        if px[0] < 235 or px[1] < 235 or px[2] < 235:
            ink += 1
        if max(px) - min(px) > 60:
            bands.add(y // 100)
            for k, c in palette.items():
                if abs(px[0] - c[0]) + abs(px[1] - c[1]) + abs(px[2] - c[2]) < 60:
                    near[k] += 1
        elif px == win:
            win_px += 1
check('not-blank', ink > 0.02 * w * h, '%.1f%% of pixels inked' % (100.0 * ink / (w * h)))
check('many-colours', len(colours) >= 200, '%d distinct colours' % len(colours))
for k, n in near.items():
    check('policy-colour-' + k, n >= 800, '%d pixels' % n)
check('winners-highlighted', win_px >= 1000, '%d pixels' % win_px)
check('charts-fill-the-page', len(bands) >= 20, 'colour in %d of %d 100-px bands' % (len(bands), h // 100))
PY
cat "$tmp/checks.txt"
p=$(grep -c '^PASS' "$tmp/checks.txt")
f=$(grep -c '^FAIL' "$tmp/checks.txt")
[ "$p" -eq 0 ] && [ "$f" -eq 0 ] && f=1 # the decoder itself failed
pass=$((pass + p))
fail=$((fail + f))
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
