#!/usr/bin/env bash
# scripts/deps.sh — install the Debian 12 packages fairway needs, only if
# something is missing.  Safe to run again; needs root (or sudo) only when
# it has something to install.
set -euo pipefail

pkgs=(build-essential meson ninja-build pkg-config libyaml-dev libjansson-dev libmicrohttpd-dev libsqlite3-dev libcurl4-openssl-dev curl munge slurmctld slurmd slurm-client libslurm-dev clang chromium python3-numpy valgrind)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "fairway: installing missing packages: ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
