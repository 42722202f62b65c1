#!/usr/bin/env bash
# Runs the README's commands on a fresh clone, as a new user would: `npm ci`, then every `npx aduana …` line of the
# README's shell blocks (the first one before anything is built), the offline ledger check, and the quick-start line
# with the governance API's curl examples against it. CI runs it after the test line; run it yourself with
# `bash scripts/readme-commands.sh` (it clones HEAD, so commit first). Only loopback is used: the README's scanner
# example (a public site) is the one command it does not run, and it says so.
set -euo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d)
groups=() # process groups of the services started, each stopped whole however the script ends
cleanup() {
  for g in "${groups[@]}"; do kill -TERM -- "-$g" 2>/dev/null || true; done
  for g in "${groups[@]}"; do
    for _ in $(seq 1 100); do pgrep -g "$g" >/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$g" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "readme-commands: FAIL: $*" >&2; exit 1; }

git clone -q "$src" "$work/repo"
cd "$work/repo"
# Node 22 and the npm cache as the user's machine would have them: use-node22.sh fetches Node where it is missing.
source scripts/use-node22.sh >/dev/null
echo "readme-commands: npm ci in a fresh clone" >&2
npm ci --no-audit --no-fund --loglevel=error >/dev/null

free_port() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }
export DATA_DIR="$work/data" LOG_LEVEL=warn
GATEWAY_PORT=$(free_port); AUTH_PORT=$(free_port); SCANNER_PORT=$(free_port)
export GATEWAY_PORT AUTH_PORT SCANNER_PORT

# Every `npx aduana` line of the README's sh blocks: the command-line section's first (it creates the tenant the
# others name), then the rest in order.
readme_commands() { # 1: lines of the command-line section; 0: the others
  awk -v want="$1" '/^## /{cli=($0=="## The command line")} /^```sh$/{on=1;next} /^```$/{on=0} on && /^npx aduana/ && cli==want' README.md |
    sed 's/[[:space:]]*#.*$//'
}
mapfile -t commands < <(readme_commands 1; readme_commands 0)
[ "${#commands[@]}" -ge 10 ] || fail "expected the README's command lines, found ${#commands[@]}"

wait_for() { # url
  for _ in $(seq 1 600); do curl -fsS -o /dev/null "$1" 2>/dev/null && return 0; sleep 0.1; done
  fail "nothing answered at $1"
}
run_service() { # the command line of a long-running service, then the URLs that must answer
  local cmd=$1; shift
  # Its own process group, stopped as a terminal's Ctrl-C or a container runtime would: every process of it signalled.
  setsid bash -c "$cmd" >"$work/service.log" 2>&1 &
  local pid=$!
  groups+=("$pid")
  for url in "$@"; do wait_for "$url"; done
  kill -TERM -- "-$pid"
  local code=0
  wait "$pid" || code=$?
  # npx itself answers the signal at once (143); the services behind it finish their requests and flush first.
  [ "$code" -eq 0 ] || [ "$code" -eq 143 ] || fail "'$cmd' exited $code on SIGTERM: $(tail -5 "$work/service.log")"
  for _ in $(seq 1 300); do pgrep -g "$pid" >/dev/null || break; sleep 0.1; done
  if pgrep -g "$pid" >/dev/null; then fail "'$cmd' still running 30 s after SIGTERM"; fi
  grep -q 'SIGTERM, stopping' "$work/service.log" || fail "'$cmd' did not stop on SIGTERM: $(tail -5 "$work/service.log")"
  if grep -q 'error while stopping\|a service exited' "$work/service.log"; then fail "'$cmd' did not stop cleanly: $(tail -5 "$work/service.log")"; fi
}

# The first use builds the services (nothing is built after npm ci), then prints the usage.
npx aduana --help >/dev/null || fail "npx aduana --help"
echo "readme-commands: ok: npx aduana --help (first use, builds)" >&2

GW=http://127.0.0.1:$GATEWAY_PORT
token_id=""
ran=0
for line in "${commands[@]}"; do
  cmd=${line//\[--tenant acme\]/--tenant acme}
  case "$cmd" in
    "npx aduana start") run_service "$cmd" "$GW/health" "http://127.0.0.1:$AUTH_PORT/health" "http://127.0.0.1:$SCANNER_PORT/healthz" ;;
    "npx aduana gateway") run_service "$cmd" "$GW/health" "http://127.0.0.1:$AUTH_PORT/health" ;;
    "npx aduana scanner") run_service "$cmd" "http://127.0.0.1:$SCANNER_PORT/healthz" ;;
    *"tok_…"*)
      [ -n "$token_id" ] || fail "no token id to revoke"
      bash -c "${cmd//tok_…/$token_id}" >/dev/null || fail "$cmd" ;;
    *"token list"*)
      out=$(bash -c "$cmd") || fail "$cmd"
      token_id=$(printf '%s\n' "$out" | awk -F'\t' 'NR==2{print $1}') ;; # the row under the header
    *) bash -c "$cmd" >/dev/null || fail "$cmd" ;;
  esac
  echo "readme-commands: ok: $line" >&2
  ran=$((ran + 1))
done
[ "$ran" -eq "${#commands[@]}" ] || fail "ran $ran of ${#commands[@]} commands"

node scripts/verify-ledger-export.mjs acme.jsonl >/dev/null || fail "node scripts/verify-ledger-export.mjs acme.jsonl"
echo "readme-commands: ok: node scripts/verify-ledger-export.mjs acme.jsonl" >&2

# The quick-start line (install done above), and the governance API's curl examples against it.
setsid npm start >"$work/start.log" 2>&1 &
groups+=("$!")
wait_for "$GW/health"
TOKEN=$(cat "$DATA_DIR/bootstrap-admin.token")
curl -fsS "$GW/v1/policies/apply-pack" -H "authorization: Bearer $TOKEN" -d '{"pack":"RUNTIME_PAID_POLICIES"}' >/dev/null || fail "apply-pack curl"
verdict=$(curl -fsS "$GW/v1/decide" -H "authorization: Bearer $TOKEN" \
  -d '{"agent_id":"bot-1","action":{"type":"sql","payload":{"query":"DROP TABLE users"}}}') || fail "decide curl"
case "$verdict" in *'"envelope"'*) ;; *) fail "decide answered $verdict" ;; esac
echo "readme-commands: ok: npm start, apply-pack and decide" >&2
echo "readme-commands: not run: the scanner's curl example (it assesses a public site; this machine reaches no internet)" >&2
echo "readme-commands: all $((ran + 3)) README commands ran" >&2
