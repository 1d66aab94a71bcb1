import Foundation
import IMAPCore
import MailMIME
import MailSearch
import TestSupport
import Testing

@Suite(.hangGuard) struct EmailTests {
    let id = Email.ID(mailbox: "INBOX", uidValidity: 7, uid: 42)

    @Test func mapsTheDecodedSummary() {
        var envelope = MailEnvelope()
        envelope.date = Array("Fri, 01 Dec 2023 00:13:23 -0800".utf8)
        envelope.subject = Array("=?UTF-8?Q?R=C3=A9union?=".utf8)
        envelope.from = [
            .init(
                name: Array("Albus Dumbledore".utf8), mailbox: Array("albus".utf8), host: Array("hogwarts.example".utf8)
            )
        ]
        envelope.to = [.init(name: nil, mailbox: Array("harry".utf8), host: Array("hogwarts.example".utf8))]
        let summary = MailSummary(
            envelope: envelope, preview: "To the well-organized mind", hasAttachment: true, size: 3761,
            flags: ["\\Seen"])
        let email = Email(id: id, summary: summary, receivedDate: nil, flags: [.seen, .recent], pinFlag: .flagged)
        #expect(email.from.name == "Albus Dumbledore" && email.from.address == "albus@hogwarts.example")
        #expect(email.from.initials == "AD")
        #expect(email.to.map(\.address) == ["harry@hogwarts.example"])
        #expect(email.subject == "Réunion")
        #expect(email.date == Date(timeIntervalSince1970: 1_701_418_403))
        #expect(email.preview == "To the well-organized mind")
        #expect(email.isRead && !email.isPinned)
        #expect(email.flags == [.seen])
        #expect(email.hasAttachment && email.size == 3761)
        #expect(email.uid == 42 && email.mailbox == "INBOX" && email.id.description == "INBOX/7/42")
    }

    @Test func withoutADateHeaderTheReceivedDateIsUsed() {
        let received = Date(timeIntervalSince1970: 1_700_000_000)
        let email = Email(
            id: id, summary: MailSummary(subject: "x"), receivedDate: received, flags: [], pinFlag: .flagged)
        #expect(email.date == received)
        #expect(email.from.address.isEmpty && email.from.initials.isEmpty)
    }

    @Test func readAndPinnedFollowTheFlagsAndThePinFlag() {
        let pin = Flag("$Pinned")
        let email = Email(
            id: id, from: Email.Person(name: "Minerva McGonagall", address: "m@h.example"), subject: "s",
            date: Date(timeIntervalSince1970: 0), flags: [.flagged], pinFlag: pin)
        #expect(!email.isPinned && !email.isRead)
        let pinned = email.setting(pin, true, pinFlag: pin)
        #expect(pinned.isPinned && pinned.flags == [.flagged, pin])
        let read = pinned.setting(.seen, true, pinFlag: pin)
        #expect(read.isRead && read.isPinned)
        let unpinned = read.setting(pin, false, pinFlag: pin)
        #expect(!unpinned.isPinned && unpinned.flags == [.flagged, .seen])
        // Identity does not depend on content or flags.
        #expect(unpinned.id == email.id)
        #expect(email.from.initials == "MM")
    }
}
