import ContractKit
import Foundation

/// Java date-format patterns (as Pact's `date`, `time` and `timestamp` rules carry them)
/// as regular expressions.
///
/// ```swift
/// PactDateFormat.regex("yyyy-MM-dd")   // #"\d{4}-\d{2}-\d{2}"#
/// ```
enum PactDateFormat {
    /// The regex, or nil for letters it does not know.
    static func regex(_ format: String) -> String? {
        var pattern = ""
        let characters = Array(format)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character == "'" {
                // Quoted literal text; '' is a quote.
                var end = index + 1
                var literal = ""
                while end < characters.count, characters[end] != "'" {
                    literal.append(characters[end])
                    end += 1
                }
                pattern += literal.isEmpty ? "'" : NSRegularExpression.escapedPattern(for: literal)
                index = end + 1
                continue
            }
            guard character.isLetter else {
                pattern += NSRegularExpression.escapedPattern(for: String(character))
                index += 1
                continue
            }
            var count = 1
            while index + count < characters.count, characters[index + count] == character { count += 1 }
            index += count
            switch character {
            case "y", "u": pattern += count == 2 ? #"\d{2}"# : #"\d{4}"#
            case "M", "L": pattern += count >= 3 ? "[A-Za-z]+" : (count == 2 ? #"\d{2}"# : #"\d{1,2}"#)
            case "d", "H", "h", "k", "K", "m", "s": pattern += count == 2 ? #"\d{2}"# : #"\d{1,2}"#
            case "S": pattern += #"\d{\#(count)}"#
            case "D": pattern += #"\d{1,3}"#
            case "E": pattern += "[A-Za-z]+"
            case "a": pattern += "(AM|PM|am|pm)"
            case "X": pattern += count == 1 ? #"(Z|[+-]\d{2}(\d{2})?)"# : (count == 2 ? #"(Z|[+-]\d{4})"# : #"(Z|[+-]\d{2}:\d{2})"#)
            case "x": pattern += count >= 3 ? #"[+-]\d{2}:\d{2}"# : #"[+-]\d{2}(\d{2})?"#
            case "Z": pattern += #"[+-]\d{4}"#
            case "z": pattern += "[A-Za-z]+"
            default: return nil
            }
        }
        return pattern
    }
}
