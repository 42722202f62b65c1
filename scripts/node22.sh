#!/usr/bin/env bash
# Runs a command on Node.js >= 22.22 (see use-node22.sh): `npm start` and `npm test` go through here, so they work
# on a machine whose own Node is older.
set -euo pipefail
# shellcheck source=use-node22.sh
source "$(dirname "${BASH_SOURCE[0]}")/use-node22.sh"
exec "$@"
