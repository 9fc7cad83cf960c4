#!/usr/bin/env bash
# The production start, outside Docker: the compiled output (`npm run build`) run by plain `node`,
# exactly as the Dockerfile's CMD runs it. Starts it on a fresh embedded database, waits for
# /readyz, checks GraphQL with the printed admin token, the widget script, GraphiQL's and the console
# (prebuilt into dist/console by the build), then stops it with
# SIGTERM and expects a clean exit. Run by .ci/run after `npm run build`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

[[ -f dist/src/main.js ]] || { echo "dist/src/main.js is missing: run npm run build first" >&2; exit 1; }
data="$(mktemp -d)"
log="$data/service.log"
env -u DATABASE_URL -u ADMIN_TOKEN DATA_DIR="$data/db" PORT=0 LOG_LEVEL=warn node --max-old-space-size=384 dist/src/main.js >"$log" 2>&1 &
pid=$!
cleanup() { kill "$pid" 2>/dev/null || true; rm -rf "$data"; }
trap cleanup EXIT

url=""
for _ in $(seq 1 120); do
  url="$(grep -Eo 'listening on http://[^ ]+' "$log" | head -1 | sed 's/^listening on //' || true)"
  [[ -n "$url" ]] && break
  kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; echo "the service exited before listening" >&2; exit 1; }
  sleep 1
done
[[ -n "$url" ]] || { cat "$log" >&2; echo "the service did not listen within 120 s" >&2; exit 1; }

token="$(grep -Eo 'Admin token \(shown once, store it now\): [^ ]+' "$log" | awk '{print $NF}')"
# Each answer is read whole before it is checked: a reader that stops early (head, grep -q) would
# make curl fail writing the rest under pipefail.
expect() { # name, text, wanted substring
  [[ "$2" == *"$3"* ]] || { cat "$log" >&2; echo "$1: answer without '$3': ${2:0:300}" >&2; exit 1; }
}
expect readyz "$(curl -fsS "$url/readyz")" '"ready"'
expect graphql "$(curl -fsS "$url/graphql" -H 'content-type: application/json' -H "authorization: Bearer $token" \
  -d '{"query":"mutation { createAgent(input: {name: \"Smoke\"}) { id } }"}')" '"agt_'
widget="$(curl -fsS "$url/widget.js")"
expect widget.js "${widget:0:200}" 'use strict'
expect graphiql "$(curl -fsS "$url/graphql" -H 'accept: text/html')" '/graphql/assets/graphiql.js'
graphiql_bytes="$(curl -fsS "$url/graphql/assets/graphiql.js" | wc -c)"
(( graphiql_bytes > 100000 )) || { cat "$log" >&2; echo "graphiql.js: only $graphiql_bytes bytes" >&2; exit 1; }
console_page="$(curl -fsS "$url/console")"
expect console "$console_page" '/console/assets/console-'
console_js="$(grep -Eo '/console/assets/console-[A-Za-z0-9]+\.js' <<<"$console_page" | head -1)"
expect console.js "$(curl -fsS -o /dev/null -w '%{http_code} %{content_type}' "$url$console_js")" '200 text/javascript'
rss_kb="$(ps -o rss= -p "$pid" | tr -d ' ')"

kill -TERM "$pid"
code=0
wait "$pid" || code=$?
[[ $code -eq 0 ]] || { cat "$log" >&2; echo "the service exited with $code on SIGTERM" >&2; exit 1; }
echo "production start OK: node --max-old-space-size=384 dist/src/main.js served $url (RSS $((rss_kb / 1024)) MB), stopped cleanly"
