import Foundation
import JOSE

/// `{ match: jwt, claims: { sub: "{{user_id}}" } }`: a compact JWT whose header and payload
/// are JSON objects, and whose payload's claims match `claims` (claims not listed are free).
/// The stub mints its tokens with claims that satisfy them. With `signed: true`, in a
/// request's JSON, `contract verify` sends a token its run's identity provider signs (an ID
/// token of an upstream provider the service under test trusts: ``SampleContext/identityProvider``).
public struct JWTMatcher: MatcherKind {
    public var claims: [String: Matcher]
    /// Whether a run sends a token of its own identity provider rather than the example.
    public var signed: Bool

    public init(claims: [String: Matcher], signed: Bool = false) {
        self.claims = claims
        self.signed = signed
    }

    public static let names = ["jwt"]
    public static func parameters(of name: String) -> [String] { ["claims", "signed"] }

    public static func read(_ name: String, from arguments: inout some MatcherArguments) -> Self? {
        var signed = false
        if arguments.has("signed") {
            guard let value = arguments.bool("signed") else { return nil }
            signed = value
        }
        guard arguments.has("claims") else { return Self(claims: [:], signed: signed) }
        return arguments.members("claims", as: { "claim '\($0)'" }).map { Self(claims: $0, signed: signed) }
    }

    /// The media type RFC 7519 registers (`contentMediaType: application/jwt`).
    public static func recognizing(schema: [String: JSONValue]) -> Self? {
        guard case .string(let type)? = schema["contentMediaType"], type.lowercased().hasPrefix("application/jwt") else { return nil }
        return Self(claims: [:])
    }

    public static func recognizing(recorded text: String) -> Self? {
        text.count > 20 && text.contains(".") && JWTShape.isJWT(text) ? Self(claims: [:]) : nil
    }

    public var arguments: [(key: String, value: MatcherArgument)] {
        (claims.isEmpty ? [] : [("claims", .members(claims))]) + (signed ? [("signed", .value(.bool(true)))] : [])
    }
    public var children: [Matcher] { claims.keys.sorted().compactMap { claims[$0] } }
    public func mapChildren(_ transform: (Matcher) -> Matcher) -> Self { Self(claims: claims.mapValues(transform), signed: signed) }
    public func matcher(forKey key: String) -> Matcher? { claims[key] }

    public func mismatches(in actual: JSONValue, at path: String, strict: Bool) -> [Mismatch] {
        guard case .string(let text) = actual, JWTShape.isJWT(text) else {
            return [Mismatch(path: path, expected: "a JWT (header.payload.signature)", actual: Mismatch.describe(actual))]
        }
        guard !claims.isEmpty else { return [] }
        let payload = JWTShape.payload(of: text) ?? .object([:])
        return Matcher(.object(claims)).mismatches(in: payload, at: path, strict: false)
    }

    public var summary: String { claims.isEmpty ? "a JWT" : "a JWT with claims \(claims.keys.sorted().joined(separator: ", "))" }
    public var jsonType: String? { "string" }

    /// The run's identity provider's token (`signed`), else the minter's, else the example.
    public func sample(at path: String, example: JSONValue?, with context: SampleContext) throws -> JSONValue {
        if signed, let identityProvider = context.identityProvider { return try identityProvider.jwt(claims: claims, at: path) }
        if let minter = context.minter { return try minter.jwt(claims: claims, at: path) }
        if let example { return example }
        throw MatcherSampleError(path: path, reason: "a jwt matcher needs an example")
    }

    public func jsonSchema(child: (Matcher) -> [String: JSONValue]) -> [String: JSONValue] {
        [
            "type": "string", "pattern": .string(JWTShape.pattern), "contentMediaType": "application/jwt",
            "description": .string(
                claims.isEmpty ? "A compact JWT." : "A compact JWT with the claims \(claims.keys.sorted().joined(separator: ", "))."),
        ]
    }

    public func pact(_ pact: inout some PactRendering, at path: String, example: JSONValue?) -> JSONValue? {
        if signed {
            pact.note(
                "\(path) is a JWT of the run's identity provider: Pact cannot sign one, so the verifier sends the example, which a provider refuses (contract verify signs a fresh one)"
            )
        } else if !claims.isEmpty {
            pact.note(
                "\(path) is a JWT whose claims \(claims.keys.sorted().joined(separator: ", ")) the contract checks: Pact checks its shape only"
            )
        }
        pact.addRules([PactMatchingRule.regex(String(JWTShape.pattern.dropFirst().dropLast()))], at: path)
        if let example { return example }
        var scratch = PactScratch()
        let payload = Data(JSONValue.object(claims.mapValues { scratch.value($0, at: "$", cascaded: false) ?? .null }).description.utf8)
        return .string(
            CompactJWS.serialize(header: Data(#"{"alg":"EdDSA","typ":"JWT"}"#.utf8), payload: payload) { _ in Data("signature".utf8) })
    }

    /// By their claims, as objects.
    public func breadth(becoming new: Matcher.Kind, compare: (Matcher, Matcher) -> MatcherBreadth) -> MatcherBreadth? {
        new.as(Self.self).map { compare(Matcher(.object(claims)), Matcher(.object($0.claims))) }
    }
}

extension Matcher.Kind {
    /// A compact JWT with these claims (``JWTMatcher``).
    public static func jwt(claims: [String: Matcher]) -> Self { .typed(JWTMatcher(claims: claims)) }
}
