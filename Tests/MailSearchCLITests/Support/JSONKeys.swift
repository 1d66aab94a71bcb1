import Foundation

/// The keys of a JSON object line in the order they appear at its top level (Foundation's
/// parser forgets the order, which the spec fixes).
func topLevelKeys(_ line: String) -> [String] {
    var keys: [String] = []
    var depth = 0
    var inString = false
    var escaped = false
    var current = ""
    var expectingKey = false
    for character in line {
        if inString {
            if escaped {
                escaped = false
                current.append(character)
            } else if character == "\\" {
                escaped = true
                current.append(character)
            } else if character == "\"" {
                inString = false
                if depth == 1 && expectingKey { keys.append(current) }
                expectingKey = false
            } else {
                current.append(character)
            }
            continue
        }
        switch character {
        case "\"":
            inString = true
            current = ""
        case "{", "[":
            depth += 1
            if character == "{" && depth == 1 { expectingKey = true }
        case "}", "]": depth -= 1
        case ",": if depth == 1 { expectingKey = true }
        default: break
        }
    }
    return keys
}

/// The keys of docs/cli.md's JSON lines, in order.
let emailKeys = [
    "uid", "mailbox", "from", "to", "subject", "date", "preview", "read", "pinned", "flags", "hasAttachment", "size",
]
