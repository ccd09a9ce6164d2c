import Foundation
import JOSE
import WebForms

/// `{ match: basic_auth, username: …, password: … }`, usually the value of `Authorization`:
/// `Basic base64(username:password)` whose two parts match their matchers. The verifier sends
/// the credentials of both parts' values; a password that does not match is reported without
/// being shown.
///
/// ```swift
/// let matcher = Matcher(.basicAuth(username: Matcher(.literal(.string("client"))), password: Matcher(.literal(.string("s3cret")))))
/// matcher.mismatches(in: .string(BasicCredentials.header(username: "client", password: "wrong")))
/// // ["$ password: expected the contract's password, got the password does not match"]
/// ```
public struct BasicAuthMatcher: MatcherKind {
    public var username: Matcher
    public var password: Matcher

    public init(username: Matcher, password: Matcher) {
        self.username = username
        self.password = password
    }

    public static let names = ["basic_auth"]
    public static func parameters(of name: String) -> [String] { ["username", "password"] }
    /// Its parts have values: no example is needed.
    public static var takesExample: Bool { false }

    public static func read(_ name: String, from arguments: inout some MatcherArguments) -> Self? {
        guard arguments.has("username"), arguments.has("password") else {
            arguments.error(
                at: nil, "matcher 'basic_auth' needs 'username' and 'password' (each a literal, a \"{{saved}}\" value or a matcher of text)"
            )
            return nil
        }
        guard let username = arguments.matcher("username", as: "the basic_auth username", member: false, text: true),
            let password = arguments.matcher("password", as: "the basic_auth password", member: false, text: true)
        else { return nil }
        if case .literal(.string(let text)) = username.kind, text.contains(":") {
            arguments.error(at: "username", "a basic_auth username cannot hold ':' (RFC 7617), not '\(text)'")
            return nil
        }
        return Self(username: username, password: password)
    }

    public var arguments: [(key: String, value: MatcherArgument)] { [("username", .matcher(username)), ("password", .matcher(password))] }
    public var children: [Matcher] { [username, password] }
    public func mapChildren(_ transform: (Matcher) -> Matcher) -> Self {
        Self(username: transform(username), password: transform(password))
    }

    /// Not Basic credentials, a username that fails its matcher, or a password that does.
    public func mismatches(in actual: JSONValue, at path: String, strict: Bool) -> [Mismatch] {
        guard case .string(let text) = actual, let credentials = BasicCredentials.decode(text) else {
            // The value may be someone's credentials: its type is said, not the value.
            return [
                Mismatch(
                    path: path, expected: "HTTP Basic credentials (Basic base64(username:password))",
                    actual: "a value that is not (not shown)")
            ]
        }
        var found = username.mismatches(inText: credentials.username, at: "\(path) username")
        if !Self.passwordMatches(password, credentials.password) {
            found.append(Mismatch(path: "\(path) password", expected: "the contract's password", actual: "the password does not match"))
        }
        return found
    }

    /// Whether `password` matches the contract's `expected`: a literal is compared in
    /// constant time, a matcher of text by its rules. The caller fills placeholders first.
    ///
    /// ```swift
    /// BasicAuthMatcher.passwordMatches(Matcher(.literal(.string("s3cret"))), "s3cret")             // true
    /// BasicAuthMatcher.passwordMatches(Matcher(.string(minLength: 8, maxLength: nil)), "short")   // false
    /// ```
    public static func passwordMatches(_ expected: Matcher, _ password: String) -> Bool {
        if case .literal(.string(let literal)) = expected.kind {
            return ConstantTime.equal(Array(literal.utf8), Array(password.utf8))
        }
        return expected.mismatches(inText: password, at: "$").isEmpty
    }

    public var summary: String { "HTTP Basic credentials of username \(username.summary)" }
    public var jsonType: String? { "string" }
    /// As narrow as its wider part.
    public var specificity: Int { Swift.min(username.specificity, password.specificity) }

    /// The `Basic …` value of its username's and password's values.
    public func sample(at path: String, example: JSONValue?, with context: SampleContext) throws -> JSONValue {
        .string(
            BasicCredentials.header(
                username: try context.sample(username, at: "\(path) username").text,
                password: try context.sample(password, at: "\(path) password").text))
    }

    /// The operation's `basicAuth` security scheme says what it is; the value is the header's.
    public func jsonSchema(child: (Matcher) -> [String: JSONValue]) -> [String: JSONValue] {
        ["type": "string", "pattern": "^[Bb][Aa][Ss][Ii][Cc] [A-Za-z0-9+/=]+$", "description": "HTTP Basic credentials (RFC 7617)."]
    }

    public func pact(_ pact: inout some PactRendering, at path: String, example: JSONValue?) -> JSONValue? {
        pact.note("\(path) is HTTP Basic credentials: Pact checks the scheme and the base64 only, not the username and password")
        pact.addRules([PactMatchingRule.regex("Basic [A-Za-z0-9+/=]+")], at: path)
        return .string(BasicCredentials.header(username: username.pactExample.text, password: password.pactExample.text))
    }
}

extension Matcher.Kind {
    /// HTTP Basic credentials whose parts match `username` and `password` (``BasicAuthMatcher``).
    public static func basicAuth(username: Matcher, password: Matcher) -> Self {
        .typed(BasicAuthMatcher(username: username, password: password))
    }
}
