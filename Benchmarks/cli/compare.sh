#!/usr/bin/env bash
# Whole-process speed of the mailsearch CLI beside its peers, in one run, against a throwaway
# Dovecot holding N generated messages (default 20,000):
#
#   1. one page of a sender's mail: `mailsearch search --json --limit 50 from:<name>` beside
#      imapfilter (Debian's scripted search-and-flag tool: a server-side FROM search, then the 50
#      newest subjects) and the same with Python's imaplib. The search runs as a user's does,
#      with what its index keeps of the messages lists showed (filled by the check before the
#      rounds, so the page's FETCH asks for flags only; no mailbox is synced), and with --no-cache
#      (the whole summaries fetched, as on a first run);
#   2. `mailsearch list --limit N --json --no-cache` beside a raw read of the same UID FETCH
#      (Python, TLS, bytes read to the tagged OK, nothing parsed), and the list with its cache.
#
#   Benchmarks/cli/compare.sh [--messages N] [--rounds R] [--latency MS] [--phases]
#
# With --latency, every tool reaches Dovecot through Benchmarks/latency/latency-proxy.py, which
# holds each client-to-server transfer MS milliseconds: what a command costs on a network, where
# round trips count (the goals below are set on loopback).
#
# Prints best and median of R rounds (default 5) of each, the machine's load, and whether each
# goal holds (search median <= imapfilter's, with the cache and without; list median <= 1.3x the
# raw read's), each ratio with its 95% interval (Benchmarks/cli/interval.py: the rounds resampled
# in their interleaved pairs). A verdict whose interval reaches across the goal says "within the
# noise": more rounds narrow it.
#
# With --phases, the search and imapfilter then run R more rounds each with a preloaded library
# (phase-timestamps.c, built with cc) that timestamps start-up, connect(), each socket read and
# write and the exit: the median of each phase, side by side (the server's search is the
# longest wait; the rest is the tools' own).
#
# Everything talks to Dovecot over loopback TLS (IMAPS) with its self-signed certificate trusted.
# Needs: dovecot-imapd, imapfilter, python3 (apt-get install dovecot-imapd imapfilter python3).
set -euo pipefail
cd "$(dirname "$0")/../.."

MESSAGES=20000
ROUNDS=5
LATENCY=0
PHASES=0
while [[ $# -gt 0 ]]; do
    case $1 in
        --messages) MESSAGES=$2; shift 2 ;;
        --rounds) ROUNDS=$2; shift 2 ;;
        --latency) LATENCY=$2; shift 2 ;;
        --phases) PHASES=1; shift ;;
        *) echo "usage: $0 [--messages N] [--rounds R] [--latency MS] [--phases]" >&2; exit 64 ;;
    esac
done
command -v imapfilter >/dev/null || { echo "error: imapfilter is not installed (apt-get install imapfilter)" >&2; exit 69; }

# Built as the README installs it: the Swift runtime and FoundationEssentials linked in, which
# saves the dynamic loader 6-9 ms of symbol binding at every start.
swift build -c release --static-swift-stdlib --product mailsearch >&2
MAILSEARCH=$(swift build -c release --static-swift-stdlib --show-bin-path)/mailsearch

WORK=$(mktemp -d /tmp/mailsearch-cli-bench.XXXXXX)
DOVECOT_DIR=
cleanup() {
    # Closing the proxy's standard input ends it.
    [[ -n ${PROXY[1]:-} ]] && eval "exec ${PROXY[1]}>&-" 2>/dev/null || true
    [[ -n $DOVECOT_DIR ]] && scripts/dovecot.sh stop "$DOVECOT_DIR" >/dev/null 2>&1 || true
    rm -rf "$WORK"
}
trap cleanup EXIT

echo "generating $MESSAGES messages ..." >&2
python3 scripts/generate-maildir.py --out "$WORK/alice" --count "$MESSAGES" --seed 1 --manifest "$WORK/manifest.json" >&2
eval "$(scripts/dovecot.sh start --users alice:secret --maildir-from alice="$WORK/alice")"
scripts/dovecot.sh index "$DOVECOT_DIR" alice >/dev/null

# The sender with the most messages (its first name, as a person types it).
NAME=$(python3 - "$WORK/manifest.json" <<'PY'
import collections, json, re, sys
manifest = json.load(open(sys.argv[1]))
messages = manifest["messages"] if isinstance(manifest, dict) else manifest
counts = collections.Counter()
for message in messages:
    sender = message.get("from") or ""
    match = re.search(r"<([^@>]+)@", sender) or re.search(r"([^@\s]+)@", sender)
    if match:
        counts[match.group(1)] += 1
print(counts.most_common(1)[0][0])
PY
)
PORT=$DOVECOT_IMAPS_PORT
LINK="loopback TLS"
if [[ $LATENCY != 0 ]]; then
    # The proxy prints its port, and ends when its standard input (this script's end of the
    # coprocess) closes.
    coproc PROXY { exec python3 Benchmarks/latency/latency-proxy.py "$LATENCY" "$DOVECOT_IMAPS_PORT"; }
    read -r PORT <&"${PROXY[0]}"
    LINK="TLS through a proxy that holds each client-to-server transfer $LATENCY ms"
fi
echo "sender: $NAME (Dovecot on imaps $DOVECOT_IMAPS_PORT, the tools on $PORT)" >&2

export MAILSEARCH_PASSWORD=secret XDG_STATE_HOME="$WORK/state" XDG_CONFIG_HOME="$WORK/config" \
    XDG_CACHE_HOME="$WORK/cache"
ACCOUNT=(--host localhost --port "$PORT" --user alice --ca-file "$DOVECOT_CA")

cat > "$WORK/imapfilter.lua" <<LUA
options.timeout = 60
options.info = false
account = IMAP {
    server = 'localhost', port = $PORT, username = 'alice', password = 'secret', ssl = 'auto'
}
local found = account.INBOX:contain_from('$NAME')
local uids = {}
for _, message in ipairs(found) do table.insert(uids, message) end
table.sort(uids, function(a, b) return a[2] > b[2] end)
local page = {}
for index = 1, math.min(50, #uids) do page[index] = uids[index] end
for _, message in ipairs(page) do
    local mailbox, uid = table.unpack(message)
    print(uid, mailbox[uid]:fetch_field('subject'))
end
LUA

cat > "$WORK/imaplib_search.py" <<PY
import imaplib, ssl
context = ssl.create_default_context(cafile="$DOVECOT_CA")
imap = imaplib.IMAP4_SSL("localhost", $PORT, ssl_context=context)
imap.login("alice", "secret")
imap.select("INBOX")
status, data = imap.uid("SEARCH", None, "FROM", '"$NAME"')
uids = sorted((int(u) for u in data[0].split()), reverse=True)[:50]
if uids:
    status, data = imap.uid("FETCH", ",".join(map(str, uids)), "(BODY.PEEK[HEADER.FIELDS (SUBJECT)])")
    for item in data:
        if isinstance(item, tuple):
            print(item[1].decode(errors="replace").strip())
imap.logout()
PY

# The exact UID FETCH items the tool sends for a listing, from its own trace.
ITEMS=$("$MAILSEARCH" "${ACCOUNT[@]}" --no-cache --debug list --limit 1 --json 2>&1 >/dev/null \
    | sed -n 's/.*C: [A-Z0-9]* UID FETCH [0-9:,]* \((.*)\)\\r\\n$/\1/p' | head -1)
cat > "$WORK/raw_read.py" <<PY
import socket, ssl
context = ssl.create_default_context(cafile="$DOVECOT_CA")
connection = context.wrap_socket(socket.create_connection(("localhost", $PORT)), server_hostname="localhost")
def until(marker):
    data = b""
    while not data.endswith(marker):
        chunk = connection.recv(1 << 20)
        if not chunk:
            raise SystemExit("connection closed")
        data += chunk
        if marker in data[-(len(marker) + 64):] and data.rstrip(b"\r\n").split(b"\r\n")[-1].startswith(marker.split(b" ")[0]):
            break
    return data
connection.recv(4096)
connection.sendall(b"a LOGIN alice secret\r\n"); until(b"\r\n")
connection.sendall(b"b SELECT INBOX\r\n")
data = b""
while b"\r\nb OK" not in data and not data.startswith(b"b OK"):
    data += connection.recv(1 << 16)
connection.sendall(b"c UID FETCH 1:* $ITEMS\r\n")
total = 0
tail = b""
while True:
    chunk = connection.recv(1 << 20)
    if not chunk:
        break
    total += len(chunk)
    tail = (tail + chunk)[-4096:]
    if b"\r\nc OK" in tail or b"\r\nc NO" in tail or b"\r\nc BAD" in tail:
        break
print(total)
connection.sendall(b"d LOGOUT\r\n")
PY

echo "checking the outputs agree ..." >&2
"$MAILSEARCH" "${ACCOUNT[@]}" search --json --limit 50 "from:$NAME" > "$WORK/mailsearch.out"
# The cache changes what is fetched, never what is printed.
"$MAILSEARCH" "${ACCOUNT[@]}" search --json --limit 50 "from:$NAME" > "$WORK/mailsearch-cached.out"
"$MAILSEARCH" "${ACCOUNT[@]}" --no-cache search --json --limit 50 "from:$NAME" > "$WORK/mailsearch-uncached.out"
cmp -s "$WORK/mailsearch.out" "$WORK/mailsearch-cached.out" && cmp -s "$WORK/mailsearch.out" "$WORK/mailsearch-uncached.out" \
    || { echo "error: the search printed differently with and without its cache" >&2; exit 1; }
imapfilter -t "$DOVECOT_CA" -c "$WORK/imapfilter.lua" > "$WORK/imapfilter.out" 2>&1 || { cat "$WORK/imapfilter.out" >&2; exit 1; }
echo "mailsearch: $(wc -l < "$WORK/mailsearch.out") messages; imapfilter: $(wc -l < "$WORK/imapfilter.out") lines" >&2
"$MAILSEARCH" "${ACCOUNT[@]}" list --json --limit "$MESSAGES" > "$WORK/list.out"
echo "list: $(wc -l < "$WORK/list.out") messages; raw read: $(python3 "$WORK/raw_read.py") bytes" >&2

LOAD_BEFORE=$(cut -d' ' -f1 /proc/loadavg)
# The pairs that are compared run interleaved, round by round, so a change in the machine's
# load hits both sides alike.
SEARCH_TIMES=() UNCACHED_TIMES=() FILTER_TIMES=() IMAPLIB_TIMES=() LIST_TIMES=() RAW_TIMES=() CACHED_LIST_TIMES=()
once() {
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    end=$(date +%s.%N)
    echo "$end - $start" | bc -l
}
"$MAILSEARCH" "${ACCOUNT[@]}" search --json --limit 50 "from:$NAME" >/dev/null 2>&1
imapfilter -t "$DOVECOT_CA" -c "$WORK/imapfilter.lua" >/dev/null 2>&1
python3 "$WORK/imaplib_search.py" >/dev/null 2>&1
# The order goes round the four in turn, forwards and backwards, so each tool follows each other
# one alike: a tool that always ran right after another would start while Dovecot still ends
# that one's session on the same 2 cores.
search() { SEARCH_TIMES+=("$(once "$MAILSEARCH" "${ACCOUNT[@]}" search --json --limit 50 "from:$NAME")"); }
uncached() { UNCACHED_TIMES+=("$(once "$MAILSEARCH" "${ACCOUNT[@]}" --no-cache search --json --limit 50 "from:$NAME")"); }
filter() { FILTER_TIMES+=("$(once imapfilter -t "$DOVECOT_CA" -c "$WORK/imapfilter.lua")"); }
imaplib() { IMAPLIB_TIMES+=("$(once python3 "$WORK/imaplib_search.py")"); }
ORDERS=("search uncached filter imaplib" "uncached filter imaplib search" "filter imaplib search uncached"
    "imaplib search uncached filter" "imaplib filter uncached search" "search imaplib filter uncached"
    "uncached search imaplib filter" "filter uncached search imaplib")
for round in $(seq 0 $((ROUNDS - 1))); do
    for tool in ${ORDERS[round % 8]}; do $tool; done
done
for _ in $(seq "$ROUNDS"); do
    LIST_TIMES+=("$(once "$MAILSEARCH" "${ACCOUNT[@]}" --no-cache list --json --limit "$MESSAGES")")
    RAW_TIMES+=("$(once python3 "$WORK/raw_read.py")")
    CACHED_LIST_TIMES+=("$(once "$MAILSEARCH" "${ACCOUNT[@]}" list --json --limit "$MESSAGES")")
done
LOAD_AFTER=$(cut -d' ' -f1 /proc/loadavg)

# "BEST MEDIAN" of the arguments.
stats() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {printf "%.3f %.3f", a[1], a[int((NR+1)/2)]}'; }
read -r SEARCH_BEST SEARCH <<< "$(stats "${SEARCH_TIMES[@]}")"
read -r UNCACHED_BEST UNCACHED <<< "$(stats "${UNCACHED_TIMES[@]}")"
read -r CACHED_LIST_BEST CACHED_LIST <<< "$(stats "${CACHED_LIST_TIMES[@]}")"
read -r FILTER_BEST FILTER <<< "$(stats "${FILTER_TIMES[@]}")"
read -r IMAPLIB_BEST IMAPLIB <<< "$(stats "${IMAPLIB_TIMES[@]}")"
read -r LIST_BEST LIST <<< "$(stats "${LIST_TIMES[@]}")"
read -r RAW_BEST RAW <<< "$(stats "${RAW_TIMES[@]}")"

ratio() { echo "scale=2; $1 / $2" | bc -l | sed 's/^\./0./'; }
# "RATIO LOW HIGH": the median ratio of two tools' times and its 95% interval, rounds resampled
# as the interleaved pairs they are (interval.py).
interval() {
    printf '%s\n' "${!1}" > "$WORK/first.times"
    printf '%s\n' "${!2}" > "$WORK/second.times"
    python3 Benchmarks/cli/interval.py "$WORK/first.times" "$WORK/second.times"
}
# The verdict on "RATIO LOW HIGH" against GOAL: met when the median ratio is at most the goal;
# "within the noise" when the interval reaches the other side of it.
verdict() {
    local ratio=$1 low=$2 high=$3 goal=$4 text
    if [[ $(echo "$ratio <= $goal" | bc -l) == 1 ]]; then
        text="met"
        [[ $(echo "$high > $goal" | bc -l) == 1 ]] && text="met by the median, within the noise"
    else
        text="NOT met"
        [[ $(echo "$low <= $goal" | bc -l) == 1 ]] && text="NOT met by the median, within the noise"
    fi
    echo "$ratio (95% interval $low-$high), $text"
}
read -r SEARCH_RATIO SEARCH_LOW SEARCH_HIGH <<< "$(interval 'SEARCH_TIMES[@]' 'FILTER_TIMES[@]')"
read -r UNCACHED_RATIO UNCACHED_LOW UNCACHED_HIGH <<< "$(interval 'UNCACHED_TIMES[@]' 'FILTER_TIMES[@]')"
read -r LIST_RATIO LIST_LOW LIST_HIGH <<< "$(interval 'LIST_TIMES[@]' 'RAW_TIMES[@]')"
echo "mailsearch CLI against Dovecot, $MESSAGES messages, $LINK, $ROUNDS whole-process runs each"
echo "(interleaved), load average $LOAD_BEFORE before and $LOAD_AFTER after on $(nproc) cores"
echo
row() { printf '%-44s %8s s %8s s   %s\n' "$@"; }
printf '%-44s %10s %10s\n' "" "best" "median"
row "search --json --limit 50 from:$NAME" "$SEARCH_BEST" "$SEARCH" "mailsearch/imapfilter = $SEARCH_RATIO"
row "  the same, --no-cache" "$UNCACHED_BEST" "$UNCACHED" "mailsearch/imapfilter = $UNCACHED_RATIO"
row "imapfilter (FROM search, 50 subjects)" "$FILTER_BEST" "$FILTER" ""
row "python imaplib (the same)" "$IMAPLIB_BEST" "$IMAPLIB" "imapfilter/imaplib = $(ratio "$FILTER" "$IMAPLIB")"
row "list --json --limit $MESSAGES --no-cache" "$LIST_BEST" "$LIST" ""
row "raw read of the same UID FETCH" "$RAW_BEST" "$RAW" "mailsearch/raw = $LIST_RATIO"
row "list --json --limit $MESSAGES (cached)" "$CACHED_LIST_BEST" "$CACHED_LIST" "mailsearch/raw = $(ratio "$CACHED_LIST" "$RAW")"
echo
if [[ $PHASES == 1 ]]; then
    cc -O2 -shared -fPIC -o "$WORK/phase-timestamps.so" Benchmarks/cli/phase-timestamps.c -ldl
    echo "phases of the search, $ROUNDS runs each (interleaved):"
    python3 Benchmarks/cli/phases.py "$WORK/phase-timestamps.so" "$ROUNDS" \
        mailsearch -- "$MAILSEARCH" "${ACCOUNT[@]}" search --json --limit 50 "from:$NAME" --- \
        imapfilter -- imapfilter -t "$DOVECOT_CA" -c "$WORK/imapfilter.lua"
    echo
fi
if [[ $LATENCY != 0 ]]; then
    echo "(the goals are set on loopback: run without --latency for their verdicts)"
    exit 0
fi
echo "goal: search no slower than imapfilter (median ratio <= 1.00):"
echo "      $(verdict "$SEARCH_RATIO" "$SEARCH_LOW" "$SEARCH_HIGH" 1.00)"
echo "      and with --no-cache (as a first run): $(verdict "$UNCACHED_RATIO" "$UNCACHED_LOW" "$UNCACHED_HIGH" 1.00)"
echo "goal: list within 1.3x of the raw read (median ratio <= 1.30):"
echo "      $(verdict "$LIST_RATIO" "$LIST_LOW" "$LIST_HIGH" 1.30)"
