#!/usr/bin/env bash
# Renders an HTML page (an `smsfilter evaluate --report` file) to a PNG in headless Chromium, and checks
# that the PNG is not blank. Installs Debian's chromium package with apt-get when no browser is found.
#
#   Scripts/render-report.sh REPORT.html OUT.png [WIDTHxHEIGHT]    (default 1200x1600)
#
# Exit status: 0 rendered and not blank; 1 the browser failed or the PNG is missing or blank; 2 usage;
# 3 no browser and none could be installed.
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 REPORT.html OUT.png [WIDTHxHEIGHT]" >&2
  exit 2
fi
report=$1
out=$2
size=${3:-1200x1600}
[ -f "$report" ] || { echo "render-report: $report: no such file" >&2; exit 2; }

browser=""
for candidate in chromium chromium-browser google-chrome google-chrome-stable; do
  if command -v "$candidate" >/dev/null 2>&1; then browser=$(command -v "$candidate"); break; fi
done
if [ -z "$browser" ]; then
  if command -v apt-get >/dev/null 2>&1; then
    echo "render-report: installing chromium with apt-get" >&2
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
    { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium; } >/dev/null \
      || { echo "render-report: apt-get could not install chromium" >&2; exit 3; }
    browser=$(command -v chromium)
  else
    echo "render-report: no chromium or chrome found, and no apt-get to install one" >&2
    exit 3
  fi
fi

abs_report=$(cd "$(dirname "$report")" && pwd)/$(basename "$report")
abs_out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
rm -f "$abs_out"
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
# A private profile and no first-run chatter; --no-sandbox because containers often run as root.
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
  --run-all-compositor-stages-before-draw --virtual-time-budget=5000 \
  --user-data-dir="$profile" --screenshot="$abs_out" --window-size="${size/x/,}" "file://$abs_report" \
  >/dev/null 2>&1 || { echo "render-report: $browser failed" >&2; exit 1; }

[ -s "$abs_out" ] || { echo "render-report: no PNG was written" >&2; exit 1; }
# Not blank: a blank page compresses to a tiny PNG; a page with text and charts does not.
bytes=$(wc -c < "$abs_out")
if [ "$bytes" -lt 20000 ]; then
  echo "render-report: $out looks blank ($bytes bytes)" >&2
  exit 1
fi
echo "render-report: $out ($bytes bytes, $size)"
