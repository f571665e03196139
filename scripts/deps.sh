#!/bin/sh
# SPDX-License-Identifier: ISC
# Install the Debian packages warrant needs to build and test, if missing.
# Safe to re-run; does nothing when everything is present.
# usage: scripts/deps.sh [deb]
#   deb: also what make deb and make check-deb use (dpkg-buildpackage's
#        debhelper, and lintian), which make check does not need.
set -eu
# clang and libclang-rt-dev (its sanitizer and libFuzzer runtimes, which
# --no-install-recommends leaves out) build the fuzz targets; locales-all
# gives the policy test its tr_TR and az_AZ locales (case folding that
# must not follow the locale); debootstrap makes the Debian 13 root of
# make check-trixie (scripts/trixie.sh). The runner's static libcrypto
# links zlib and zstd on Debian 13. libarchive reads reviewed archives;
# the archive tests make theirs with bzip2, xz, zstd and zip.
need=""
extra=
[ "${1:-}" = deb ] && extra="dpkg-dev debhelper lintian"
for p in build-essential meson ninja-build pkg-config libjansson-dev libssl-dev libfido2-dev \
         libsqlite3-dev sqlite3 libcmocka-dev libncurses-dev libunistring-dev zlib1g-dev libzstd-dev sudo expect util-linux passwd openssl \
         libarchive-dev bzip2 xz-utils zstd zip \
         python3 procps acl tmux strace valgrind clang libclang-rt-dev \
         libmicrohttpd-dev libqrencode-dev curl chromium fonts-dejavu-core \
         openssh-server openssh-client locales-all debootstrap systemd ${extra:-}; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || need="$need $p"
done
# The MCP tests drive `warrant mcp` with the official SDK from npm: any
# node and npm will do, Debian's when there are none.
command -v node >/dev/null 2>&1 || need="$need nodejs"
command -v npm >/dev/null 2>&1 || need="$need npm"
[ -z "$need" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages:$need (run as root: apt-get install$need)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# a mirror that fails a download now and then: each is tried again
apt-get -o Acquire::Retries=3 update -qq
# shellcheck disable=SC2086
apt-get -o Acquire::Retries=3 install -y -qq --no-install-recommends $need
