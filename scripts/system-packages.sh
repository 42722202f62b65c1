#!/usr/bin/env bash
# Installs the Debian packages the tests drive for real, only those missing: Chromium (the console and the rendered-page
# observation), poppler (PDF reports are parsed and rendered to PNG). Runs before `npm test`; a machine that already
# has them pays one `command -v` each. Needs root or password-less sudo to install; otherwise it says what to install.
set -euo pipefail

# command -> Debian package
declare -A wanted=(
  [chromium]=chromium
  [pdftoppm]=poppler-utils
  [pdftotext]=poppler-utils
)

missing=()
for cmd in "${!wanted[@]}"; do
  command -v "$cmd" >/dev/null 2>&1 || missing+=("${wanted[$cmd]}")
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
log=$(mktemp)
if ! { "${sudo[@]}" apt-get update -qq && "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
  tail -n 30 "$log" >&2
  exit 1
fi
rm -f "$log"
