#!/usr/bin/env bash
# Runs Dovecot's compliance suite (imaptest) against the mock server.
#
#   scripts/imaptest-mock.sh IMAPTEST_SOURCE_DIR [PROFILE]
#
# IMAPTEST_SOURCE_DIR is a built imaptest checkout (src/imaptest and src/tests). Debian's
# Dovecot 2.3.19 headers (`apt-get install dovecot-dev`) build imaptest 924f619 after one
# change: `imap_parser_create(..., (size_t)-1)` takes a fourth argument, NULL. See
# scripts/README.md. Prints imaptest's summary; exits non-zero when a test group fails.
set -euo pipefail
source_dir=${1:?usage: imaptest-mock.sh IMAPTEST_SOURCE_DIR [PROFILE]}
profile=${2:-full}
root=$(cd "$(dirname "$0")/.." && pwd)
swift build --package-path "$root" --product mock-imap-server >/dev/null
log=$(mktemp)
"$root/.build/debug/mock-imap-server" --listen 127.0.0.1:0 --user alice:secret --profile "$profile" \
    --allow-plaintext-auth --max-connections 500 >"$log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 100); do grep -q READY "$log" && break; sleep 0.1; done
port=$(sed -n 's/^READY imap=127.0.0.1:\([0-9]*\).*/\1/p' "$log")
[[ -n $port ]] || { echo "imaptest-mock.sh: the mock server did not start" >&2; cat "$log" >&2; exit 1; }
out=$(LD_LIBRARY_PATH=/usr/lib/dovecot "$source_dir/src/imaptest" host=127.0.0.1 port="$port" \
    user=alice pass=secret test="$source_dir/src/tests" 2>&1) || true
echo "$out"
grep -q " 0 failed," <<<"$out"
