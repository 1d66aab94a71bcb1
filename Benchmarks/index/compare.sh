#!/usr/bin/env bash
# The local index beside notmuch and mu, in one run, on the same generated mailbox (default
# 20,000 messages): MailSearch indexes it over TLS from a throwaway Dovecot; notmuch and mu index
# a copy of the same Maildir (they cannot read IMAP).
#
#   Benchmarks/index/compare.sh [--messages N] [--rounds R]
#
# Prints, side by side:
#   1. indexing from scratch: `mailsearch sync` (over loopback TLS) against `mu index` and
#      `notmuch new` of the Maildir; the bytes each index takes on disk;
#   2. whole-process searches, R runs each, interleaved: `mailsearch search --offline --json
#      --limit 50` against `notmuch search --format=json --limit=50` and `mu find --maxnum=50`
#      for a sender and for a body word;
#   3. in process (`mailsearch-bench index-search` on the index just made): the newest 50 matches
#      and their rows, p50 and p95 per query, beside every match;
# with the median ratios and their 95% intervals (Benchmarks/cli/interval.py) and whether each
# goal of issue 27 holds (sync <= 1.0x mu; searches <= 1.0x notmuch; bytes <= 1.0x mu's; the
# newest 50 within 20 ms at p95, a goal at 100,000 messages).
# The search semantics differ (IMAP substrings, notmuch and mu words with stemming), so the
# result counts are printed too.
# Needs: dovecot-imapd, notmuch, maildir-utils, python3.
set -euo pipefail
cd "$(dirname "$0")/../.."

MESSAGES=20000
ROUNDS=5
while [[ $# -gt 0 ]]; do
    case $1 in
        --messages) MESSAGES=$2; shift 2 ;;
        --rounds) ROUNDS=$2; shift 2 ;;
        *) echo "usage: $0 [--messages N] [--rounds R]" >&2; exit 64 ;;
    esac
done
for tool in notmuch mu; do
    command -v $tool >/dev/null || { echo "error: $tool is not installed (apt-get install --no-install-recommends notmuch maildir-utils)" >&2; exit 69; }
done

swift build -c release --static-swift-stdlib --product mailsearch >&2
MAILSEARCH=$(swift build -c release --static-swift-stdlib --show-bin-path)/mailsearch
# Built as the tool is (a build with other flags would rebuild everything the next time).
swift build -c release --static-swift-stdlib --product mailsearch-bench >&2
BENCH=$(swift build -c release --static-swift-stdlib --show-bin-path)/mailsearch-bench

WORK=$(mktemp -d /tmp/mailsearch-index-bench.XXXXXX)
DOVECOT_DIR=
cleanup() {
    [[ -n $DOVECOT_DIR ]] && scripts/dovecot.sh stop "$DOVECOT_DIR" >/dev/null 2>&1 || true
    rm -rf "$WORK"
}
trap cleanup EXIT

echo "generating $MESSAGES messages ..." >&2
python3 scripts/generate-maildir.py --out "$WORK/alice" --count "$MESSAGES" --seed 1 --manifest "$WORK/manifest.json" >&2
eval "$(scripts/dovecot.sh start --users alice:secret --maildir-from alice="$WORK/alice")"
scripts/dovecot.sh index "$DOVECOT_DIR" alice >/dev/null
# The peers' copy of INBOX.
mkdir -p "$WORK/peers"
cp -r "$WORK/alice" "$WORK/peers/INBOX"
# The Maildir's files were just written twice (hundreds of MB at 100,000 messages): their
# write-back to disk would otherwise run under the first tool timed (the sync, which writes its
# own files too) and not under the peers timed after it.
sync

NAME=$(python3 - "$WORK/manifest.json" <<'PY'
import collections, json, re, sys
manifest = json.load(open(sys.argv[1]))
messages = manifest["messages"] if isinstance(manifest, dict) else manifest
counts = collections.Counter()
for message in messages:
    match = re.search(r"([^@<\s]+)@", message.get("from") or "")
    if match:
        counts[match.group(1).split(".")[-1]] += 1
print(counts.most_common(1)[0][0])
PY
)
WORD=quarterly
export MAILSEARCH_PASSWORD=secret XDG_STATE_HOME="$WORK/state" XDG_CONFIG_HOME="$WORK/config" \
    XDG_CACHE_HOME="$WORK/cache" NOTMUCH_CONFIG="$WORK/notmuch-config"
ACCOUNT=(--host localhost --port "$DOVECOT_IMAPS_PORT" --user alice --ca-file "$DOVECOT_CA")
cat > "$NOTMUCH_CONFIG" <<CONF
[database]
path=$WORK/peers
[new]
tags=inbox;
[search]
exclude_tags=
[maildir]
synchronize_flags=true
CONF

once() {
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    end=$(date +%s.%N)
    echo "$end - $start" | bc -l
}
# Elapsed seconds and peak KiB of one run.
peak() { /usr/bin/time -f "%e %M" "$@" 2>&1 >/dev/null | tail -1; }

echo "indexing from scratch ..." >&2
SYNC_TIME=$(once "$MAILSEARCH" "${ACCOUNT[@]}" sync)
# Again from scratch, for its peak memory; its time shows what the first read of the fresh
# Maildir cost the first (at 100,000 messages the first has taken twice as long).
read -r SECOND_SYNC_TIME SYNC_KB <<< "$(rm -rf "$WORK/cache"; peak "$MAILSEARCH" "${ACCOUNT[@]}" sync)"
INDEX=$(ls "$WORK"/cache/mailsearch/index-*.sqlite)
"$MAILSEARCH" "${ACCOUNT[@]}" sync >/dev/null
INDEX_BYTES=$(( $(stat -c %s "$INDEX") + $( [[ -f $INDEX-wal ]] && stat -c %s "$INDEX-wal" || echo 0) ))
CATCHUP_TIME=$(once "$MAILSEARCH" "${ACCOUNT[@]}" sync)
IN_PROCESS=$("$BENCH" index-search --index "$INDEX" --rounds 30 "from:$NAME" "body:$WORD" subject:meeting is:unread up xyzzy)
MU_TIME=$(once bash -c "mu init --muhome='$WORK/mu' --maildir='$WORK/peers' && mu index --muhome='$WORK/mu'")
MU_BYTES=$(du -sb "$WORK/mu" | cut -f1)
NOTMUCH_TIME=$(once notmuch new)
NOTMUCH_BYTES=$(du -sb "$WORK/peers/.notmuch" | cut -f1)

echo "checking the answers ..." >&2
# Lines one command prints; a failing command stops the run with what it said.
count() {
    local out
    out=$("$@" 2>"$WORK/count.err") || { echo "error: $* failed: $(cat "$WORK/count.err")" >&2; exit 1; }
    [[ -z $out ]] && echo 0 || wc -l <<< "$out"
}
MS_FROM=$(count "$MAILSEARCH" "${ACCOUNT[@]}" search --offline --json --limit 100000 "from:$NAME")
NM_FROM=$(notmuch count "from:$NAME")
MS_BODY=$(count "$MAILSEARCH" "${ACCOUNT[@]}" search --offline --json --limit 100000 "body:$WORD")
NM_BODY=$(notmuch count "body:$WORD")
SERVER_FROM=$(count "$MAILSEARCH" "${ACCOUNT[@]}" search --server --json --limit 100000 "from:$NAME")
[[ $MS_FROM == "$SERVER_FROM" ]] || { echo "error: offline from: found $MS_FROM, the server $SERVER_FROM" >&2; exit 1; }

MS_FROM_T=() NM_FROM_T=() MU_FROM_T=() MS_BODY_T=() NM_BODY_T=() MU_BODY_T=()
for round in $(seq 0 $((ROUNDS - 1))); do
    if (( round % 2 == 0 )); then
        MS_FROM_T+=("$(once "$MAILSEARCH" "${ACCOUNT[@]}" search --offline --json --limit 50 "from:$NAME")")
        NM_FROM_T+=("$(once notmuch search --format=json --limit=50 "from:$NAME")")
        MU_FROM_T+=("$(once mu find --muhome="$WORK/mu" --maxnum=50 "from:$NAME")")
        MS_BODY_T+=("$(once "$MAILSEARCH" "${ACCOUNT[@]}" search --offline --json --limit 50 "body:$WORD")")
        NM_BODY_T+=("$(once notmuch search --format=json --limit=50 "body:$WORD")")
        MU_BODY_T+=("$(once mu find --muhome="$WORK/mu" --maxnum=50 "body:$WORD")")
    else
        MU_BODY_T+=("$(once mu find --muhome="$WORK/mu" --maxnum=50 "body:$WORD")")
        NM_BODY_T+=("$(once notmuch search --format=json --limit=50 "body:$WORD")")
        MS_BODY_T+=("$(once "$MAILSEARCH" "${ACCOUNT[@]}" search --offline --json --limit 50 "body:$WORD")")
        MU_FROM_T+=("$(once mu find --muhome="$WORK/mu" --maxnum=50 "from:$NAME")")
        NM_FROM_T+=("$(once notmuch search --format=json --limit=50 "from:$NAME")")
        MS_FROM_T+=("$(once "$MAILSEARCH" "${ACCOUNT[@]}" search --offline --json --limit 50 "from:$NAME")")
    fi
done

stats() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {printf "%.3f %.3f", a[1], a[int((NR+1)/2)]}'; }
interval() {
    printf '%s\n' "${!1}" > "$WORK/first.times"
    printf '%s\n' "${!2}" > "$WORK/second.times"
    python3 Benchmarks/cli/interval.py "$WORK/first.times" "$WORK/second.times"
}
ratio() { echo "scale=2; $1 / $2" | bc -l | sed 's/^\./0./'; }
verdict() { [[ $(echo "$1 <= $2" | bc -l) == 1 ]] && echo "met" || echo "NOT met"; }
row() { printf '%-50s %8s s %8s s   %s\n' "$@"; }

echo "the local index beside notmuch $(notmuch --version | cut -d' ' -f2) and mu $(mu --version | head -1 | awk '{print $NF}'),"
echo "$MESSAGES messages, load average $(cut -d' ' -f1 /proc/loadavg) on $(nproc) cores"
echo
printf '%-50s %10s %12s %10s\n' "indexing from scratch" "seconds" "bytes" "peak KiB"
printf '%-50s %10.2f %12s %10s\n' "mailsearch sync (IMAP over loopback TLS)" "$SYNC_TIME" "$INDEX_BYTES" "$SYNC_KB"
printf '%-50s %10.2f\n' "mailsearch sync again from scratch (not the goal's)" "$SECOND_SYNC_TIME"
printf '%-50s %10.2f %12s\n' "mu index (the Maildir)" "$MU_TIME" "$MU_BYTES"
printf '%-50s %10.2f %12s\n' "notmuch new (the Maildir)" "$NOTMUCH_TIME" "$NOTMUCH_BYTES"
printf '%-50s %10.3f\n' "mailsearch sync with nothing changed" "$CATCHUP_TIME"
echo
printf '%-50s %10s %10s\n' "searches, whole process, $ROUNDS runs" "best" "median"
for pair in "MS_FROM_T:mailsearch search --offline from:$NAME ($MS_FROM found)" "NM_FROM_T:notmuch search from:$NAME ($NM_FROM found)" \
    "MU_FROM_T:mu find from:$NAME" "MS_BODY_T:mailsearch search --offline body:$WORD ($MS_BODY found)" \
    "NM_BODY_T:notmuch search body:$WORD ($NM_BODY found)" "MU_BODY_T:mu find body:$WORD"; do
    name=${pair%%:*}
    ref="$name[@]"
    read -r best median <<< "$(stats "${!ref}")"
    row "${pair#*:}" "$best" "$median" ""
done
echo
read -r FROM_RATIO FROM_LOW FROM_HIGH <<< "$(interval 'MS_FROM_T[@]' 'NM_FROM_T[@]')"
read -r BODY_RATIO BODY_LOW BODY_HIGH <<< "$(interval 'MS_BODY_T[@]' 'NM_BODY_T[@]')"
SYNC_RATIO=$(ratio "$SYNC_TIME" "$MU_TIME")
BYTES_RATIO=$(ratio "$INDEX_BYTES" "$MU_BYTES")
echo "goal: sync from scratch at most 1.0x mu index:        $SYNC_RATIO, $(verdict "$SYNC_RATIO" 1.0)"
echo "goal: search --offline from: at most 1.0x notmuch:    $FROM_RATIO (95% interval $FROM_LOW-$FROM_HIGH), $(verdict "$FROM_RATIO" 1.0)"
echo "goal: search --offline body: at most 1.0x notmuch:    $BODY_RATIO (95% interval $BODY_LOW-$BODY_HIGH), $(verdict "$BODY_RATIO" 1.0)"
echo "goal: index bytes at most 1.0x mu's:                  $BYTES_RATIO, $(verdict "$BYTES_RATIO" 1.0)"
echo
echo "$IN_PROCESS"
