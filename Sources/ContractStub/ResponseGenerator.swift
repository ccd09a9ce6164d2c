import ContractKit
import Foundation

/// Builds a value that satisfies a matcher: literals as written, typed matchers from their
/// `example`, else generated (a `jwt` is a real token signed by the stub's key, a `jwks`
/// is that key's set).
struct ResponseGenerator {
    let signer: StubSigner

    /// A value for `matcher`, or nil with the reason when one cannot be made.
    func value(for matcher: Matcher, at path: String) throws -> JSONValue {
        switch matcher.kind {
        case .literal(let value):
            return value
        case .object(let members):
            var object: [String: JSONValue] = [:]
            for (key, member) in members { object[key] = try value(for: member, at: "\(path).\(key)") }
            return .object(object)
        case .array(let elements):
            return .array(try elements.enumerated().map { try value(for: $1, at: "\(path)[\($0)]") })
        case .jwt(let claims):
            // The signer's own claims where they satisfy the contract (a live `exp`), the
            // contract's example or a generated value where they do not.
            var standard = signer.claims(subject: "stub-user", lifetime: 900)
            for (name, claim) in claims.sorted(by: { $0.key < $1.key }) {
                if let current = standard[name], claim.mismatches(in: current).isEmpty { continue }
                standard[name] = try value(for: claim, at: "\(path).\(name)")
            }
            return .string(signer.token(claims: standard))
        case .jwks:
            return signer.jwks
        case .each(let element, let min, _):
            if let example = matcher.example { return example }
            return .array(try (0..<Swift.max(min ?? 1, 1)).map { try value(for: element, at: "\(path)[\($0)]") })
        default:
            if let example = matcher.example { return example }
            return try generated(matcher.kind, at: path)
        }
    }

    private func generated(_ kind: Matcher.Kind, at path: String) throws -> JSONValue {
        switch kind {
        case .string(let minLength, let maxLength):
            let length = Swift.min(Swift.max(minLength ?? 0, 24), maxLength ?? Int.max)
            return .string(Self.randomText(length: length))
        case .integer(let min, let max):
            return .integer(Int(min ?? Swift.min(1, max ?? 1)))
        case .number(let min, let max):
            return .number(min ?? Swift.min(1, max ?? 1))
        case .boolean: return .bool(true)
        case .null: return .null
        case .any: return .string("any")
        case .uuid: return .string(UUID().uuidString.lowercased())
        case .datetime: return .string(DateTimeFormat.string(from: Date()))
        case .regex(let pattern):
            throw StubBuildError(path: path, reason: "a regex matcher (/\(pattern)/) needs an example for the stub to answer with")
        case .literal, .object, .array, .each, .jwt, .jwks:
            return .null
        }
    }
}

extension ResponseGenerator {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// `length` random base64url characters, eight random bytes per call to the generator.
    static func randomText(length: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length)
        while bytes.count < length {
            var word = generator.next()
            for _ in 0..<Swift.min(8, length - bytes.count) {
                bytes.append(alphabet[Int(word & 63)])
                word >>= 8
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A response the stub cannot build from the contract.
struct StubBuildError: Error, CustomStringConvertible {
    let path: String
    let reason: String
    var description: String { "\(path): \(reason)" }
}
