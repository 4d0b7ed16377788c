#!/bin/sh
# test_report_html.sh - `cuplas report --html` renders in a real headless
# browser (scripts/report-screenshot.sh, Debian's chromium). Exit 77
# (skip) where chromium is not installed: CI does not install it.
set -eu
B=${CUPLAS_BUILDDIR:-.}/cuplas
S=${CUPLAS_SRCDIR:-.}/scripts/report-screenshot.sh
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 ||
    command -v google-chrome >/dev/null 2>&1 || { echo "no chromium: skipped"; exit 77; }
d=$(mktemp -d "${CUPLAS_BUILDDIR:-.}/tests/test_report_html.XXXXXX")
trap 'rm -rf "$d"' EXIT
cd "$d"
"$B" gen --size 24x24 --count 2 in.h5 >/dev/null
printf 'inputs: [{files: in.h5}]\noutput: {dir: out, preview: true}\neval: {enabled: true}\nbackend: {device: cpu}\n' >c.yaml
"$B" run c.yaml --log-format text 2>/dev/null
"$B" report out --html "$d/r.html" >/dev/null
sh "$S" "$d/r.html" "$d/shot.png" 1200x900 >/dev/null
# a page that drew: a PNG of the requested size with real content (a blank
# white page of that size compresses to a few KB)
size=$(wc -c <shot.png)
[ "$size" -gt 20000 ] || { echo "screenshot only $size bytes: the page did not draw"; exit 1; }
head -c 8 shot.png | od -An -tx1 | grep -q "89 50 4e 47 0d 0a 1a 0a" || { echo "not a PNG"; exit 1; }
echo "report rendered: $size bytes"
