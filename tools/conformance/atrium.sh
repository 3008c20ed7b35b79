#!/usr/bin/env bash
# atrium.sh -- `make conformance`: MediaWiki 1.39's own Action API tests (tests/api-testing/action,
# fetched through apt by run.sh) against a real `atrium serve` on a fresh data directory, then
# CONFORMANCE.md with the score against the 137 tests that pass on MediaWiki 1.39 and, for each
# that fails here, the assertion that failed.
#
# Env: ATRIUM (the atrium command, default .venv/bin/atrium), APITEST_WORK (where the tests and
# node packages go, default ${TMPDIR:-/tmp}/mwapitest), CONFORMANCE_OUT (the run's raw output,
# default a fresh temporary directory), CONFORMANCE_MD (default CONFORMANCE.md).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
ATRIUM=${ATRIUM:-$ROOT/.venv/bin/atrium}
PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
OUT=${CONFORMANCE_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/atrium-conformance.XXXXXX")}
MD=${CONFORMANCE_MD:-$ROOT/CONFORMANCE.md}
# The score is only the suite's when the test library runs unchanged.
unset APITEST_SHIM_RUNJOBS APITEST_SHIM_GETHTML

"$HERE/run.sh" fetch-tests >/dev/null
[[ -x ${APITEST_WORK:-${TMPDIR:-/tmp}/mwapitest}/node/node_modules/.bin/mocha ]] || "$HERE/run.sh" install-node >/dev/null

DATA=$(mktemp -d "${TMPDIR:-/tmp}/atrium-conformance-data.XXXXXX")
PORT=$("$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
PASS=$("$PYTHON" -c 'import secrets; print(secrets.token_urlsafe(18))')
# MediaWiki's default audience (anyone reads, edits and registers), which its test suite assumes.
export ATRIUM_DATA_DIR=$DATA ATRIUM_RATE_LIMITS=0 ATRIUM_SERVICES=wiki ATRIUM_WIKI_AUDIENCE=edit
export ATRIUM_WIKI_SECRET_KEY=$("$PYTHON" -c 'import secrets; print(secrets.token_hex(32))')

"$ATRIUM" serve --port "$PORT" >"$OUT/atrium-serve.log" 2>&1 &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; rm -rf "$DATA"' EXIT
for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:$PORT/w/api.php?action=query&format=json" >/dev/null && break
  sleep 0.2
done
"$ATRIUM" wiki create-user Admin --password "$PASS" --groups sysop,bureaucrat,interface-admin >/dev/null

"$HERE/run.sh" run "$OUT" "http://127.0.0.1:$PORT/w/" Admin "$PASS" "$ATRIUM_WIKI_SECRET_KEY" action
"$PYTHON" "$HERE/report.py" "$OUT" "$HERE/mw139-passing.txt" >"$MD"
tail -n +1 "$MD" | sed -n '1,12p'
echo "raw output: $OUT"
