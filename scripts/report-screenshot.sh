#!/bin/sh
# report-screenshot.sh - render a `cuplas report --html` page in a real
# headless browser (Debian's chromium) and save a PNG screenshot, to check
# that the page is self-contained and draws.
#
#   scripts/report-screenshot.sh REPORT.html OUT.png [WIDTHxHEIGHT]
#
# Exit codes: 0 written, 1 the browser wrote no image, 2 usage, 77 no
# chromium installed (apt-get install chromium), so tests can skip.
# The browser runs with networking off (--no-proxy-server plus an
# unreachable proxy): a page that needs the network would render broken.
set -u
[ $# -ge 2 ] || { echo "usage: $0 REPORT.html OUT.png [WxH]" >&2; exit 2; }
in=$1 out=$2 size=${3:-1280x2000}
[ -r "$in" ] || { echo "$0: cannot read $in" >&2; exit 2; }
browser=
for b in chromium chromium-browser google-chrome; do
    if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
done
[ -n "$browser" ] || { echo "$0: no chromium (apt-get install chromium): skipped" >&2; exit 77; }
case $in in /*) url="file://$in" ;; *) url="file://$(pwd)/$in" ;; esac
profile=$(mktemp -d) || exit 1
trap 'rm -rf "$profile"' EXIT
rm -f "$out"
# a fresh profile each time; the proxy points nowhere, so nothing is fetched
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --user-data-dir="$profile" --proxy-server="127.0.0.1:9" --proxy-bypass-list="<-loopback>" \
    --window-size="$(echo "$size" | tr x ,)" --screenshot="$out" "$url" >/dev/null 2>&1
[ -s "$out" ] || { echo "$0: $browser wrote no screenshot of $in" >&2; exit 1; }
echo "wrote $out"
