#!/usr/bin/env bash
# Installs the Debian packages the tests drive for real, only those missing: Chromium (the console and the rendered-page
# observation), poppler (PDF reports are parsed and rendered to PNG), PostgreSQL and Redis (fleet mode: the tests start
# their own servers on loopback in temp dirs; the packages' own services are never used), OpenSSL (a throwaway RFC 3161
# time-stamp authority, `openssl ts -reply`, for the ledger's anchoring tests). Runs before `npm test`; a
# machine that already has them pays one lookup each. Needs root or password-less sudo to install; otherwise it says what to install.
set -euo pipefail

# command -> Debian package
declare -A wanted=(
  [chromium]=chromium
  [pdftoppm]=poppler-utils
  [pdftotext]=poppler-utils
  [initdb]=postgresql
  [redis-server]=redis-server
  [openssl]=openssl
)

# Debian keeps PostgreSQL's server programs out of PATH, under /usr/lib/postgresql/<major>/bin.
have() {
  command -v "$1" >/dev/null 2>&1 && return 0
  [ "$1" = initdb ] && compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null
}

missing=()
for cmd in "${!wanted[@]}"; do
  have "$cmd" || missing+=("${wanted[$cmd]}")
done
[ "${#missing[@]}" -eq 0 ] && exit 0
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)

if [ "$(id -u)" -eq 0 ]; then sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo=(sudo -n)
else
  echo "system-packages: missing ${missing[*]}; install them with: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi

echo "system-packages: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# The server packages would start their own services on the default ports at install; the tests want none of them.
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee /usr/sbin/policy-rc.d >/dev/null
  "${sudo[@]}" chmod 755 /usr/sbin/policy-rc.d
  trap '"${sudo[@]}" rm -f /usr/sbin/policy-rc.d' EXIT
fi
log=$(mktemp)
if ! { "${sudo[@]}" apt-get update -qq && "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
  tail -n 30 "$log" >&2
  exit 1
fi
rm -f "$log"
