#!/usr/bin/env bash
# DynamoDB Local needs Java 17 or newer. On Debian/Ubuntu as root, install it; otherwise explain.
set -euo pipefail

java_major() {
    java -version 2>&1 | awk -F'"' '/version/ {split($2, v, "."); print (v[1] == "1" ? v[2] : v[1]); exit}'
}

if command -v java >/dev/null 2>&1 && [ "$(java_major)" -ge 17 ] 2>/dev/null; then
    exit 0
fi

if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "Java 17+ not found: installing default-jre-headless" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq default-jre-headless >/dev/null
    [ "$(java_major)" -ge 17 ] && exit 0
fi

cat >&2 <<'MSG'
error: DynamoDB Local needs Java 17 or newer on PATH.
  Debian/Ubuntu: sudo apt-get install -y default-jre-headless
  macOS:         brew install openjdk@17
MSG
exit 1
