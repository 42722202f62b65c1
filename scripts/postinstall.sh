#!/usr/bin/env bash
# After `npm ci`: when npm itself ran on a Node older than 22.22, re2 (the one ABI-specific addon: lmdb loads an N-API
# build and uWS picks its binary at run time) was built for that Node. Rebuild it for the Node 22 we run on.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/use-node22.sh
if ! node -e "require('re2')" 2>/dev/null; then
  echo "postinstall: rebuilding re2 for Node $(node -v)" >&2
  npm rebuild re2 >&2
  node -e "require('re2')"
fi
