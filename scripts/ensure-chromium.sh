#!/usr/bin/env bash
# The web page's end-to-end test drives Debian's Chromium (never a browser build downloaded by a tool),
# and its screenshots need a Japanese font to be readable. On Debian/Ubuntu as root, install what is
# missing; otherwise explain. CHROMIUM overrides the browser's path.
set -euo pipefail

CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"

browser_ok() {
    [ -x "$CHROMIUM" ] && "$CHROMIUM" --headless --no-sandbox --version >/dev/null 2>&1
}

japanese_font_ok() {
    command -v fc-list >/dev/null 2>&1 && [ -n "$(fc-list :lang=ja family 2>/dev/null)" ]
}

missing=()
browser_ok || missing+=(chromium)
japanese_font_ok || missing+=(fonts-ipafont-gothic)
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing Debian packages for the web page test: ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # the font only makes screenshots readable: the checks below decide what is really missing
    apt-get install -y -qq "${missing[@]}" >/dev/null || apt-get install -y -qq chromium >/dev/null || true
fi

if ! browser_ok; then
    cat >&2 <<MSG
error: the web page test needs Chromium at $CHROMIUM (or set CHROMIUM=/path/to/chromium).
  Debian:  sudo apt-get install -y chromium
  Ubuntu:  sudo apt-get install -y chromium-browser   (then CHROMIUM=\$(command -v chromium-browser))
MSG
    exit 1
fi
if ! japanese_font_ok; then
    echo "warning: no Japanese font: the test passes, but its screenshots show boxes for Japanese text" >&2
    echo "  Debian/Ubuntu: sudo apt-get install -y fonts-ipafont-gothic" >&2
fi
exit 0
