import ContractKit
import Foundation

/// What a recorded string looks like: a value that changes from run to run (a UUID, a JWT,
/// an RFC 3339 time, a long random token) or a fixed one.
///
/// ```swift
/// ValueShape("0b6c5a3e-2f1d-4a49-9c55-0f8e3c2d1a7b")   // .kind(.uuid)
/// ValueShape("invalid_request")                        // .fixed
/// ```
enum ValueShape: Equatable {
    /// Made by a kind of matcher (``MatcherKinds/recognizing(recorded:)``: a UUID, a JWT, a time).
    case kind(Matcher.Kind)
    case random, fixed

    init(_ text: String) {
        if let kind = MatcherKinds.recognizing(recorded: text) {
            self = .kind(kind)
        } else if Self.looksRandom(text) {
            self = .random
        } else {
            self = .fixed
        }
    }

    /// Whether a value of this shape is likely to differ on the next run.
    var varies: Bool { self != .fixed }

    /// The matcher for a value of this shape.
    func matcher(for text: String, example: Bool) -> Matcher {
        let kind: Matcher.Kind =
            switch self {
            case .kind(let kind): kind
            case .random: .string(minLength: text.count, maxLength: nil)
            case .fixed: .literal(.string(text))
            }
        return Matcher(kind, example: example ? .string(text) : nil)
    }

    /// At least 16 characters of a token alphabet, with letters and digits mixed in.
    private static func looksRandom(_ text: String) -> Bool {
        guard text.count >= 16 else { return false }
        var letters = false
        var digits = false
        for scalar in text.unicodeScalars {
            switch scalar {
            case "a"..."z", "A"..."Z": letters = true
            case "0"..."9": digits = true
            case "-", "_", "+", "/", "=", ".", "~": break
            default: return false
            }
        }
        return letters && digits
    }
}
