#!/usr/bin/env python3
"""Fill a Maildir with realistic, deterministic RFC 5322 test messages.

    generate-maildir.py --out MAILDIR --count N --seed S [--start-date 2023-12-01]
                        [--manifest out.json] [--mean-gap SECONDS] [--size-in-name] [--force]

Same seed and options -> byte-identical files with identical names and mtimes.
Standard library only. Messages go to MAILDIR/cur as

    <unix-time>.<seq>.mailsearch:2,<flags>

(<unix-time> is the message's date; it strictly increases with <seq>, so Dovecot, which
assigns UIDs to new maildir files in file-name time order, gives message <seq> UID <seq>
in an empty mailbox). The maildir info flags are D F R S (\\Draft \\Flagged \\Answered
\\Seen). Each file's mtime is set to the message date, which Dovecot reports as
INTERNALDATE. Lines end in LF, as Dovecot stores them (it sends CRLF).

The manifest (JSON) is an object {"seed", "count", "start_date", "messages": [...]}, one
entry per message in UID order, see MANIFEST_FIELDS below.
"""

import argparse
import base64
import binascii
import datetime as dt
import json
import os
import random
import re
import sys

MANIFEST_FIELDS = {
    "uid": "expected UID in a fresh mailbox (= 1-based sequence)",
    "file": "file name inside cur/",
    "message_id": "Message-ID without angle brackets",
    "subject": "decoded Subject (Unicode)",
    "subject_raw": "Subject as written in the header (unfolded)",
    "from_name": "decoded display name of From",
    "from": "From address",
    "to": "To addresses",
    "cc": "Cc addresses (maybe empty)",
    "flags": "IMAP system flags, sorted, e.g. ['\\\\Flagged', '\\\\Seen']",
    "date": "instant of the Date header (or of INTERNALDATE when missing), ISO 8601 UTC",
    "date_header": "Date header value, or null when the message has no Date header",
    "internaldate": "unix time of the file mtime (INTERNALDATE)",
    "kind": "plain | plain-qp | latin1 | html | alternative | mixed | forward",
    "attachment": "attachment file name (decoded), or null",
    "size": "file size in bytes (LF line ends); RFC822.SIZE counts CRLF",
    "rfc822_size": "size with CRLF line ends, what RFC822.SIZE reports",
}

# --------------------------------------------------------------------------- pools

FIRST_ASCII = ["Alice", "Bob", "Carol", "Dave", "Eve", "Frank", "Grace", "Heidi", "Ivan",
               "Judy", "Mallory", "Niaj", "Olivia", "Peggy", "Rupert", "Sybil", "Trent",
               "Victor", "Walter"]
# (display form, ASCII local part)
FIRST_INTL = [("Søren", "soren"), ("Zoë", "zoe"), ("José", "jose"), ("Françoise", "francoise"),
              ("Łukasz", "lukasz"), ("Анна", "anna"), ("明", "ming"), ("Björn", "bjorn")]
LAST = [("Smith", "smith"), ("Jones", "jones"), ("Tanaka", "tanaka"), ("Rossi", "rossi"),
        ("Dubois", "dubois"), ("Ivanova", "ivanova"), ("Kowalski", "kowalski"),
        ("Chen", "chen"), ("Nguyen", "nguyen"), ("O'Brien", "obrien"),
        ("García", "garcia"), ("Müller", "muller")]
# whole CJK names (family name first), with their local part
CJK_NAMES = [("田中 花子", "hanako.tanaka"), ("王芳", "fang.wang"), ("佐藤 健", "ken.sato"),
             ("李小龙", "xiaolong.li"), ("山本 さくら", "sakura.yamamoto")]
DOMAINS = ["example.com", "apple.com", "google.com", "amazon.com", "mail.example.org",
           "uni.example.edu", "shop.example.net"]
DOMAIN_WEIGHTS = [30, 12, 12, 12, 12, 12, 10]

SUBJECTS = [
    "Invoice #{n}", "Team meeting reminder", "Team meeting at 3 PM", "Quarterly update",
    "Security alert", "Prime Day specials", "Reminder: submit your timesheet",
    "Re: project plan", "Weekly digest 📰", "New product launch", "Happy Birthday!",
    "[dev] build failed on main", "Your order has shipped", "Fwd: travel itinerary",
    "Password reset request", "Lunch on Friday?", "会议纪要", "パリ旅行の計画",
    "パリ旅行", "Workspace new features", "Let's catch up soon", "Software update available",
    "Can you review the attached document?", "Réunion de lundi", "🎉 Party on Friday 🎉",
    "Congratulations! 🎉", "Überweisung bestätigt", "Re: Budget für das nächste Quartal",
    "Re: Fwd: Notes from the quarterly planning session with the design, marketing and "
    "engineering teams (please read before Monday)",
    "Order #{n} confirmed", "Café meeting – agenda", "本周例会通知 #{n}",
]

VOCAB = ("quarterly calendar invoice meeting budget report review invite design fix "
         "numbers deploy customer launch coffee party follow agenda answer draft dinner "
         "birthday schedule shipping feedback server tracking release question holiday "
         "results payment prototype marketing engineering vacation sales notes bug up "
         "the").split()
VOCAB_INTL = ["café", "naïve", "Grüße", "déjà", "über", "façade", "smörgåsbord", "東京",
              "会议", "パリ", "ありがとう", "résumé", "jalapeño", "Ελλάδα", "Привет"]
VOCAB_LATIN1 = ["café", "naïve", "Grüße", "déjà", "über", "façade", "smörgåsbord",
                "résumé", "jalapeño", "crème brûlée", "señor", "Ærø"]

ATTACH_NAMES_INTL = ["Rechnung März.pdf", "Résumé José.pdf", "会议纪要.pdf",
                     "Übersicht 2024 – final.pdf", "見積書.pdf"]

DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

# --------------------------------------------------------------------------- encoders

_Q_SAFE = set(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!*+-/")


def _q_encode(data: bytes) -> str:
    out = []
    for b in data:
        if b == 0x20:
            out.append("_")
        elif b in _Q_SAFE:
            out.append(chr(b))
        else:
            out.append("=%02X" % b)
    return "".join(out)


def encoded_words(text: str, enc: str, charset: str = "utf-8") -> list:
    """RFC 2047 encoded words for text, each at most 75 characters, never splitting a
    character."""
    words, chunk = [], ""
    prefix = "=?%s?%s?" % (charset, enc)

    def render(s):
        data = s.encode(charset)
        body = _q_encode(data) if enc == "q" else base64.b64encode(data).decode("ascii")
        return prefix + body + "?="

    for ch in text:
        if chunk and len(render(chunk + ch)) > 75:
            words.append(render(chunk))
            chunk = ""
        chunk += ch
    if chunk:
        words.append(render(chunk))
    return words


def encode_phrase(text: str, rng: random.Random, force_b: bool = False,
                  charset: str = "utf-8") -> str:
    """Encode a header phrase: ASCII words stay as they are, runs of non-ASCII words become
    encoded words (like Python's email package); CJK text uses B, others mostly Q."""
    if text.isascii():
        return text
    if any(ord(c) > 0x2E7F for c in text) or force_b:
        enc = "b"
    else:
        enc = "q" if rng.random() < 0.8 else "b"
    # whole-phrase encoding for CJK (it often has no spaces anyway) and sometimes for others
    if enc == "b" and rng.random() < 0.5:
        return " ".join(encoded_words(text, enc, charset))
    parts, run = [], []
    for w in text.split(" "):
        if w.isascii():
            if run:
                parts.extend(encoded_words(" ".join(run), enc, charset))
                run = []
            parts.append(w)
        else:
            run.append(w)
    if run:
        parts.extend(encoded_words(" ".join(run), enc, charset))
    return " ".join(parts)


def fold(name: str, value: str) -> str:
    """Header line, folded at spaces to keep lines at most 78 characters when possible."""
    line = name + ": " + value
    if len(line) <= 78:
        return line + "\n"
    out, cur, words_on_line = [], name + ":", 0
    for word in value.split(" "):
        if words_on_line and len(cur) + 1 + len(word) > 78:
            out.append(cur)
            cur, words_on_line = "", 0
        cur += " " + word
        words_on_line += 1
    out.append(cur)
    return "\n".join(out) + "\n"


def rfc2231_param(name: str, value: str, rng: random.Random) -> str:
    """Parameter with RFC 2231 encoding for non-ASCII values (sometimes split into
    continuations)."""
    if value.isascii():
        return '%s="%s"' % (name, value)
    quoted = "".join(c if (c.isascii() and (c.isalnum() or c in "-._~")) else
                     "".join("%%%02X" % b for b in c.encode("utf-8")) for c in value)
    if len(quoted) > 30 and rng.random() < 0.6:
        tokens = re.findall(r"%[0-9A-F]{2}|.", quoted)
        pieces, cur = [], ""
        for tok in tokens:  # never cut inside %XX
            if len(cur) + len(tok) > 30:
                pieces.append(cur)
                cur = ""
            cur += tok
        pieces.append(cur)
        parts = ["%s*0*=utf-8''%s" % (name, pieces[0])]
        parts += ["%s*%d*=%s" % (name, k, p) for k, p in enumerate(pieces[1:], 1)]
        return ";\n\t".join(parts)
    return "%s*=utf-8''%s" % (name, quoted)


def qp(text: bytes) -> bytes:
    return binascii.b2a_qp(text, quotetabs=False, istext=True, header=False)


def b64_lines(data: bytes) -> bytes:
    return base64.encodebytes(data)  # 76-character lines ending in \n


# --------------------------------------------------------------------------- dates


def format_date(t: int, rng: random.Random):
    """Date header value for unix time t, most like Python's formatdate (-0000), a few in
    odd but valid forms (RFC 5322 incl. obsolete syntax). The instant is always t."""
    r = rng.random()
    offset = 0
    zone = "-0000"
    style = "normal"
    if r < 0.80:
        pass
    elif r < 0.86:
        offset = rng.choice([60, 120, -300, -240, -420, 330, 540, 600, -600, 0])
        zone = ("+" if offset >= 0 else "-") + "%02d%02d" % divmod(abs(offset), 60)
    elif r < 0.89:
        style = "nodow"
        zone = "+0000"
    elif r < 0.91:
        # obsolete named zones
        zone, offset = rng.choice([("GMT", 0), ("UT", 0), ("EST", -300), ("EDT", -240),
                                   ("PST", -480), ("PDT", -420), ("CST", -360)])
    elif r < 0.93:
        style = "2digityear"
        offset = rng.choice([0, 60, -300])
        zone = ("+" if offset >= 0 else "-") + "%02d%02d" % divmod(abs(offset), 60)
    elif r < 0.95:
        style = "singleday-comment"
        zone = "+0000"
    elif r < 0.97:
        style = "noseconds"
        zone = "+0100"
        offset = 60
    else:
        style = "lowerzone-comment"
        zone = "-0800"
        offset = -480
    if style == "noseconds":
        t += (60 - t % 60) % 60  # whole minute, later than t: order stays strict
    local = dt.datetime.fromtimestamp(t, dt.timezone.utc) + dt.timedelta(minutes=offset)
    dow = DAYS[local.weekday()]
    mon = MONTHS[local.month - 1]
    hms = "%02d:%02d:%02d" % (local.hour, local.minute, local.second)
    if style == "nodow":
        return t, "%d %s %d %s %s" % (local.day, mon, local.year, hms, zone)
    if style == "2digityear":
        return t, "%s, %02d %s %02d %s %s" % (dow, local.day, mon, local.year % 100, hms, zone)
    if style == "singleday-comment":
        return t, "%s, %d %s %d %s %s (UTC)" % (dow, local.day, mon, local.year, hms, zone)
    if style == "noseconds":
        return t, "%s, %d %s %d %02d:%02d %s" % (dow, local.day, mon, local.year,
                                                  local.hour, local.minute, zone)
    if style == "lowerzone-comment":
        return t, "%s,  %02d %s %d %s %s (PST)" % (dow, local.day, mon, local.year, hms, zone)
    return t, "%s, %02d %s %d %s %s" % (dow, local.day, mon, local.year, hms, zone)


# --------------------------------------------------------------------------- bodies


def words_text(rng: random.Random, nlines: int, intl: list = None, p_intl: float = 0.0) -> str:
    lines = []
    for _ in range(nlines):
        ws, n = [], 0
        while n < 68:
            if intl and rng.random() < p_intl:
                w = rng.choice(intl)
            else:
                w = rng.choice(VOCAB)
            ws.append(w)
            n += len(w) + 1
        lines.append(" ".join(ws))
    return "\n".join(lines) + "\n"


def html_of(text: str, greeting: str) -> str:
    paras = "".join("<p>%s</p>\n" % line for line in text.strip().split("\n"))
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"></head>\n"
            "<body style=\"font-family: sans-serif\">\n<p>%s</p>\n%s</body></html>\n"
            % (greeting, paras))


def boundary(rng: random.Random) -> str:
    return "===============%019d==" % rng.randrange(10 ** 19)


def pdf_bytes(rng: random.Random, n: int) -> bytes:
    head = (b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"
            b"2 0 obj\n<< /Length " + str(n).encode() + b" /Filter /FlateDecode >>\nstream\n")
    return head + rng.randbytes(n) + b"\nendstream\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n"


def part_text_plain(rng, text: str, kind: str) -> bytes:
    """A text/plain entity (headers + body) of the given kind."""
    if kind == "plain":
        return (b"Content-Type: text/plain; charset=\"utf-8\"\nContent-Transfer-Encoding: 7bit\n\n"
                + text.encode("ascii"))
    if kind == "plain-qp":
        return (b"Content-Type: text/plain; charset=\"utf-8\"\n"
                b"Content-Transfer-Encoding: quoted-printable\n\n" + qp(text.encode("utf-8")))
    if kind == "latin1":
        data = text.encode("iso-8859-1")
        if rng.random() < 0.5:
            return (b"Content-Type: text/plain; charset=iso-8859-1\n"
                    b"Content-Transfer-Encoding: quoted-printable\n\n" + qp(data))
        return (b"Content-Type: text/plain; charset=iso-8859-1\n"
                b"Content-Transfer-Encoding: 8bit\n\n" + data)
    raise ValueError(kind)


def part_html(text: str, greeting: str) -> bytes:
    return (b"Content-Type: text/html; charset=\"utf-8\"\n"
            b"Content-Transfer-Encoding: quoted-printable\n\n"
            + qp(html_of(text, greeting).encode("utf-8")))


def multipart(rng, subtype: str, parts: list, extra_params: str = "") -> bytes:
    b = boundary(rng)
    out = [("Content-Type: multipart/%s; boundary=\"%s\"%s\n\n" % (subtype, b, extra_params)
            ).encode("ascii")]
    if rng.random() < 0.3:
        out.append(b"This is a multi-part message in MIME format.\n")
    for p in parts:
        out.append(("\n--%s\n" % b).encode("ascii") if len(out) > 1 else
                   ("--%s\n" % b).encode("ascii"))
        out.append(p)
        if not p.endswith(b"\n"):
            out.append(b"\n")
    out.append(("\n--%s--\n" % b).encode("ascii"))
    return b"".join(out)


# --------------------------------------------------------------------------- people


class Person:
    __slots__ = ("name", "addr", "header")

    def __init__(self, name, addr, header):
        self.name, self.addr, self.header = name, addr, header


def make_sender(rng: random.Random) -> Person:
    r = rng.random()
    if r < 0.05:
        name, local = rng.choice(CJK_NAMES)
    else:
        if r < 0.30:
            first, flocal = rng.choice(FIRST_INTL)
        else:
            first = rng.choice(FIRST_ASCII)
            flocal = first.lower()
        last, llocal = rng.choice(LAST)
        name = first + " " + last
        local = flocal + "." + llocal
    domain = rng.choices(DOMAINS, DOMAIN_WEIGHTS)[0]
    addr = local + "@" + domain
    style = rng.random()
    if name.isascii() and "'" not in name and style < 0.06 and " " in name:
        first, last = name.split(" ", 1)
        shown = "%s, %s" % (last, first)
        return Person(shown, addr, '"%s" <%s>' % (shown, addr))
    if style > 0.985:
        return Person("", addr, addr)  # bare address, no display name
    return Person(name, addr, "%s <%s>" % (encode_phrase(name, rng), addr))


ALICE = Person("Alice Example", "alice@example.com", "Alice Example <alice@example.com>")
BOB = Person("Bob", "bob@example.com", "Bob <bob@example.com>")
CAROL = Person("Carol", "carol@example.com", "Carol <carol@example.com>")

# --------------------------------------------------------------------------- messages


def choose_kind(rng: random.Random) -> str:
    return rng.choices(["plain", "plain-qp", "latin1", "html", "alternative", "mixed",
                        "forward"], [45, 9, 4, 2, 22, 15, 3])[0]


def flags_for(rng: random.Random):
    info = []
    if rng.random() < 0.03:
        info.append("D")
    if rng.random() < 0.05:
        info.append("F")
    seen = rng.random() < 0.60
    if rng.random() < (0.15 if seen else 0.02):
        info.append("R")
    if seen:
        info.append("S")
    imap = {"D": "\\Draft", "F": "\\Flagged", "R": "\\Answered", "S": "\\Seen"}
    return "".join(info), sorted(imap[c] for c in info)


def build_message(rng: random.Random, seq: int, t: int):
    sender = make_sender(rng)
    to = [ALICE]
    cc = []
    if rng.random() < 0.25:
        cc = [BOB, CAROL] if rng.random() < 0.7 else [rng.choice([BOB, CAROL])]
    tmpl = rng.choice(SUBJECTS)
    subject = tmpl.replace("{n}", str(rng.randrange(1000, 20000)))
    if subject.isascii():
        subj_raw = subject
    elif subject in ("Überweisung bestätigt",) and rng.random() < 0.5:
        subj_raw = encode_phrase(subject, rng, charset="iso-8859-1")
    else:
        subj_raw = encode_phrase(subject, rng)
    msgid = "%d.%d@%s" % (seq, rng.randrange(10 ** 9), sender.addr.split("@")[1])
    date_missing = rng.random() < 0.01
    t, date_hdr = format_date(t, rng)
    if date_missing:
        date_hdr = None

    kind = choose_kind(rng)
    nlines = rng.randint(2, 34)
    attachment = None
    greeting = "Hi Alice,"

    h = [fold("From", sender.header), "To: %s\n" % ", ".join(p.header for p in to)]
    if cc:
        h.append("Cc: %s\n" % ", ".join(p.header for p in cc))
    h.append(fold("Subject", subj_raw))
    if date_hdr is not None:
        h.append("Date: %s\n" % date_hdr)
    h.append("Message-ID: <%s>\n" % msgid)
    if subject.startswith("Re:"):
        ref = "<%d.%d@example.com>" % (rng.randrange(1, 20000), rng.randrange(10 ** 9))
        h.append("In-Reply-To: %s\nReferences: %s\n" % (ref, ref))
    if subject.startswith("[dev]"):
        h.append("List-Id: Developers <dev.lists.example.com>\n")
    if rng.random() < 0.1:
        h.append("X-Mailer: MailSearch generator 1.0\n")
    h.append("MIME-Version: 1.0\n")
    head = "".join(h).encode("utf-8")

    if kind in ("plain", "plain-qp", "latin1"):
        if kind == "plain":
            text = words_text(rng, nlines)
        elif kind == "plain-qp":
            text = words_text(rng, nlines, VOCAB_INTL, 0.08)
        else:
            text = words_text(rng, nlines, VOCAB_LATIN1, 0.08)
        body = part_text_plain(rng, text, kind)
    elif kind == "html":
        body = part_html(words_text(rng, nlines), greeting)
    elif kind == "alternative":
        text = words_text(rng, nlines, VOCAB_INTL, 0.03 if rng.random() < 0.3 else 0.0)
        tkind = "plain" if text.isascii() else "plain-qp"
        body = multipart(rng, "alternative",
                         [part_text_plain(rng, text, tkind), part_html(text, greeting)])
    elif kind == "mixed":
        text = words_text(rng, nlines)
        if rng.random() < 0.4:
            first = multipart(rng, "alternative",
                              [part_text_plain(rng, text, "plain"), part_html(text, greeting)])
        else:
            first = part_text_plain(rng, text, "plain")
        if rng.random() < 0.2:
            attachment = rng.choice(ATTACH_NAMES_INTL)
        else:
            attachment = "report-%d.pdf" % rng.randrange(1000, 20000)
        data = pdf_bytes(rng, rng.randint(300, 20000))
        disp = rfc2231_param("filename", attachment, rng)
        ctname = ""
        if attachment.isascii():
            ctname = '; name="%s"' % attachment if rng.random() < 0.5 else ""
        elif rng.random() < 0.5:
            # what many mailers add next to the RFC 2231 form: an RFC 2047 encoded name
            ctname = '; name="%s"' % " ".join(encoded_words(attachment, "b"))
        att = (("Content-Type: application/pdf%s\nContent-Transfer-Encoding: base64\n"
                "Content-Disposition: attachment;\n\t%s\n\n") % (ctname, disp)).encode("utf-8")
        body = multipart(rng, "mixed", [first, att + b64_lines(data)])
    else:  # forward: text/plain + message/rfc822
        inner_sender = make_sender(rng)
        inner_t = t - rng.randint(3600, 30 * 86400)
        _, inner_date = format_date(inner_t, rng)
        inner_subj = rng.choice(SUBJECTS).replace("{n}", str(rng.randrange(1000, 20000)))
        inner = ("From: %s\nTo: %s\nSubject: %s\nDate: %s\nMessage-ID: <%d.fwd.%d@%s>\n"
                 "MIME-Version: 1.0\n" % (
                     inner_sender.header, sender.header, encode_phrase(inner_subj, rng),
                     inner_date, seq, rng.randrange(10 ** 9),
                     inner_sender.addr.split("@")[1])).encode("utf-8")
        inner += part_text_plain(rng, words_text(rng, rng.randint(2, 12)), "plain")
        intro = part_text_plain(rng, "Forwarding this, see below.\n\n-- \n%s\n"
                                % (sender.name if sender.name.isascii() else "Sent from my phone"),
                                "plain")
        fwd = b"Content-Type: message/rfc822\nContent-Disposition: inline\n\n" + inner
        body = multipart(rng, "mixed", [intro, fwd])
    raw = head + body
    return raw, {
        "sender": sender, "to": to, "cc": cc, "subject": subject, "subject_raw": subj_raw,
        "message_id": msgid, "date_header": date_hdr, "t": t, "kind": kind,
        "attachment": attachment,
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="Maildir to fill (cur/new/tmp are created)")
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--start-date", default="2023-12-01",
                    help="UTC date (YYYY-MM-DD) of the first message (default 2023-12-01)")
    ap.add_argument("--mean-gap", type=float, default=1800.0,
                    help="mean seconds between two messages (default 1800)")
    ap.add_argument("--manifest", help="write a JSON manifest of the messages here")
    ap.add_argument("--size-in-name", action="store_true",
                    help="add Dovecot's ,S=<size>,W=<crlf-size> to file names")
    ap.add_argument("--force", action="store_true",
                    help="empty the Maildir's cur/new/tmp first if they hold files")
    a = ap.parse_args(argv)
    if a.count < 0:
        ap.error("--count must be >= 0")

    start = dt.datetime.strptime(a.start_date, "%Y-%m-%d").replace(tzinfo=dt.timezone.utc)
    t = int(start.timestamp())
    for sub in ("cur", "new", "tmp"):
        os.makedirs(os.path.join(a.out, sub), exist_ok=True)
    existing = [(sub, f) for sub in ("cur", "new", "tmp")
                for f in os.listdir(os.path.join(a.out, sub))]
    if existing:
        if not a.force:
            sys.exit("generate-maildir: %s already holds %d messages (use --force to replace them)"
                     % (a.out, len(existing)))
        for sub, f in existing:
            os.unlink(os.path.join(a.out, sub, f))
        for f in os.listdir(a.out):
            if f.startswith("dovecot"):
                p = os.path.join(a.out, f)
                if os.path.isfile(p):
                    os.unlink(p)

    rng = random.Random(a.seed)
    cur = os.path.join(a.out, "cur")
    manifest = []
    for seq in range(1, a.count + 1):
        t += 1 + int(rng.expovariate(1.0 / a.mean_gap))
        raw, m = build_message(rng, seq, t)
        t = m["t"]  # a date without seconds rounds the instant up to a whole minute
        info, flags = flags_for(rng)
        crlf = len(raw) + raw.count(b"\n")
        base = "%d.%d.mailsearch" % (t, seq)
        if a.size_in_name:
            base += ",S=%d,W=%d" % (len(raw), crlf)
        name = base + ":2," + info
        path = os.path.join(cur, name)
        with open(path, "wb") as f:
            f.write(raw)
        os.utime(path, (t, t))
        if a.manifest:
            s = m["sender"]
            manifest.append({
                "uid": seq, "file": name, "message_id": m["message_id"],
                "subject": m["subject"], "subject_raw": m["subject_raw"],
                "from_name": s.name, "from": s.addr,
                "to": [p.addr for p in m["to"]], "cc": [p.addr for p in m["cc"]],
                "flags": flags,
                "date": dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "date_header": m["date_header"], "internaldate": t, "kind": m["kind"],
                "attachment": m["attachment"], "size": len(raw), "rfc822_size": crlf,
            })
    if a.manifest:
        with open(a.manifest, "w", encoding="utf-8") as f:
            json.dump({"seed": a.seed, "count": a.count, "start_date": a.start_date,
                       "mean_gap": a.mean_gap, "fields": MANIFEST_FIELDS,
                       "messages": manifest}, f, ensure_ascii=False, indent=None)
            f.write("\n")


if __name__ == "__main__":
    main()
