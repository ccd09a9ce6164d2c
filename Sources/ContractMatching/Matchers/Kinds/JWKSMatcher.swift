import Foundation
import JOSE

/// `{ match: jwks, min: 1 }`: a JSON Web Key Set (RFC 7517) of `min...max` keys, each with
/// `kty` and `kid`; Ed25519 keys (`kty: OKP`) with `crv` and a 32-byte base64url `x`. The stub
/// answers it with its own signing key, the one its `jwt`s are signed with.
public struct JWKSMatcher: MatcherKind {
    public var min: Int?
    public var max: Int?

    public init(min: Int?, max: Int?) {
        self.min = min
        self.max = max
    }

    public static let names = ["jwks"]
    public static func parameters(of name: String) -> [String] { ["min", "max"] }

    public static func read(_ name: String, from arguments: inout some MatcherArguments) -> Self? {
        Self(min: arguments.integer("min"), max: arguments.integer("max"))
    }

    public var arguments: [(key: String, value: MatcherArgument)] {
        Bounds.arguments([("min", min.map(JSONValue.integer)), ("max", max.map(JSONValue.integer))])
    }

    public func mismatches(in actual: JSONValue, at path: String, strict: Bool) -> [Mismatch] {
        guard case .object(let set) = actual, case .array(let keys)? = set["keys"] else {
            return [Mismatch(path: path, expected: "a JWK Set ({\"keys\": […]})", actual: Mismatch.describe(actual))]
        }
        let keysPath = Matcher.childPath(path, "keys")
        if let min, keys.count < min { return [Mismatch(path: keysPath, expected: "at least \(min) keys", actual: "\(keys.count)")] }
        if let max, keys.count > max { return [Mismatch(path: keysPath, expected: "at most \(max) keys", actual: "\(keys.count)")] }
        return keys.enumerated().flatMap { index, key in Self.problems(of: key, at: "\(keysPath)[\(index)]") }
    }

    /// Every way `key` is not a usable JWK.
    private static func problems(of key: JSONValue, at keyPath: String) -> [Mismatch] {
        guard case .object(let members) = key else {
            return [Mismatch(path: keyPath, expected: "a JWK object", actual: Mismatch.describe(key))]
        }
        func missing(_ name: String, _ expected: String) -> Mismatch {
            Mismatch(
                path: Matcher.childPath(keyPath, name), expected: expected,
                actual: members[name].map(Mismatch.describe) ?? "nothing (key missing)")
        }
        var found: [Mismatch] = []
        for name in ["kty", "kid"] {
            guard case .string(let text)? = members[name], !text.isEmpty else {
                found.append(missing(name, "a non-empty string"))
                continue
            }
        }
        if members["kty"] == .string("OKP") {
            if members["crv"] != .string("Ed25519") { found.append(missing("crv", #""Ed25519""#)) }
            guard case .string(let x)? = members["x"], Base64URL.decode(x)?.count == 32 else {
                found.append(missing("x", "a 32-byte base64url public key"))
                return found
            }
        }
        return found
    }

    public var summary: String { "a JWK Set" }
    public var jsonType: String? { "object" }

    /// The minter's key set, else the example.
    public func sample(at path: String, example: JSONValue?, with context: SampleContext) throws -> JSONValue {
        if let minter = context.minter { return minter.jwks }
        if let example { return example }
        throw MatcherSampleError(path: path, reason: "a jwks matcher needs an example")
    }

    public func jsonSchema(child: (Matcher) -> [String: JSONValue]) -> [String: JSONValue] {
        var keys: [String: JSONValue] = [
            "type": "array",
            "items": [
                "type": "object", "required": ["kty", "kid"],
                "properties": ["kty": ["type": "string", "minLength": 1], "kid": ["type": "string", "minLength": 1]],
            ],
        ]
        keys["minItems"] = min.map(JSONValue.integer)
        keys["maxItems"] = max.map(JSONValue.integer)
        return [
            "type": "object", "required": ["keys"], "properties": ["keys": .object(keys)], "description": "A JSON Web Key Set (RFC 7517).",
        ]
    }

    public func pact(_ pact: inout some PactRendering, at path: String, example: JSONValue?) -> JSONValue? {
        let keys = PactMatchingRule.path(path, key: "keys")
        pact.addRules([PactMatchingRule.array(min: min, max: max)], at: keys)
        pact.addRules([PactMatchingRule.named("type")], at: PactMatchingRule.path("\(keys)[*]", key: "kty"))
        pact.addRules([PactMatchingRule.named("type")], at: PactMatchingRule.path("\(keys)[*]", key: "kid"))
        pact.note("\(path) is a JSON Web Key Set: Pact checks that its keys have a kty and a kid, not that they are Ed25519 keys")
        // Only what every key has: a set may hold keys of several types (Ed25519, RSA, P-256).
        let key: JSONValue = ["kty": "OKP", "kid": "example", "use": "sig", "alg": "EdDSA"]
        return example ?? ["keys": .array(Array(repeating: key, count: Swift.max(min ?? 1, 1)))]
    }

    public func breadth(becoming new: Matcher.Kind, compare: (Matcher, Matcher) -> MatcherBreadth) -> MatcherBreadth? {
        new.as(Self.self).map { .counts(old: (min, max), new: ($0.min, $0.max)) }
    }
}

extension Matcher.Kind {
    /// A JSON Web Key Set of `min...max` keys (``JWKSMatcher``).
    public static func jwks(min: Int?, max: Int?) -> Self { .typed(JWKSMatcher(min: min, max: max)) }
}
