#!/usr/bin/env python3
"""End-to-end check of scripts/generate-maildir.py and scripts/dovecot.sh against a real
Dovecot, with Python's imaplib as the client. Run through scripts/selftest.sh.

    imap-selftest.py [--count 200] [--seed 4242] [--keep]

Prints one line per check and, last, "selftest: N passed, M failed"; exits 1 on any
failure. Everything it starts is stopped and every directory it makes is removed
(unless --keep, which leaves the instance running and prints where).
"""

import argparse
import datetime as dt
import email
import email.policy
import email.utils
import filecmp
import imaplib
import json
import os
import re
import shlex
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, "generate-maildir.py")
DOVECOT_SH = os.path.join(HERE, "dovecot.sh")

ALICE_PW = "alice-Pw.7Qx"        # distinctive, so a leak into files or output is detectable
BOB_PW = "bob pw:with-colon"
REQUIRED_CAPS = ["IMAP4REV1", "CONDSTORE", "ESEARCH", "SORT", "IDLE", "LITERAL+", "ID",
                 "ENABLE", "MOVE", "PREVIEW", "UIDPLUS", "NAMESPACE", "QRESYNC", "BINARY"]
ENV_LINE = re.compile(r"^DOVECOT_DIR=(\S+) DOVECOT_IMAP_PORT=(\d+) DOVECOT_IMAPS_PORT=(\d+) "
                      r"DOVECOT_CA=(\S+) DOVECOT_PID=(\d+)$")

passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok   - %s" % name, flush=True)
    else:
        failed += 1
        print("FAIL - %s%s" % (name, (": " + str(detail)) if detail else ""), flush=True)
    return ok


# --------------------------------------------------------------------------- IMAP values

def responses(data):
    """imaplib's untagged data -> one bytes object per response, literals inlined as
    {n}\\r\\n<bytes>."""
    out, cur, open_ = [], b"", False
    for item in data:
        if item is None:
            continue
        if isinstance(item, tuple):
            if not open_:
                cur = b""
            cur += item[0] + b"\r\n" + item[1]
            open_ = True
        else:
            if open_:
                cur += item
                out.append(cur)
                open_ = False
            else:
                out.append(item)
    if open_:
        out.append(cur)
    return out


def parse(buf):
    """Parse IMAP values (lists, NIL, numbers/atoms as bytes, strings as bytes)."""
    pos = 0
    n = len(buf)

    def value():
        nonlocal pos
        while pos < n and buf[pos] == 0x20:
            pos += 1
        c = buf[pos:pos + 1]
        if c == b"(":
            pos += 1
            items = []
            while True:
                while pos < n and buf[pos] == 0x20:
                    pos += 1
                if buf[pos:pos + 1] == b")":
                    pos += 1
                    return items
                items.append(value())
        if c == b'"':
            pos += 1
            s = bytearray()
            while buf[pos:pos + 1] != b'"':
                if buf[pos:pos + 1] == b"\\":
                    pos += 1
                s += buf[pos:pos + 1]
                pos += 1
            pos += 1
            return bytes(s)
        if c == b"{":
            end = buf.index(b"}", pos)
            length = int(buf[pos + 1:end].rstrip(b"+"))
            pos = end + 3  # }\r\n
            s = buf[pos:pos + length]
            pos += length
            return s
        m = re.compile(rb"[^ ()\r\n]+").match(buf, pos)
        pos = m.end()
        tok = m.group(0)
        return None if tok == b"NIL" else tok

    vals = []
    while pos < n:
        while pos < n and buf[pos] in b" \r\n":
            pos += 1
        if pos < n:
            vals.append(value())
    return vals


def fetch_map(data):
    """{uid: {ITEM: value}} from UID FETCH untagged data."""
    result = {}
    for r in responses(data):
        vals = parse(r)
        items = vals[1]
        d = {items[i].decode().upper(): items[i + 1] for i in range(0, len(items), 2)}
        result[int(d["UID"])] = d
    return result


def decode_words(raw):
    if raw is None:
        return None
    text = raw.decode("utf-8", "replace")
    return str(email.policy.default.header_factory("subject", text))


def search_uids(data):
    nums = b" ".join(x for x in data if x).split()
    return sorted(int(x) for x in nums)


# --------------------------------------------------------------------------- helpers

def strict_context(ca):
    ctx = ssl.create_default_context(cafile=ca)
    # what Python 3.13+ enables by default; the certificate must pass it too
    ctx.verify_flags |= getattr(ssl, "VERIFY_X509_STRICT", 0)
    return ctx


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def tree_snapshot(d):
    out = {}
    for sub in ("cur", "new", "tmp"):
        for f in sorted(os.listdir(os.path.join(d, sub))):
            p = os.path.join(d, sub, f)
            with open(p, "rb") as fh:
                out[sub + "/" + f] = (fh.read(), os.stat(p).st_mtime)
    return out


def offline_checks(work, count, seed):
    a, b, c = (os.path.join(work, x) for x in ("gen-a", "gen-b", "gen-c"))
    ma, mb = os.path.join(work, "a.json"), os.path.join(work, "b.json")
    t0 = time.monotonic()
    r = run([sys.executable, GEN, "--out", a, "--count", str(count), "--seed", str(seed),
             "--manifest", ma])
    gen_time = time.monotonic() - t0
    check("generate %d messages (%.2f s)" % (count, gen_time), r.returncode == 0, r.stderr)
    r = run([sys.executable, GEN, "--out", b, "--count", str(count), "--seed", str(seed),
             "--manifest", mb])
    check("generate again with the same seed", r.returncode == 0, r.stderr)
    check("same seed: byte-identical files, names and mtimes",
          tree_snapshot(a) == tree_snapshot(b))
    check("same seed: identical manifest", filecmp.cmp(ma, mb, shallow=False))
    r = run([sys.executable, GEN, "--out", c, "--count", "20", "--seed", str(seed + 1)])
    check("another seed gives other messages",
          r.returncode == 0 and list(tree_snapshot(c).values())[:20]
          != list(tree_snapshot(a).values())[:20])
    r = run([sys.executable, GEN, "--out", a, "--count", "1", "--seed", "1"])
    check("refuses to add to a non-empty Maildir without --force", r.returncode != 0)
    shutil.rmtree(b)
    shutil.rmtree(c)

    man = json.load(open(ma, encoding="utf-8"))["messages"]
    check("manifest has %d messages in UID order" % count,
          len(man) == count and [m["uid"] for m in man] == list(range(1, count + 1)))
    names = os.listdir(os.path.join(a, "cur"))
    check("file names <unix-time>.<seq>.mailsearch:2,<flags>",
          all(re.fullmatch(r"\d+\.\d+\.mailsearch:2,D?F?R?S?", f) for f in names)
          and len(names) == count)
    problems = []
    for m in man:
        raw = open(os.path.join(a, "cur", m["file"]), "rb").read()
        msg = email.message_from_bytes(raw, policy=email.policy.default)
        if str(msg["Subject"]) != m["subject"]:
            problems.append((m["uid"], "subject", str(msg["Subject"])))
        frm = msg["From"].addresses[0]
        if (frm.addr_spec, frm.display_name) != (m["from"], m["from_name"]):
            problems.append((m["uid"], "from", str(msg["From"])))
        if m["date_header"] is None:
            if msg["Date"] is not None:
                problems.append((m["uid"], "date present"))
        elif int(email.utils.parsedate_to_datetime(m["date_header"]).timestamp()) != m["internaldate"]:
            problems.append((m["uid"], "date", m["date_header"]))
        if int(os.stat(os.path.join(a, "cur", m["file"])).st_mtime) != m["internaldate"]:
            problems.append((m["uid"], "mtime"))
        for part in msg.walk():
            if part.defects:
                problems.append((m["uid"], "defects", part.defects))
            if part.get_content_maintype() == "text":
                part.get_content()  # decodes QP / charset
        files = [p.get_filename() for p in msg.walk() if p.get_content_disposition() == "attachment"]
        if files != ([m["attachment"]] if m["attachment"] else []):
            problems.append((m["uid"], "attachment", files))
        if len(raw) != m["size"] or b"\r" in raw:
            problems.append((m["uid"], "size or CR"))
    check("every message parses (email package) and matches the manifest", not problems,
          problems[:5])
    flags = [m["flags"] for m in man]
    seen = sum("\\Seen" in f for f in flags) / count
    check("about 60%% \\Seen (%.0f%%), some \\Flagged and \\Answered" % (seen * 100),
          0.45 < seen < 0.75 and any("\\Flagged" in f for f in flags)
          and any("\\Answered" in f for f in flags))
    kinds = {m["kind"] for m in man}
    check("body kinds present: %s" % ",".join(sorted(kinds)),
          {"plain", "alternative", "mixed"} <= kinds)
    return a, man, gen_time


# --------------------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--seed", type=int, default=4242)
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()

    work = tempfile.mkdtemp(prefix="mailsearch-selftest.")
    env = None
    try:
        maildir, man, _ = offline_checks(work, args.count, args.seed)
        env = online_checks(work, maildir, man)
    finally:
        if env and not args.keep:
            stop_checks(env)
        elif env:
            print("kept: %s" % env["line"])
        shutil.rmtree(work, ignore_errors=True)
    print("selftest: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


def online_checks(work, maildir, man):
    count = len(man)
    # missing dovecot -> exit 3 with the install hint
    r = run([DOVECOT_SH, "start"], env=dict(os.environ, DOVECOT_BINDIR="/nonexistent"))
    check("start without dovecot exits 3 with the install hint",
          r.returncode == 3 and "dovecot is not installed (apt-get install dovecot-imapd)" in r.stderr
          and r.stdout == "", (r.returncode, r.stderr))

    # a Dovecot that fails to start: one sentence with the log tail, no directory left
    fake = os.path.join(work, "fakebin")
    os.makedirs(fake)
    for name in ("dovecot", "doveadm"):
        with open(os.path.join(fake, name), "w") as fh:
            fh.write("#!/bin/sh\necho 'Fatal: listen(127.0.0.1, 1) failed: simulated' >&2\nexit 89\n")
        os.chmod(os.path.join(fake, name), 0o755)
    tmp = tempfile.mkdtemp(prefix="ms.", dir="/tmp")  # short: socket paths are limited
    r = run([DOVECOT_SH, "start"], env=dict(os.environ, DOVECOT_BINDIR=fake, TMPDIR=tmp))
    check("a failed start: exit 1, reason and log tail on stderr, nothing on stdout, no directory left",
          r.returncode == 1 and "simulated" in r.stderr.splitlines()[0] and r.stdout == ""
          and "last lines of" in r.stderr and os.listdir(tmp) == [], (r.returncode, r.stderr))
    shutil.rmtree(tmp, ignore_errors=True)

    source_before = tree_snapshot(maildir)
    t0 = time.monotonic()
    r = run([DOVECOT_SH, "start", "--users", "alice:%s,bob:%s" % (ALICE_PW, BOB_PW),
             "--maildir-from", maildir])
    start_time = time.monotonic() - t0
    lines = r.stdout.splitlines()
    m = ENV_LINE.match(lines[0]) if len(lines) == 1 else None
    if not check("start prints one environment line (%.2f s)" % start_time,
                 r.returncode == 0 and m is not None, (r.returncode, r.stdout, r.stderr)):
        return None
    env = dict(kv.split("=", 1) for kv in shlex.split(lines[0]))
    env["line"] = lines[0]
    d, p_imap, p_imaps, ca = (env["DOVECOT_DIR"], int(env["DOVECOT_IMAP_PORT"]),
                              int(env["DOVECOT_IMAPS_PORT"]), env["DOVECOT_CA"])
    r2 = run(["bash", "-c", 'eval "$1"; echo "$DOVECOT_IMAPS_PORT"', "_", lines[0]])
    check("the line is shell-sourceable", r2.stdout.strip() == str(p_imaps))
    check("DOVECOT_PID is the running master", os.path.exists("/proc/%s" % env["DOVECOT_PID"]))

    leaks = [f for f in ("dovecot.conf", "users", "env", "dovecot.log")
             if os.path.exists(os.path.join(d, f))
             and ALICE_PW.encode() in open(os.path.join(d, f), "rb").read()]
    check("passwords appear nowhere in output, config, users file or log",
          not leaks and ALICE_PW not in r.stdout + r.stderr, leaks)
    conf = open(os.path.join(d, "dovecot.conf")).read()
    listen = re.findall(r"address = (\S+)", conf)
    check("listeners only on 127.0.0.1", listen == ["127.0.0.1", "127.0.0.1"]
          and "listen = 127.0.0.1" in conf)
    # something else on the machine: no listener on 0.0.0.0 for our ports
    for port in (p_imap, p_imaps):
        s = socket.socket()
        s.settimeout(1)
        try:
            reachable = s.connect_ex(("127.0.0.2", port)) == 0
        finally:
            s.close()
        check("port %d not reachable on 127.0.0.2" % port, not reachable)

    # ---- IMAPS with the generated certificate, by name and by address
    for host in ("localhost", "127.0.0.1"):
        try:
            t1 = time.monotonic()
            M = imaplib.IMAP4_SSL(host, p_imaps, ssl_context=strict_context(ca), timeout=10)
            M.login("alice", ALICE_PW)
            typ, cdata = M.capability()  # imaplib keeps the pre-login list
            caps = set(cdata[0].decode().upper().split())
            typ, data = M.select("INBOX")
            sel = time.monotonic() - t1
            check("IMAPS %s: verified TLS, LOGIN, SELECT INBOX -> %s EXISTS (%.2f s)"
                  % (host, data[0].decode(), sel), typ == "OK" and int(data[0]) == count)
            missing = [c for c in REQUIRED_CAPS if c not in caps]
            check("IMAPS %s: capabilities include %s" % (host, " ".join(REQUIRED_CAPS)),
                  not missing, missing)
            M.logout()
        except Exception as e:  # noqa: BLE001
            check("IMAPS %s" % host, False, repr(e))

    # ---- trust is the generated certificate, not anything else
    try:
        imaplib.IMAP4_SSL("localhost", p_imaps, ssl_context=ssl.create_default_context(),
                          timeout=10)
        check("system trust store rejects the self-signed certificate", False)
    except ssl.SSLCertVerificationError:
        check("system trust store rejects the self-signed certificate", True)
    try:
        ctx = strict_context(ca)
        with socket.create_connection(("127.0.0.1", p_imaps), timeout=10) as raw:
            ctx.wrap_socket(raw, server_hostname="mail.example.com")
        check("a wrong host name is rejected", False)
    except ssl.SSLCertVerificationError:
        check("a wrong host name is rejected", True)

    # ---- plain port: STARTTLS, and plain-text LOGIN (allowed on loopback)
    for host in ("localhost", "127.0.0.1"):
        try:
            M = imaplib.IMAP4(host, p_imap, timeout=10)
            pre = set(M.capabilities)
            M.starttls(ssl_context=strict_context(ca))
            M.login("alice", ALICE_PW)
            typ, data = M.select("INBOX", readonly=True)
            check("STARTTLS %s: advertised, verified, LOGIN, SELECT -> %s EXISTS"
                  % (host, data[0].decode()),
                  "STARTTLS" in pre and typ == "OK" and int(data[0]) == count)
            M.logout()
        except Exception as e:  # noqa: BLE001
            check("STARTTLS %s" % host, False, repr(e))
    try:
        M = imaplib.IMAP4("127.0.0.1", p_imap, timeout=10)
        M.login("bob", BOB_PW)
        typ, data = M.select("INBOX")
        check("plain-text LOGIN as bob (password with ':' and space), empty INBOX",
              typ == "OK" and int(data[0]) == 0)
        M.logout()
    except Exception as e:  # noqa: BLE001
        check("plain-text LOGIN as bob", False, repr(e))
    try:
        M = imaplib.IMAP4_SSL("localhost", p_imaps, ssl_context=strict_context(ca), timeout=10)
        try:
            M.login("alice", "wrong-password")
            check("wrong password -> NO [AUTHENTICATIONFAILED]", False, "login succeeded")
        except imaplib.IMAP4.error as e:
            check("wrong password -> NO [AUTHENTICATIONFAILED]", "[AUTHENTICATIONFAILED]" in str(e), e)
        M.logout()
    except Exception as e:  # noqa: BLE001
        check("wrong password", False, repr(e))

    # ---- what the mailbox holds vs the manifest
    M = imaplib.IMAP4_SSL("localhost", p_imaps, ssl_context=strict_context(ca), timeout=30)
    M.login("alice", ALICE_PW)
    M.select("INBOX")
    typ, data = M.uid("FETCH", "1:*", "(UID FLAGS INTERNALDATE RFC822.SIZE ENVELOPE)")
    got = fetch_map(data)
    check("UID FETCH 1:* returns %d messages" % count, typ == "OK" and len(got) == count)
    bad = {"uid/message-id": [], "flags": [], "internaldate": [], "size": [], "subject": [],
           "from": [], "date": []}
    for mm in man:
        f = got.get(mm["uid"])
        if f is None:
            bad["uid/message-id"].append(mm["uid"])
            continue
        env_ = f["ENVELOPE"]
        if env_[9] != ("<%s>" % mm["message_id"]).encode():
            bad["uid/message-id"].append((mm["uid"], env_[9]))
        flags = sorted(x.decode() for x in f["FLAGS"] if x != b"\\Recent")
        if flags != mm["flags"]:
            bad["flags"].append((mm["uid"], flags, mm["flags"]))
        idate = email.utils.parsedate_to_datetime(
            dt.datetime.strptime(f["INTERNALDATE"].decode(), "%d-%b-%Y %H:%M:%S %z")
            .strftime("%a, %d %b %Y %H:%M:%S %z")).timestamp()
        if int(idate) != mm["internaldate"]:
            bad["internaldate"].append((mm["uid"], f["INTERNALDATE"]))
        if int(f["RFC822.SIZE"]) != mm["rfc822_size"]:
            bad["size"].append((mm["uid"], f["RFC822.SIZE"], mm["rfc822_size"]))
        if decode_words(env_[1]) != mm["subject"]:
            bad["subject"].append((mm["uid"], env_[1], mm["subject"]))
        frm = env_[2][0]
        name = decode_words(frm[0]) if frm[0] is not None else ""
        addr = "%s@%s" % (frm[2].decode(), frm[3].decode())
        if (name, addr) != (mm["from_name"], mm["from"]):
            bad["from"].append((mm["uid"], frm, mm["from_name"]))
        want_date = mm["date_header"].encode() if mm["date_header"] else None
        if env_[0] != want_date:
            bad["date"].append((mm["uid"], env_[0], want_date))
    for k, v in bad.items():
        check("FETCH %s match the manifest for all %d" % (k, count), not v, v[:3])

    def search(criteria, literal=None):
        if literal is not None:
            M.literal = literal.encode("utf-8")
        typ, data = M.uid("SEARCH", *criteria)
        return search_uids(data) if typ == "OK" else None

    def expect(pred):
        return sorted(x["uid"] for x in man if pred(x))

    want = expect(lambda x: "søren" in x["from_name"].lower())
    got_s = search(["CHARSET", "UTF-8", "FROM"], "Søren")
    check("UID SEARCH CHARSET UTF-8 FROM {literal}Søren -> %d as in the manifest" % len(want),
          want and got_s == want, (got_s, want))
    got_s = search(["CHARSET", "UTF-8", "FROM"], "SØREN")
    check("... and case-insensitively (SØREN)", got_s == want, (got_s, want))
    want = expect(lambda x: "会议纪要" in x["subject"])
    got_s = search(["CHARSET", "UTF-8", "SUBJECT"], "会议纪要")
    check("UID SEARCH SUBJECT 会议纪要 (RFC 2047 B) -> %d" % len(want), want and got_s == want,
          (got_s, want))
    want = expect(lambda x: "🎉" in x["subject"])
    got_s = search(["CHARSET", "UTF-8", "SUBJECT"], "🎉")
    check("UID SEARCH SUBJECT 🎉 -> %d" % len(want), got_s == want, (got_s, want))
    want = expect(lambda x: "invoice" in x["subject"].lower())
    got_s = search(["SUBJECT", '"invoice"'])
    check("UID SEARCH SUBJECT \"invoice\" -> %d" % len(want), want and got_s == want,
          (got_s, want))
    for key, flag in (("FLAGGED", "\\Flagged"), ("ANSWERED", "\\Answered"), ("SEEN", "\\Seen")):
        want = expect(lambda x: flag in x["flags"])
        check("UID SEARCH %s -> %d" % (key, len(want)), search([key]) == want)
    want = expect(lambda x: "\\Seen" not in x["flags"])
    typ, _ = M.uid("SEARCH", "RETURN", "(COUNT)", "UNSEEN")
    _, data = M.response("ESEARCH")
    check("ESEARCH RETURN (COUNT) UNSEEN -> COUNT %d" % len(want),
          typ == "OK" and data[0] is not None and data[0].endswith(b"COUNT %d" % len(want)), data)
    M.logout()

    idle_checks(p_imaps, ca, man)
    many_connections(p_imaps, ca)

    r = run([DOVECOT_SH, "doveadm", d, "mailbox", "status", "-u", "alice", "messages", "INBOX"])
    check("dovecot.sh doveadm passes through (mailbox status: %s)" % r.stdout.strip(),
          r.returncode == 0 and r.stdout.split() == ["INBOX", "messages=%d" % (count + 1)], r.stderr)
    r = run([DOVECOT_SH, "index", d, "alice"])
    check("dovecot.sh index DIR alice", r.returncode == 0, r.stderr)
    r = run([DOVECOT_SH, "env", d])
    check("dovecot.sh env DIR repeats the line", r.stdout.strip() == env["line"])
    log = open(os.path.join(d, "dovecot.log"), errors="replace").read()
    problems = [line for line in log.splitlines()
                if re.search(r": (Warning|Error|Fatal|Panic): ", line)]
    check("dovecot.log has no warning or error", not problems, problems[:3])

    # the imported Maildir is Dovecot's own: changing it leaves the source as generated
    M = imaplib.IMAP4_SSL("localhost", p_imaps, ssl_context=strict_context(ca), timeout=30)
    M.login("alice", ALICE_PW)
    M.select("INBOX")
    victims = [man[0], man[1]]
    M.uid("STORE", str(victims[0]["uid"]), "+FLAGS", "(\\Deleted \\Flagged)")
    M.uid("STORE", str(victims[1]["uid"]), "FLAGS", "($Label1 \\Answered)")
    typ, _ = M.expunge()
    typ2, data = M.uid("FETCH", str(victims[1]["uid"]), "(FLAGS)")
    M.logout()
    check("EXPUNGE and STORE on the imported mailbox", typ == "OK" and typ2 == "OK"
          and b"$Label1" in data[0], data)
    check("--maildir-from source unchanged (files, names, contents, mtimes)",
          tree_snapshot(maildir) == source_before
          and not [f for f in os.listdir(maildir) if f.startswith("dovecot")])
    return env


def idle_checks(port, ca, man):
    try:
        A = imaplib.IMAP4_SSL("localhost", port, ssl_context=strict_context(ca), timeout=10)
        A.login("alice", ALICE_PW)
        A.select("INBOX")
        B = imaplib.IMAP4_SSL("localhost", port, ssl_context=strict_context(ca), timeout=10)
        B.login("alice", ALICE_PW)
        B.select("INBOX")
        tag = A._new_tag().decode()
        A.send(("%s IDLE\r\n" % tag).encode())
        cont = A.readline()
        check("IDLE -> continuation", cont.startswith(b"+"), cont)
        uid = next(x["uid"] for x in man if "\\Flagged" not in x["flags"])

        def wait_for(pattern, limit=2.0):
            t0 = time.monotonic()
            A.sock.settimeout(limit)
            try:
                while True:
                    line = A.readline()
                    if not line:
                        return None, line
                    if re.search(pattern, line):
                        return time.monotonic() - t0, line
                    if time.monotonic() - t0 > limit:
                        return None, line
            except (socket.timeout, TimeoutError, OSError) as e:
                return None, repr(e)

        B.uid("STORE", str(uid), "+FLAGS", "(\\Flagged)")
        took, line = wait_for(rb"^\* %d FETCH .*\\Flagged" % uid)
        check("IDLE sees another connection's flag change within 2 s (%s)"
              % ("%.2f s" % took if took is not None else "no"), took is not None, line)
        msg = (b"From: Test <test@example.com>\r\nTo: alice@example.com\r\n"
               b"Subject: appended during IDLE\r\nMessage-ID: <idle@example.com>\r\n\r\nhello\r\n")
        B.append("INBOX", None, None, msg)
        took, line = wait_for(rb"^\* %d EXISTS" % (len(man) + 1))
        check("IDLE sees an APPEND (EXISTS %d) within 2 s (%s)"
              % (len(man) + 1, "%.2f s" % took if took is not None else "no"),
              took is not None, line)
        A.sock.settimeout(10)
        A.send(b"DONE\r\n")
        while True:
            line = A.readline()
            if line.startswith(tag.encode()) or not line:
                break
        check("DONE ends IDLE with OK", line.startswith(("%s OK" % tag).encode()), line)
        B.uid("STORE", str(uid), "-FLAGS", "(\\Flagged)")
        A.logout()
        B.logout()
    except Exception as e:  # noqa: BLE001
        check("IDLE", False, repr(e))


def many_connections(port, ca, n=30):
    conns = []
    try:
        for _ in range(n):
            M = imaplib.IMAP4_SSL("127.0.0.1", port, ssl_context=strict_context(ca), timeout=10)
            M.login("alice", ALICE_PW)
            conns.append(M)
        ok = all(M.noop()[0] == "OK" for M in conns)
        check("%d simultaneous sessions of one user from one IP" % n, ok)
    except Exception as e:  # noqa: BLE001
        check("%d simultaneous sessions" % n, False, "%d opened: %r" % (len(conns), e))
    for M in conns:
        try:
            M.logout()
        except Exception:  # noqa: BLE001
            pass


def stop_checks(env):
    d, pid = env["DOVECOT_DIR"], int(env["DOVECOT_PID"])
    instance = None
    conf = os.path.join(d, "dovecot.conf")
    if os.path.exists(conf):
        m = re.search(r"^instance_name = (\S+)", open(conf).read(), re.M)
        instance = m.group(1) if m else None
    t0 = time.monotonic()
    r = run([DOVECOT_SH, "stop", d])
    check("stop (%.2f s)" % (time.monotonic() - t0), r.returncode == 0, r.stderr)
    check("temp directory removed", not os.path.exists(d))
    left = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            stat = open("/proc/%s/stat" % p).read()
            cmd = open("/proc/%s/cmdline" % p, "rb").read().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if stat.rsplit(")", 1)[1].split()[0] == "Z":
            continue  # exited; waiting for init to reap it
        if int(p) == pid or d in cmd or (instance and instance + "/" in cmd):
            left.append((p, cmd))
    check("no process of that Dovecot remains", not left, left)


if __name__ == "__main__":
    main()
