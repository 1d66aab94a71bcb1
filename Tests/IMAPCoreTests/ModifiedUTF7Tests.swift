import IMAPCore
import Testing

@Suite struct ModifiedUTF7Tests {
    /// Names and their modified UTF-7, checked in both directions.
    static let pairs: [(String, String)] = [
        ("~peter/mail/台北/日本語", "~peter/mail/&U,BTFw-/&ZeVnLIqe-"),
        ("&", "&-"),
        ("Tom & Jerry", "Tom &- Jerry"),
        ("INBOX", "INBOX"),
        ("", ""),
        ("😀", "&2D3eAA-"),
        ("👨‍👩‍👧", "&2D3caCAN2D3caSAN2D3cZw-"),
        ("Entwürfe", "Entw&APw-rfe"),
        ("Pièces jointes", "Pi&AOg-ces jointes"),
        ("Корзина", "&BBoEPgRABDcEOAQ9BDA-"),
        ("日本語 & 台北", "&ZeVnLIqe- &- &U,BTFw-"),
        ("Ä&Ö", "&AMQ-&-&ANY-"),
        ("a\tb", "a&AAk-b"),
        ("€", "&IKw-"),
        ("Üb/Ü?", "&ANw-b/&ANw-?"),
        ("[Gmail]/Gesendet", "[Gmail]/Gesendet"),
    ]

    @Test(arguments: pairs)
    func encodes(name: String, encoded: String) {
        #expect(ModifiedUTF7.encode(name) == Array(encoded.utf8))
    }

    @Test(arguments: pairs)
    func decodes(name: String, encoded: String) {
        #expect(ModifiedUTF7.decode(Array(encoded.utf8)) == name)
    }

    @Test(arguments: [
        "&",
        "abc&",
        "&U,BTFw",
        "&U/BTFw-",
        "&U=BTFw-",
        "&ZeV-",
        "&Ze-",
        "&Z-",
        "&ZeVn-",
        "&AGE-",
        "&ACY-",
        "&2D0-",
        "&2D3YPQ-",
        "&3gA-",
        "&ZeVnLIqe-&U,BTFw-",
        "caf\u{E9}",
        "tab\there",
        "del\u{7F}",
    ])
    func rejectsInvalidNames(encoded: String) {
        #expect(ModifiedUTF7.decode(Array(encoded.utf8)) == nil)
    }

    @Test(arguments: [
        "",
        " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~",
        "Archiv/2024/Rechnungen & Belege/Ärger",
        "\u{0}\u{1F}\u{7F}\u{80}\u{FFFD}\u{10FFFF}",
        "🇯🇵&🇩🇪-&-",
        "日本語のフォルダ名がとても長い場合でも正しく往復できること",
    ])
    func roundTrips(name: String) {
        let encoded = ModifiedUTF7.encode(name)
        #expect(ModifiedUTF7.decode(encoded) == name)
        #expect(encoded.allSatisfy { (0x20...0x7E).contains($0) })
    }

    @Test func decodesAnyCollectionOfBytes() {
        let wire: ArraySlice<UInt8> = Array("x~peter/mail/&U,BTFw-".utf8)[1...]
        #expect(ModifiedUTF7.decode(wire) == "~peter/mail/台北")
        #expect(ModifiedUTF7.decode("Entw&APw-rfe".utf8) == "Entwürfe")
    }

    // MARK: MailboxName

    @Test(arguments: [
        ("~peter/mail/&U,BTFw-/&ZeVnLIqe-", "~peter/mail/台北/日本語"),
        ("Tom &- Jerry", "Tom & Jerry"),
        ("Entwürfe", "Entwürfe"),
        ("R&D", "R&D"),
        ("&ZeV-", "&ZeV-"),
        ("inbox", "INBOX"),
    ])
    func showsDisplayName(wire: String, displayName: String) {
        #expect(MailboxName(wire: wire).displayName == displayName)
    }

    @Test(arguments: pairs)
    func makesNameFromDisplayName(name: String, encoded: String) {
        let mailbox = MailboxName(displayName: name)
        #expect(mailbox.bytes == ByteString(encoded))
        #expect(mailbox.displayName == name)
    }

    @Test func displayNameInboxIsInbox() {
        #expect(MailboxName(displayName: "Inbox").isInbox)
        #expect(MailboxName(displayName: "Inbox") == .inbox)
    }
}
