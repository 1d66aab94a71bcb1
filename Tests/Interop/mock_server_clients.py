#!/usr/bin/env python3
"""Independent IMAP clients against the mock server: Python's imaplib, imapclient (PyPI) and curl.

Starts `mock-imap-server` (MOCK_IMAP_SERVER, default .build/debug/mock-imap-server) on loopback
ports with a generated Maildir (scripts/generate-maildir.py, with its manifest as the expected
values), then drives it over implicit TLS and over STARTTLS, trusting the server's generated
certificate, and checks values, not only status lines.

    Tests/Interop/mock_server_clients.py [--count N]

The last line is "clients: N passed, M failed"; the exit status is 1 when a check failed.
"""
import argparse
import email
import email.header
import imaplib
import json
import os
import re
import shutil
import ssl
import subprocess
import sys
import tempfile
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PASSED = 0
FAILED = 0
APPENDED = 0  # messages the sessions so far added to INBOX


def check(name, condition, detail=""):
    global PASSED, FAILED
    if condition:
        PASSED += 1
        print(f"ok   - {name}")
    else:
        FAILED += 1
        print(f"FAIL - {name} {detail}")


def start_server(maildir, workdir):
    binary = os.environ.get("MOCK_IMAP_SERVER", os.path.join(ROOT, ".build/debug/mock-imap-server"))
    cert = os.path.join(workdir, "ca.pem")
    process = subprocess.Popen(
        [binary, "--listen", "127.0.0.1:0", "--tls-listen", "127.0.0.1:0", "--user", "alice:secret",
         "--seed", maildir, "--cert-out", cert, "--profile", "full"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline().strip()
    match = re.match(r"READY imap=([\d.]+):(\d+) imaps=([\d.]+):(\d+) cert=(\S+)$", line)
    if not match:
        process.kill()
        raise SystemExit(f"mock-imap-server did not print READY: {line!r} {process.stderr.read()}")
    return process, int(match.group(2)), int(match.group(4)), match.group(5)


def decode_header(raw):
    return str(email.header.make_header(email.header.decode_header(raw)))


def expected_from(manifest, needle):
    needle = needle.lower()
    return sorted(m["uid"] for m in manifest
                  if needle in (m["from_name"] or "").lower() or needle in m["from"].lower())


def imaplib_session(port, cafile, starttls, manifest, maildir):
    global APPENDED
    label = "imaplib/" + ("STARTTLS" if starttls else "IMAPS")
    context = ssl.create_default_context(cafile=cafile)
    if starttls:
        imap = imaplib.IMAP4("127.0.0.1", port)
        check(f"{label}: LOGINDISABLED before STARTTLS", "LOGINDISABLED" in imap.capabilities)
        imap.starttls(ssl_context=context)
    else:
        imap = imaplib.IMAP4_SSL("127.0.0.1", port, ssl_context=context)
    typ, _ = imap.login("alice", "secret")
    check(f"{label}: login", typ == "OK")
    typ, boxes = imap.list()
    check(f"{label}: LIST has INBOX", typ == "OK" and any(b'INBOX' in line for line in boxes), boxes)
    typ, data = imap.select("INBOX")
    check(f"{label}: SELECT counts every message", int(data[0]) == len(manifest) + APPENDED, (data, APPENDED))
    sender = manifest[0]["from"].split("@")[0]
    typ, data = imap.uid("SEARCH", "FROM", f'"{sender}"')
    found = sorted(int(x) for x in data[0].split())
    check(f"{label}: SEARCH FROM {sender}", found == expected_from(manifest, sender), (found, expected_from(manifest, sender)))
    non_ascii = next((m["from_name"].split()[0] for m in manifest
                      if m["from_name"] and any(ord(c) > 127 for c in m["from_name"].split()[0])), None)
    if non_ascii:
        imap.literal = non_ascii.encode("utf-8")
        typ, data = imap.uid("SEARCH", "CHARSET", "UTF-8", "FROM")
        found = sorted(int(x) for x in data[0].split())
        check(f"{label}: SEARCH CHARSET UTF-8 FROM {non_ascii} (literal)", typ == "OK" and found == expected_from(manifest, non_ascii),
              (found, expected_from(manifest, non_ascii)))
    first = manifest[0]
    typ, data = imap.uid("FETCH", str(first["uid"]), "(ENVELOPE BODYSTRUCTURE RFC822.SIZE)")
    text = data[0] if isinstance(data[0], bytes) else data[0][0]
    check(f"{label}: FETCH ENVELOPE carries the subject", first["subject_raw"].encode() in text or first["subject"].encode() in text, text[:200])
    check(f"{label}: FETCH RFC822.SIZE", f"RFC822.SIZE {first['rfc822_size']}".encode() in text, text[:300])
    check(f"{label}: FETCH BODYSTRUCTURE", b"BODYSTRUCTURE (" in text)
    typ, data = imap.uid("FETCH", str(first["uid"]), "(BODY.PEEK[])")
    body = data[0][1]
    with open(os.path.join(maildir, "cur", first["file"]), "rb") as handle:
        original = handle.read().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    check(f"{label}: FETCH BODY.PEEK[] is the message", body == original, (len(body), len(original)))
    typ, data = imap.uid("FETCH", str(first["uid"]), "(FLAGS)")
    check(f"{label}: BODY.PEEK[] did not set \\Seen", (b"\\Seen" in data[0]) == ("\\Seen" in first["flags"]), data)
    uid = manifest[1]["uid"]
    typ, _ = imap.uid("STORE", str(uid), "+FLAGS", "(\\Flagged $Pinned)")
    typ, data = imap.uid("FETCH", str(uid), "(FLAGS)")
    check(f"{label}: STORE +FLAGS shows in FETCH", b"\\Flagged" in data[0] and b"$Pinned" in data[0], data)
    imap.uid("STORE", str(uid), "-FLAGS", "(\\Flagged $Pinned)")
    subject = f"Appended by {label}"
    message = f"From: Test <test@example.com>\r\nSubject: {subject}\r\n\r\nhello\r\n".encode()
    typ, data = imap.append("INBOX", "(\\Seen)", None, message)
    APPENDED += 1
    check(f"{label}: APPEND with APPENDUID", typ == "OK" and b"APPENDUID" in data[0], data)
    typ, data = imap.uid("SEARCH", "SUBJECT", f'"{subject}"')
    check(f"{label}: SEARCH finds the appended message", len(data[0].split()) == 1, data)
    typ, _ = imap.logout()
    check(f"{label}: LOGOUT", typ == "BYE")


def imapclient_session(port, cafile, starttls, manifest):
    global APPENDED
    from imapclient import IMAPClient
    label = "imapclient/" + ("STARTTLS" if starttls else "IMAPS")
    context = ssl.create_default_context(cafile=cafile)
    if starttls:
        client = IMAPClient("127.0.0.1", port=port, ssl=False)
        client.starttls(ssl_context=context)
    else:
        client = IMAPClient("127.0.0.1", port=port, ssl=True, ssl_context=context)
    client.login("alice", "secret")
    folders = client.list_folders()
    check(f"{label}: list_folders has INBOX", any(f[2] == "INBOX" for f in folders), folders)
    info = client.select_folder("INBOX")
    check(f"{label}: select_folder EXISTS", info[b"EXISTS"] == len(manifest) + APPENDED, (info, APPENDED))
    non_ascii = next((m["from_name"].split()[0] for m in manifest
                      if m["from_name"] and any(ord(c) > 127 for c in m["from_name"].split()[0])), None)
    if non_ascii:
        found = sorted(client.search(["FROM", non_ascii], charset="UTF-8"))
        check(f"{label}: search FROM {non_ascii} in UTF-8", found == expected_from(manifest, non_ascii), (found,))
    seen = sorted(client.search(["SEEN"]))
    expected_seen = sorted(m["uid"] for m in manifest if "\\Seen" in m["flags"])
    check(f"{label}: search SEEN matches the Maildir flags", set(expected_seen) <= set(seen), (len(seen), len(expected_seen)))
    uids = [m["uid"] for m in manifest[:5]]
    data = client.fetch(uids, ["ENVELOPE", "BODYSTRUCTURE", "BODY.PEEK[]", "FLAGS"])
    for m in manifest[:5]:
        envelope = data[m["uid"]][b"ENVELOPE"]
        subject = decode_header(envelope.subject.decode()) if envelope.subject else ""
        check(f"{label}: ENVELOPE subject of UID {m['uid']}", subject == m["subject"], (subject, m["subject"]))
        sender = envelope.from_[0]
        check(f"{label}: ENVELOPE sender of UID {m['uid']}", f"{sender.mailbox.decode()}@{sender.host.decode()}" == m["from"])
        check(f"{label}: BODY[] size of UID {m['uid']}", len(data[m["uid"]][b"BODY[]"]) == m["rfc822_size"])
    client.add_flags([uids[0]], [b"\\Answered"])
    flags = client.get_flags([uids[0]])[uids[0]]
    check(f"{label}: add_flags", b"\\Answered" in flags, flags)
    client.remove_flags([uids[0]], [b"\\Answered"])
    APPENDED += 1
    result = client.append("INBOX", b"From: a@example.com\r\nSubject: imapclient append\r\n\r\nbody\r\n", flags=[b"\\Draft"])
    check(f"{label}: append", b"APPENDUID" in result or b"completed" in result.lower(), result)
    client.logout()


def curl_checks(port, cafile, manifest, maildir):
    if not shutil.which("curl"):
        check("curl is installed", False)
        return
    base = f"imaps://127.0.0.1:{port}/"
    common = ["curl", "-s", "--cacert", cafile, "--user", "alice:secret"]
    listing = subprocess.run(common + [base], capture_output=True, text=True, timeout=30)
    check("curl: lists the mailboxes over imaps", listing.returncode == 0 and "INBOX" in listing.stdout,
          (listing.returncode, listing.stdout, listing.stderr))
    first = manifest[0]
    fetched = subprocess.run(common + [f"{base}INBOX;UID={first['uid']}"], capture_output=True, timeout=30)
    with open(os.path.join(maildir, "cur", first["file"]), "rb") as handle:
        original = handle.read().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    check("curl: fetches one message over imaps", fetched.returncode == 0 and fetched.stdout == original,
          (fetched.returncode, len(fetched.stdout), len(original)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=60)
    arguments = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="mailsearch-interop-")
    maildir = os.path.join(workdir, "maildir")
    manifest_path = os.path.join(workdir, "manifest.json")
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts/generate-maildir.py"), "--out", maildir,
                    "--count", str(arguments.count), "--seed", "11", "--manifest", manifest_path],
                   check=True, stdout=subprocess.DEVNULL)
    manifest = json.load(open(manifest_path))["messages"]
    server, imap_port, imaps_port, cafile = start_server(maildir, workdir)
    try:
        for starttls in (False, True):
            port = imap_port if starttls else imaps_port
            for run in (imaplib_session, imapclient_session):
                try:
                    if run is imaplib_session:
                        run(port, cafile, starttls, manifest, maildir)
                    else:
                        run(port, cafile, starttls, manifest)
                except Exception:
                    check(f"{run.__name__} ({'STARTTLS' if starttls else 'IMAPS'}) ran without an exception", False,
                          traceback.format_exc())
        curl_checks(imaps_port, cafile, manifest, maildir)
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"clients: {PASSED} passed, {FAILED} failed")
    sys.exit(1 if FAILED else 0)


if __name__ == "__main__":
    main()
