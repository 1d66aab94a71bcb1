#!/usr/bin/env bash
# Plain-text captures (tmux capture-pane, no colours) of every state of `mailsearch tui`, as the
# README shows them: the tool in a 100x16 tmux pane against mock-imap-server's demo mailbox,
# with the server's faults for the slow, empty and failing cases.
#
#   scripts/tui-captures.sh [OUT_DIR]      (default: /tmp/mailsearch-tui-captures)
#   MAILSEARCH_BIN_DIR=.build/debug scripts/tui-captures.sh     (no build first)
#
# Writes OUT_DIR/<state>.txt for: inbox-loading, inbox-data, inbox-empty, inbox-error,
# search-recent, search-suggestions, search-searching, search-results, search-no-results,
# search-error, and prints them one after another. Needs tmux.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-/tmp/mailsearch-tui-captures}
mkdir -p "$OUT"
command -v tmux >/dev/null || { echo "error: tmux is not installed (apt-get install tmux)" >&2; exit 69; }

# MAILSEARCH_BIN_DIR: use the mailsearch and mock-imap-server already built there.
if [[ -n ${MAILSEARCH_BIN_DIR:-} ]]; then
    BIN=$MAILSEARCH_BIN_DIR
else
    swift build --product mailsearch >&2
    swift build --product mock-imap-server >&2
    BIN=$(swift build --show-bin-path)
fi

WORK=$(mktemp -d /tmp/mailsearch-captures.XXXXXX)
SERVER_PID=
SOCKET=
cleanup() {
    [[ -n $SOCKET ]] && tmux -S "$SOCKET" kill-server 2>/dev/null || true
    [[ -n $SERVER_PID ]] && kill "$SERVER_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

# start_server ARGS...: a mock server of its own; sets PORT and CA.
start_server() {
    [[ -n $SERVER_PID ]] && { kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true; }
    rm -f "$WORK/ready"
    "$BIN/mock-imap-server" --cert-out "$WORK/ca.pem" --exit-with-parent "$@" > "$WORK/ready" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 200); do grep -q READY "$WORK/ready" 2>/dev/null && break; sleep 0.05; done
    PORT=$(sed -n 's/.*imaps=127.0.0.1:\([0-9]*\).*/\1/p' "$WORK/ready")
    [[ -n $PORT ]] || { cat "$WORK/ready" >&2; exit 1; }
}

# start_tui: mailsearch tui in a fresh 100x30 pane (fresh search history too).
# (A tmux server of its own each time: a new one on a socket just killed can find the old one
# still ending.)
PANE=0
start_tui() {
    [[ -n ${SOCKET:-} ]] && tmux -S "$SOCKET" kill-server 2>/dev/null || true
    PANE=$((PANE + 1))
    SOCKET="$WORK/tmux-$PANE"
    rm -rf "$WORK/state" "$WORK/config"
    tmux -S "$SOCKET" -f /dev/null new-session -d -s tui -x 100 -y 16 -- env -i TERM=screen LANG=C.UTF-8 \
        TZ=UTC NO_COLOR=1 MAILSEARCH_PASSWORD=secret XDG_STATE_HOME="$WORK/state" XDG_CONFIG_HOME="$WORK/config" \
        "$BIN/mailsearch" --host 127.0.0.1 --port "$PORT" --user alice --ca-file "$WORK/ca.pem" tui
    tmux -S "$SOCKET" set -g status off
}

screen() { tmux -S "$SOCKET" capture-pane -p -t tui; }
keys() { tmux -S "$SOCKET" send-keys -t tui "$@"; }
typed() { tmux -S "$SOCKET" send-keys -t tui -l "$1"; }

# capture NAME TEXT: waits until the screen shows TEXT, saves it as NAME.
capture() {
    for _ in $(seq 400); do
        if screen | grep -qF -- "$2"; then
            screen > "$OUT/$1.txt"
            return
        fi
        sleep 0.05
    done
    echo "error: $1: \"$2\" never showed; the screen:" >&2
    screen >&2
    exit 1
}

# The first listing is slow (3 s), so the loading state shows; then the data.
start_server --demo --fault 'UID SORT#1=delay:3s' --fault 'UID SEARCH#1=delay:3s'
start_tui
capture inbox-loading "Checking for mail..."
capture inbox-data " unread"

# An empty mailbox.
start_server
start_tui
capture inbox-empty "No messages in INBOX."

# The listing refused: the error screen with Retry.
start_server --demo --fault 'UID SORT#1=NO the index is being rebuilt, try again' \
    --fault 'UID SEARCH#1=NO the index is being rebuilt, try again'
start_tui
capture inbox-error "r  Retry"

# Search mode. The third listing or search (after the inbox and a first search) is slow.
start_server --demo --fault 'UID SORT#3=delay:3s' --fault 'UID SEARCH#3=delay:3s'
start_tui
capture inbox-data-again "Updated just now"
keys /
typed "from:dumbledore"
keys Enter
capture first-results "results for"
keys Escape
capture inbox-data-again "Updated just now"
keys /
capture search-recent "Recent searches"
typed "from:albus"
capture search-suggestions "from:albus.dumbledore@hogwarts.example"
keys C-u
typed "subject:flamel"
keys Enter
capture search-searching "Searching the server for"
capture search-results "result for"
keys / C-u
typed "from:voldemort"
keys Enter
capture search-no-results "No results for"
keys / C-u
typed 'from:"albus'
keys Enter
capture search-error "The search failed."
keys q
rm -f "$OUT/inbox-data-again.txt" "$OUT/first-results.txt"

for state in inbox-loading inbox-data inbox-empty inbox-error search-recent search-suggestions search-searching \
    search-results search-no-results search-error; do
    echo "== $state"
    sed 's/[[:space:]]*$//' "$OUT/$state.txt"
done
