#!/usr/bin/env bash
# End-to-end check of generate-maildir.py and dovecot.sh against a real Dovecot.
#
#   scripts/selftest.sh [--install] [--count N] [--seed S] [--keep]
#
# --install  apt-get install dovecot-imapd first if Dovecot is missing (needs root)
# --keep     leave the Dovecot running at the end and print its environment line
# Exit 0 when every check passed, 1 when one failed, 3 when Dovecot is not installed.
# The last line is "selftest: N passed, M failed".
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
install=0
args=()
for a in "$@"; do
    case $a in
        --install) install=1 ;;
        -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
        *) args+=("$a") ;;
    esac
done

have_dovecot() {
    command -v dovecot >/dev/null 2>&1 || [[ -x /usr/sbin/dovecot ]]
}
if ! have_dovecot; then
    if [[ $install -eq 1 ]]; then
        echo "selftest: installing dovecot-imapd" >&2
        apt-get update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq dovecot-imapd >/dev/null
    else
        echo "selftest: dovecot is not installed (apt-get install dovecot-imapd, or run with --install)" >&2
        exit 3
    fi
fi
for tool in python3 openssl; do
    command -v "$tool" >/dev/null || { echo "selftest: $tool is missing" >&2; exit 3; }
done
exec python3 "$here/imap-selftest.py" ${args[@]+"${args[@]}"}
