public import FoundationEssentials
import IMAPCore

extension InMemoryMailService {
    /// A small mailbox for previews and demos, after the design documents' sample data: read and
    /// unread, pinned, with and without attachments, spread over the `days` before `now`.
    public static func sampleEmails(now: Date = Date()) -> [Email] {
        let samples:
            [(
                name: String, address: String, subject: String, preview: String, hoursAgo: Double, flags: [Flag],
                attachment: Bool
            )] = [
                (
                    "Albus Dumbledore", "albus@hogwarts.example", "About Nicolas Flamel",
                    "To the well-organized mind, death is but the next great adventure.", 2, [], false
                ),
                (
                    "Minerva McGonagall", "minerva@hogwarts.example", "Transfiguration timetable",
                    "The new timetable is attached; please check your Thursday slots.", 5, [.seen], true
                ),
                (
                    "Severus Snape", "severus@hogwarts.example", "Potions homework",
                    "Turn to page 394. Your essays on werewolves are due on Monday.", 20, [.seen, .flagged], false
                ),
                (
                    "Albus Dumbledore", "albus@hogwarts.example", "Thing about pain",
                    "Numbing the pain for a while will make it worse when you finally feel it.", 30, [], false
                ),
                (
                    "Hermione Granger", "hermione@hogwarts.example", "Library books",
                    "I renewed Hogwarts: A History for you, but it is due back on Friday.", 50, [.seen], false
                ),
                (
                    "Rubeus Hagrid", "hagrid@hogwarts.example", "Tea on Friday?",
                    "Come round for tea, I've got something to show you. Bring Ron.", 75, [.flagged], false
                ),
                (
                    "Gringotts Bank", "statements@gringotts.example", "Your vault statement",
                    "Your statement for vault 687 is ready. See the attached PDF.", 120, [.seen], true
                ),
                (
                    "Ron Weasley", "ron@hogwarts.example", "Quidditch practice moved",
                    "Wood says practice is at six now, not seven. Don't be late.", 170, [.seen], false
                ),
                (
                    "Luna Lovegood", "luna@hogwarts.example", "The Quibbler, new issue",
                    "This month: Crumple-Horned Snorkacks spotted in Sweden.", 260, [], true
                ),
                (
                    "Neville Longbottom", "neville@hogwarts.example", "Mimbulus mimbletonia",
                    "My plant flowered! Professor Sprout says it is very rare.", 400, [.seen], false
                ),
            ]
        return samples.enumerated().map { index, sample in
            Email(
                id: Email.ID(mailbox: "INBOX", uidValidity: 1, uid: UInt32(index + 1)),
                from: Email.Person(name: sample.name, address: sample.address),
                to: [Email.Person(name: "Harry Potter", address: "harry@hogwarts.example")], subject: sample.subject,
                date: now.addingTimeInterval(-sample.hoursAgo * 3600), preview: sample.preview, flags: sample.flags,
                hasAttachment: sample.attachment, size: 2_000 + 700 * index)
        }
    }
}
