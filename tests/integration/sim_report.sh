#!/usr/bin/env bash
# landlord-sim's outputs from a real run against the landlord daemon on loopback (relay mode, no
# root, no namespaces): the JSON report, the timeline CSV and the HTML report must tell the same
# story, and the HTML must render in headless Chromium to a non-blank page whose DOM carries the
# run's numbers and every chart. The perfdhcp-style identity and option flags must reach the
# wire (--pcap, read back with tcpdump).
# Leases of 16 s (T1 8 s, T2 14 s); renewals blocked from 18 s for 10 s, so clients rebind.
# Usage: sim_report.sh path/to/landlord-sim path/to/landlord [OUT_DIR]
#   OUT_DIR (optional) keeps report.html and its screenshot (docs/simulator.md's picture).
set -euo pipefail
source "$(dirname "$0")/veth_pair.sh"

SIM=${1:?usage: sim_report.sh landlord-sim landlord [out-dir]}
LANDLORD=${2:?usage: sim_report.sh landlord-sim landlord [out-dir]}
OUT_DIR=${3:-}
command -v jq >/dev/null || { echo "SKIP: no jq"; exit 77; }
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[[ -n $CHROMIUM ]] || { echo "SKIP: no chromium"; exit 77; }
PYTHON=/usr/bin/python3
"$PYTHON" -c 'import PIL' 2>/dev/null || { echo "SKIP: no python3-pil"; exit 77; }

veth_pair_prepare sim_report lsr
fail() { echo "FAIL: $*"; KEEP_WORK=1; exit 1; }
check() { jq -e "$1" "$WORK/report.json" >/dev/null || fail "$2"; }

landlord_on_loopback "$LANDLORD" 198.18.1.0-198.18.1.199 'lease:
  time: 16s
  renew: 50%
  rebind: 87.5%
  offer-hold: 5s'

printf '# the clients of this run\n02:aa:00:00:00:01\n\n02:aa:00:00:00:02  # second\n' \
  >"$WORK/macs.txt"
for i in $(seq 3 60); do printf '02:aa:00:00:00:%02x\n' "$i"; done >>"$WORK/macs.txt"

status=0
timeout 90 "$SIM" --server "127.0.0.1:$SERVER_PORT" --bind "127.0.0.1:$RELAY_PORT" \
  --clients 60 --rate 20 --duration 40s --seed 5 --retransmit-base 1s --renew-min 1s \
  --block-unicast 18s+10s --macs "$WORK/macs.txt" --option 60:text:PXEClient \
  --option 93:u16:7 --option 77:hex:6c6162 --prl 1,3,6,51,54,58,59 --request-lease-time 16s \
  --report "$WORK/report.json" --timeline "$WORK/timeline.csv" --html "$WORK/report.html" \
  --pcap "$WORK/traffic.pcap" >"$WORK/stdout" 2>&1 || status=$?
landlord_stop_and_check
cat "$WORK/stdout"
[[ $status -eq 0 ]] || fail "landlord-sim exited $status"
grep -qF "HTML report: $WORK/report.html" "$WORK/stdout" || fail "the summary does not say where the HTML is"

# The JSON report.
check '.schema_version == 2' "no schema_version 2"
check '.violation_count == 0' "violations: $(jq -c .violations "$WORK/report.json")"
check '.leases_acquired >= 60' "not every client got a lease"
check '.renewals.count > 60 and .rebinds.count > 10' "too few renewals or rebinds"
check '.renewals.lease_fraction.p50 >= 0.45 and .renewals.lease_fraction.p50 <= 0.55' "renewals not at T1"
check '.rebinds.lease_fraction.p50 >= 0.83 and .rebinds.lease_fraction.p50 <= 0.92' "rebinds not at T2"
check '.latency_ms.request_ack | (.p50 <= .p90 and .p90 <= .p99 and .p99 <= .p99_9 and .p99_9 <= .max and .count > 0)' \
  "request_ack percentiles out of order"

# The MAC list and the extra options on the wire: their bytes in the captured requests (relay
# mode uses ports tcpdump does not decode as DHCP, so the pcap's bytes are searched).
"$PYTHON" - "$WORK/traffic.pcap" <<'PY' || fail "the --macs, --option, --prl or --request-lease-time bytes are not on the wire"
import sys
data = open(sys.argv[1], "rb").read()
wanted = {
    "60th MAC of --macs as chaddr": bytes.fromhex("02aa0000003c"),
    "option 60 PXEClient": bytes([60, 9]) + b"PXEClient",
    "option 93 u16 7": bytes([93, 2, 0, 7]),
    "option 77 hex 6c6162": bytes([77, 3]) + b"lab",
    "option 55 = 1,3,6,51,54,58,59": bytes([55, 7, 1, 3, 6, 51, 54, 58, 59]),
    "option 51 = 16 s": bytes([51, 4, 0, 0, 0, 16]),
}
missing = [name for name, pattern in wanted.items() if pattern not in data]
print("missing on the wire:", missing if missing else "nothing")
sys.exit(1 if missing else 0)
PY

# The timeline: a header and one line per second, adding up to the report's counts.
header=$(head -1 "$WORK/timeline.csv")
[[ $header == time_s,clients_init,* ]] || fail "timeline header: $header"
lines=$(($(wc -l <"$WORK/timeline.csv") - 1))
((lines >= 39 && lines <= 42)) || fail "timeline has $lines lines for a 40 s run at 1 s"
# renewals_per_s times each period's length, summed.
renewals_csv=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "renewals_per_s") c = i } next }
  { prev = t; t = $1; sum += $c * (t - prev) } END { printf "%.0f", sum }' "$WORK/timeline.csv")
renewals_json=$(jq .renewals.count "$WORK/report.json")
[[ $renewals_csv -eq $renewals_json ]] || fail "timeline renewals $renewals_csv != report $renewals_json"
blocked=$(awk -F, 'NR > 1 && $NF == 1 { n++ } END { print n + 0 }' "$WORK/timeline.csv")
((blocked >= 10 && blocked <= 12)) || fail "the unicast block covers $blocked periods, want 10-12"

# The HTML: self-contained, rendered by Chromium, its DOM carrying the run's numbers.
grep -qiE '<script|<link|src="http|href="http|@import|url\(' "$WORK/report.html" &&
  fail "the HTML refers to something outside itself"
browser=("$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage
  --no-first-run --user-data-dir="$WORK/chromium" --window-size=1000,2600)
timeout 60 "${browser[@]}" --dump-dom "file://$WORK/report.html" >"$WORK/dom.html" 2>/dev/null ||
  fail "chromium could not load the report"
timeout 60 "${browser[@]}" --screenshot="$WORK/report.png" "file://$WORK/report.html" \
  >/dev/null 2>&1 || fail "chromium could not take a screenshot"
for chart in chart-states chart-rates chart-lease-fraction chart-latency chart-latency-cdf chart-pool; do
  grep -q "<svg id=\"$chart\"" "$WORK/dom.html" || fail "no $chart in the DOM"
done
dom_value() { sed -n "s/.*data-key=\"$1\">\([^<]*\)<.*/\1/p" "$WORK/dom.html" | head -1; }
for key in renewals.count rebinds.count leases_acquired violation_count packets.sent; do
  [[ "$(dom_value "$key")" == "$(jq ".$key" "$WORK/report.json")" ]] ||
    fail "DOM $key '$(dom_value "$key")' != report $(jq ".$key" "$WORK/report.json")"
done
[[ "$(dom_value latency_ms.request_ack.p99)" == "$(jq -r '.latency_ms.request_ack.p99 | . * 1000 | round / 1000 | tostring' "$WORK/report.json" | awk '{printf "%.3f", $1}')" ]] ||
  fail "DOM request_ack p99 $(dom_value latency_ms.request_ack.p99) differs from the report"
grep -qE '<g class="marker" data-x="0\.50[0-9]*">.*T1 0\.500' "$WORK/dom.html" || fail "no T1 marker at 0.5"
grep -qE '<g class="marker" data-x="0\.87[0-9]*">.*T2 0\.87' "$WORK/dom.html" || fail "no T2 marker at 0.875"
grep -q '<g class="band" data-from="18.000" data-to="28.000">' "$WORK/dom.html" ||
  fail "the --block-unicast window is not shaded"
grep -q 'data-series="RENEWING" fill="#4e79a7" points="' "$WORK/dom.html" || fail "no RENEWING area"

# The screenshot: not blank, and the charts' colours are on it.
"$PYTHON" - "$WORK/report.png" <<'PY' || fail "the screenshot is blank or lacks the charts' colours"
import sys
from PIL import Image
image = Image.open(sys.argv[1]).convert("RGB")
pixels = list(image.getdata())
not_white = sum(1 for p in pixels if p != (255, 255, 255)) / len(pixels)
colours = {p for p in pixels}
wanted = {(0x59, 0xa1, 0x4f), (0x4e, 0x79, 0xa7)}  # BOUND, RENEWING
print(f"screenshot {image.size}: {not_white:.1%} not white, {len(colours)} colours")
sys.exit(0 if not_white > 0.05 and len(colours) > 50 and wanted <= colours else 1)
PY
if [[ -n $OUT_DIR ]]; then cp "$WORK/report.html" "$WORK/report.png" "$OUT_DIR/"; fi
echo "PASS: the JSON, CSV and HTML reports agree, and the HTML renders with the run's numbers"
