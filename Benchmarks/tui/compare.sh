#!/usr/bin/env bash
# `mailsearch tui` beside the terminal mail clients people already use, aerc and neomutt, in one
# run against a throwaway Dovecot holding N generated messages (default 20,000), each in a tmux
# pane of the same size (100x30, TERM=screen), started the same way (`env -i` with the same
# variables, in a temporary HOME configured for the Dovecot account):
#
#   1. start to first screen: from tmux starting the program to the first `tmux capture-pane`
#      that shows the newest message's subject; one warm-up of each, then R rounds of the three
#      one after another; median, best and worst;
#   2. scrolling (unless --no-scroll): PgDn from the newest message until the oldest one shows;
#      key to redraw (send-keys to the first capture that differs) and the process's VmRSS and
#      VmHWM from /proc while it scrolls; then the peak (VmHWM) after the first 10 keys beside the
#      peak at the end (flat memory: the two a few MB apart), and key to redraw over the first and
#      the last tenth of the keys (flat work per key: the two alike).
#
#   Benchmarks/tui/compare.sh [--messages N] [--rounds R] [--no-scroll] [--no-peer-scroll] [--no-peers]
#
# (--no-peer-scroll scrolls mailsearch only: aerc takes minutes to page through 100,000.)
#
# All three talk to Dovecot over loopback TLS (IMAPS) with its self-signed test CA trusted:
# mailsearch with --ca-file, aerc (Go's crypto/tls) with SSL_CERT_FILE, neomutt (GnuTLS) with
# ssl_ca_certificates_file. No client keeps a header cache (neomutt's header_cache is unset,
# aerc 0.14 has none), so every run starts from the server.
# Needs: dovecot-imapd, tmux, python3, aerc, neomutt
# (apt-get install -y --no-install-recommends aerc neomutt).
set -euo pipefail
cd "$(dirname "$0")/../.."

MESSAGES=20000
ROUNDS=5
SCROLL=1
PEER_SCROLL=1
PEERS=1
while [[ $# -gt 0 ]]; do
    case $1 in
        --messages) MESSAGES=$2; shift 2 ;;
        --rounds) ROUNDS=$2; shift 2 ;;
        --no-scroll) SCROLL=0; shift ;;
        --no-peer-scroll) PEER_SCROLL=0; shift ;;
        --no-peers) PEERS=0; shift ;;
        *) echo "usage: $0 [--messages N] [--rounds R] [--no-scroll] [--no-peer-scroll] [--no-peers]" >&2; exit 64 ;;
    esac
done
for tool in tmux python3; do
    command -v $tool >/dev/null || { echo "error: $tool is not installed (apt-get install $tool)" >&2; exit 69; }
done
if [[ $PEERS == 1 ]]; then
    for tool in aerc neomutt; do
        command -v $tool >/dev/null || {
            echo "error: $tool is not installed (apt-get install -y --no-install-recommends aerc neomutt)" >&2
            exit 69
        }
    done
fi

# Built as the README installs it (the Swift runtime linked in).
swift build -c release --static-swift-stdlib --product mailsearch >&2
MAILSEARCH=$(swift build -c release --static-swift-stdlib --show-bin-path)/mailsearch

WORK=$(mktemp -d /tmp/mailsearch-tui-bench.XXXXXX)
chmod 700 "$WORK"
DOVECOT_DIR=
cleanup() {
    [[ -n $DOVECOT_DIR ]] && scripts/dovecot.sh stop "$DOVECOT_DIR" >/dev/null 2>&1 || true
    rm -rf "$WORK"
}
trap cleanup EXIT

echo "generating $MESSAGES messages ..." >&2
python3 scripts/generate-maildir.py --out "$WORK/alice" --count "$MESSAGES" --seed 1 >&2
# Markers a capture can find whatever a client does with long, CJK or emoji subjects: the
# oldest message's subject is replaced, and a newest message is added after the last one (a
# later time and sequence number, so it gets the highest UID, INTERNALDATE and Date).
python3 - "$WORK/alice/cur" <<'PY'
import email.utils, os, re, sys
cur = sys.argv[1]
names = sorted(os.listdir(cur), key=lambda name: int(name.split(".")[1]))
oldest = os.path.join(cur, names[0])
stat = os.stat(oldest)
with open(oldest, "rb") as f:
    raw = f.read()
header, separator, body = raw.partition(b"\n\n")
header = re.sub(rb"(?m)^Subject:.*\n(?:[ \t].*\n)*", b"", header + b"\n").rstrip(b"\n")
with open(oldest, "wb") as f:
    f.write(header + b"\nSubject: YARDSTICK-OLDEST\n\n" + body)
os.utime(oldest, (stat.st_mtime, stat.st_mtime))
last_time = int(names[-1].split(".")[0]) + 60
sequence = int(names[-1].split(".")[1]) + 1
path = os.path.join(cur, "%d.%d.mailsearch:2," % (last_time, sequence))
with open(path, "wb") as f:
    f.write(("From: Yardstick <yardstick@example.com>\nTo: alice@example.com\nSubject: YARDSTICK-NEWEST\n"
             "Date: %s\nMessage-ID: <yardstick-newest@example.com>\n\nThe newest message.\n"
             % email.utils.formatdate(last_time)).encode())
os.utime(path, (last_time, last_time))
PY
eval "$(scripts/dovecot.sh start --users alice:secret --maildir-from alice="$WORK/alice")"
scripts/dovecot.sh index "$DOVECOT_DIR" alice >/dev/null
TOTAL=$(scripts/dovecot.sh doveadm "$DOVECOT_DIR" mailbox status -u alice messages INBOX | grep -o '[0-9]*$')
echo "Dovecot on imaps $DOVECOT_IMAPS_PORT, INBOX holds $TOTAL messages" >&2

# Each client's temporary HOME. The password is in a 0600 file the clients read themselves
# (aerc: source-cred-cmd; neomutt: a sourced file; mailsearch: MAILSEARCH_PASSWORD).
umask 077
HOME_DIR="$WORK/home"
mkdir -p "$HOME_DIR/.config/aerc" "$HOME_DIR/state" "$HOME_DIR/config"
printf 'secret' > "$HOME_DIR/password"
cat > "$HOME_DIR/.config/aerc/accounts.conf" <<CONF
[dovecot]
source = imaps://alice@localhost:$DOVECOT_IMAPS_PORT
source-cred-cmd = cat $HOME_DIR/password
outgoing = /bin/false
default = INBOX
from = Alice <alice@localhost>
CONF
cat > "$HOME_DIR/.config/aerc/aerc.conf" <<CONF
[general]
unsafe-accounts-conf = true
CONF
printf "set imap_pass = \"secret\"\n" > "$HOME_DIR/neomutt-password"
cat > "$HOME_DIR/.neomuttrc" <<CONF
set folder = "imaps://alice@localhost:$DOVECOT_IMAPS_PORT/"
set spoolfile = "+INBOX"
source $HOME_DIR/neomutt-password
set ssl_ca_certificates_file = "$DOVECOT_CA"
set certificate_file = "$HOME_DIR/certificates"
set ssl_force_tls = yes
set sort = reverse-date-received
set imap_check_subscribed = no
set mail_check_stats = no
set header_cache = ""
set message_cachedir = ""
set quit = yes
set help = no
CONF
umask 022

ENV=(--env "HOME=$HOME_DIR" --env "TERM=screen" --env "PATH=/usr/local/bin:/usr/bin:/bin" --env "LANG=C.UTF-8"
    --env "SSL_CERT_FILE=$DOVECOT_CA" --env "MAILSEARCH_PASSWORD=secret"
    --env "XDG_STATE_HOME=$HOME_DIR/state" --env "XDG_CONFIG_HOME=$HOME_DIR/.config")
MAILSEARCH_TUI="$MAILSEARCH --host localhost --port $DOVECOT_IMAPS_PORT --user alice --ca-file $DOVECOT_CA tui"
TOOLS=(--tool "mailsearch=$MAILSEARCH_TUI")
if [[ $PEERS == 1 ]]; then
    TOOLS+=(--tool "aerc=aerc" --tool "neomutt=neomutt")
fi

echo "load before: $(uptime)" >&2
FIRST=$(python3 Benchmarks/tui/yardstick.py first-screen --rounds "$ROUNDS" --text YARDSTICK-NEWEST \
    --workdir "$WORK" "${ENV[@]}" "${TOOLS[@]}")
LOAD_AFTER=$(uptime)

ratio() { echo "scale=2; $1 / $2" | bc -l; }
field() { awk -v tool="$1" -v name="$2" '$1 == tool { for (i = 2; i < NF; i++) if ($i == name) print $(i + 1) }' <<< "$FIRST"; }

echo "start to the first screen showing the newest message, $TOTAL messages, loopback TLS, $ROUNDS rounds"
echo "load: $LOAD_AFTER"
printf '%-12s %8s %8s %8s\n' tool median best worst
for tool in mailsearch aerc neomutt; do
    [[ -n $(field $tool median) ]] || continue
    printf '%-12s %7s s %7s s %7s s\n' $tool "$(field $tool median)" "$(field $tool best)" "$(field $tool worst)"
done
if [[ $PEERS == 1 ]]; then
    echo "mailsearch/aerc = $(ratio "$(field mailsearch median)" "$(field aerc median)") (median)," \
        "$(ratio "$(field mailsearch best)" "$(field aerc best)") (best)"
    echo "mailsearch/neomutt = $(ratio "$(field mailsearch median)" "$(field neomutt median)") (median)"
fi

if [[ $SCROLL == 1 ]]; then
    echo
    echo "scrolling with PgDn from the newest to the oldest message"
    python3 Benchmarks/tui/yardstick.py scroll --text YARDSTICK-NEWEST --end YARDSTICK-OLDEST --key NPage \
        --sample-every $((TOTAL / 30 / 10 + 1)) --workdir "$WORK" "${ENV[@]}" --tool "mailsearch=$MAILSEARCH_TUI"
    if [[ $PEERS == 1 && $PEER_SCROLL == 1 ]]; then
        python3 Benchmarks/tui/yardstick.py scroll --text YARDSTICK-NEWEST --end YARDSTICK-OLDEST --key NPage \
            --sample-every $((TOTAL / 30 / 10 + 1)) --workdir "$WORK" "${ENV[@]}" --tool "aerc=aerc"
        python3 Benchmarks/tui/yardstick.py scroll --text YARDSTICK-NEWEST --end YARDSTICK-OLDEST --key NPage \
            --sample-every $((TOTAL / 30 / 10 + 1)) --workdir "$WORK" "${ENV[@]}" --tool "neomutt=neomutt"
    fi
fi
