import FoundationEssentials
import IMAPCore
import MailMIME

/// Decides in memory whether a message matches a query, the way a server's SEARCH would for the
/// fields an ``InMemoryMailService`` holds: text matches are case-insensitive substrings, dates
/// compare calendar days in the local time zone.
struct QueryMatcher {
    var today: IMAPDate
    var pinFlag: Flag
    var now: Date
    var timeZone = TimeZone.current

    func matches(_ query: Query, _ message: InMemoryMailService.Message) -> Bool {
        switch query {
        case .all: return true
        case .term(let term): return matches(term, message)
        case .and(let parts): return parts.allSatisfy { matches($0, message) }
        case .or(let left, let right): return matches(left, message) || matches(right, message)
        case .not(let inner): return !matches(inner, message)
        }
    }

    private func matches(_ term: QueryTerm, _ message: InMemoryMailService.Message) -> Bool {
        let email = message.email
        let received = SearchContext.day(of: message.receivedDate, in: timeZone)
        let sent = SearchContext.day(of: email.date, in: timeZone)
        switch term {
        case .text(let text):
            return people(email.from, email.to, email.cc).contains(text) || has(email.subject, text)
                || has(message.body, text)
        case .from(let text): return people(email.from).contains(text)
        case .to(let text): return people(email.to).contains(text)
        case .cc(let text): return people(email.cc).contains(text)
        case .bcc: return false
        case .subject(let text): return has(email.subject, text)
        case .body(let text): return has(message.body, text)
        case .fullText(let text):
            return people(email.from, email.to, email.cc).contains(text) || has(email.subject, text)
                || has(message.body, text)
        case .header(let name, let value):
            switch name.lowercased() {
            case "subject": return has(email.subject, value)
            case "from": return people(email.from).contains(value)
            case "to": return people(email.to).contains(value)
            case "cc": return people(email.cc).contains(value)
            default: return false
            }
        case .flag(let flag): return matches(flag, email.flags)
        case .hasAttachment: return email.hasAttachment
        case .receivedAfter(let date): return received >= date.start(today: today)
        case .receivedBefore(let date): return received < date.start(today: today)
        case .receivedOn(let date): return received >= date.start(today: today) && received <= date.end(today: today)
        case .receivedBetween(let from, let through):
            return (from.map { received >= $0.start(today: today) } ?? true)
                && (through.map { received <= $0.end(today: today) } ?? true)
        case .sentAfter(let date): return sent >= date.start(today: today)
        case .sentBefore(let date): return sent < date.start(today: today)
        case .newerThan(let age): return received >= age.day(before: today)
        case .olderThan(let age): return received < age.day(before: today)
        case .larger(let size): return UInt64(max(email.size, 0)) > size
        case .smaller(let size): return UInt64(max(email.size, 0)) < size
        case .uid(let set): return set.contains(email.uid)
        case .raw: return false
        case .mailbox: return true
        }
    }

    private func matches(_ flag: QueryFlag, _ flags: [Flag]) -> Bool {
        switch flag {
        case .unread: return !flags.contains(.seen)
        case .read: return flags.contains(.seen)
        case .pinned: return flags.contains(pinFlag)
        case .unpinned: return !flags.contains(pinFlag)
        case .flagged: return flags.contains(.flagged)
        case .unflagged: return !flags.contains(.flagged)
        case .answered: return flags.contains(.answered)
        case .draft: return flags.contains(.draft)
        case .deleted: return flags.contains(.deleted)
        }
    }

    private func has(_ haystack: String, _ needle: String) -> Bool {
        CaseFolding.contains(haystack, needle)
    }

    private func people(_ groups: Email.Person...) -> PeopleMatch { PeopleMatch(people: groups, matcher: self) }
    private func people(_ first: Email.Person, _ to: [Email.Person], _ cc: [Email.Person]) -> PeopleMatch {
        PeopleMatch(people: [first] + to + cc, matcher: self)
    }
    private func people(_ list: [Email.Person]) -> PeopleMatch { PeopleMatch(people: list, matcher: self) }

    private struct PeopleMatch {
        var people: [Email.Person]
        var matcher: QueryMatcher
        func contains(_ text: String) -> Bool {
            people.contains { matcher.has($0.name ?? "", text) || matcher.has($0.address, text) }
        }
    }
}
