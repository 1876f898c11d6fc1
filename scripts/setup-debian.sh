#!/bin/sh
# Usage: scripts/setup-debian.sh [EXTRA_PACKAGE ...]
#
# Installs what attn-viz builds and runs with, from Debian 12's packages, plus any EXTRA_PACKAGE
# (CI adds the test tools: python3-torch, chromium, ...). Packages already installed are not
# asked for again, so on a machine that has them all nothing runs as root at all. Otherwise
# apt-get runs directly when this is root (containers and CI images, where sudo is usually
# absent), and through sudo when it is a user who has sudo; a user without either is told what
# to install.
set -eu

packages="cmake g++ libcli11-dev nlohmann-json3-dev libstb-dev libfmt-dev doctest-dev \
zlib1g-dev libpcre2-dev libutf8proc-dev pkg-config python3-numpy python3-pil $*"

missing=""
for p in $packages; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  case "$status" in
    *" installed") ;;
    *) missing="$missing $p" ;;
  esac
done
if [ -z "$missing" ]; then
  echo "setup-debian: every package is installed"
  exit 0
fi

if [ "$(id -u)" = 0 ]; then
  as_root=""
elif command -v sudo >/dev/null 2>&1; then
  as_root="sudo"
else
  echo "setup-debian: these packages are missing:$missing" >&2
  echo "setup-debian: run this script as root, or install them with your package manager" >&2
  exit 1
fi

echo "setup-debian: installing$missing"
$as_root apt-get update
# shellcheck disable=SC2086  # one word per package
$as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y $missing
