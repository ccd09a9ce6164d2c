import Foundation
import WebAuthn

/// What a `webauthn_registration` or `webauthn_assertion` matcher asks of a request value:
/// the credential (a browser's `PublicKeyCredential.toJSON()`) that the authenticator named
/// `authenticator` makes, at `origin`, for the options an earlier interaction answered and
/// saved whole (`save: { creation: $ }`).
///
/// ```yaml
/// json: { credential: { match: webauthn_registration, options: "{{creation}}", origin: "https://example.com", authenticator: mia-phone } }
/// json: { credential: { match: webauthn_assertion, options: "{{request}}", origin: "https://example.com", authenticator: mia-phone } }
/// ```
///
/// ```swift
/// let spec = WebAuthnSpec(.registration, options: "{{creation}}", origin: "https://example.com", authenticator: "mia-phone")
/// spec.variables   // ["creation"]
/// ```
public struct WebAuthnSpec: Sendable, Hashable {
    /// Which ceremony's response the value is.
    ///
    /// ```swift
    /// WebAuthnSpec.Ceremony.assertion.matcherName   // "webauthn_assertion"
    /// ```
    public enum Ceremony: String, Sendable, Hashable, CaseIterable {
        /// `navigator.credentials.create()`: a `RegistrationResponseJSON` for creation options.
        case registration
        /// `navigator.credentials.get()`: an `AuthenticationResponseJSON` for request options.
        case assertion

        /// The name after `match:`.
        public var matcherName: String { "webauthn_" + rawValue }
    }

    /// Which ceremony.
    public var ceremony: Ceremony
    /// The options, as written: a `{{name}}` placeholder of the value saved from their answer.
    public var options: String
    /// The origin the client data names (`https://example.com`).
    public var origin: String
    /// The authenticator's name: one software authenticator per name in a run, so a later
    /// assertion signs with the key its registration made.
    public var authenticator: String
    /// The key's algorithm (registrations).
    public var algorithm: SoftwareAuthenticator.Algorithm
    /// The attestation statement (registrations): `none` or packed self-attestation.
    public var attestation: SoftwareAuthenticator.Attestation
    /// Whether the authenticator says it verified the user (the UV flag).
    public var userVerified: Bool
    /// The saved options once ``options``' placeholder has a value (``Matcher/resolved(with:undefined:)``
    /// fills it in); nil before.
    public var savedOptions: JSONValue?

    /// Creates the options of a matcher; the defaults are those of a platform passkey.
    ///
    /// ```swift
    /// WebAuthnSpec(.registration, options: "{{creation}}", origin: "https://example.com", authenticator: "key", algorithm: .edDSA)
    /// ```
    public init(
        _ ceremony: Ceremony, options: String, origin: String, authenticator: String, algorithm: SoftwareAuthenticator.Algorithm = .es256,
        attestation: SoftwareAuthenticator.Attestation = .none, userVerified: Bool = true
    ) {
        self.ceremony = ceremony
        self.options = options
        self.origin = origin
        self.authenticator = authenticator
        self.algorithm = algorithm
        self.attestation = attestation
        self.userVerified = userVerified
    }

    /// The names of the `algorithm` option, as written in a contract.
    ///
    /// ```swift
    /// WebAuthnSpec.algorithmNames.map(\.name)   // ["ES256", "EdDSA"]
    /// ```
    public static let algorithmNames: [(name: String, value: SoftwareAuthenticator.Algorithm)] = [("ES256", .es256), ("EdDSA", .edDSA)]
    /// The names of the `attestation` option, as written in a contract.
    ///
    /// ```swift
    /// WebAuthnSpec.attestationNames.map(\.name)   // ["none", "packed"]
    /// ```
    public static let attestationNames: [(name: String, value: SoftwareAuthenticator.Attestation)] = [
        ("none", .none), ("packed", .packedSelf),
    ]

    /// The `{{name}}` placeholder of ``options``, while its value is not filled in.
    public var variables: [String] {
        guard savedOptions == nil, Template.mayHavePlaceholders(options) else { return [] }
        return Template(options).variables
    }

    /// The saved options: ``savedOptions``, else the value `known` holds under ``options``'
    /// placeholder; nil while it holds none.
    ///
    /// ```swift
    /// spec.savedOptions(with: ["creation": creationOptionsJSON])
    /// ```
    public func savedOptions(with known: [String: JSONValue]) -> JSONValue? {
        if let savedOptions { return savedOptions }
        guard Template.mayHavePlaceholders(options), let name = Template(options).soleVariable else { return nil }
        return known[name]
    }

    /// What the matcher expects, for reports.
    ///
    /// ```swift
    /// spec.summary   // "a WebAuthn registration by mia-phone at https://example.com for {{creation}}"
    /// ```
    public var summary: String {
        "a WebAuthn \(ceremony.rawValue) by \(authenticator) at \(origin) for \(options)"
    }

    /// The saved options of a registration, decoded.
    ///
    /// ```swift
    /// let options = try spec.creationOptions(saved)   // options.challenge, options.rp.id, …
    /// ```
    /// - Throws: a malformed `WebAuthnError` naming the member that is not as the type says.
    public func creationOptions(_ saved: JSONValue) throws(WebAuthnError) -> PublicKeyCredentialCreationOptionsJSON {
        try WebAuthnJSON.decode(PublicKeyCredentialCreationOptionsJSON.self, from: Data(saved.description.utf8))
    }

    /// The saved options of an assertion, decoded.
    ///
    /// ```swift
    /// let options = try spec.requestOptions(saved)   // options.challenge, options.rpId, …
    /// ```
    /// - Throws: a malformed `WebAuthnError` naming the member that is not as the type says.
    public func requestOptions(_ saved: JSONValue) throws(WebAuthnError) -> PublicKeyCredentialRequestOptionsJSON {
        try WebAuthnJSON.decode(PublicKeyCredentialRequestOptionsJSON.self, from: Data(saved.description.utf8))
    }

    /// The credential a request sends at `path`: `authenticators`' (a run's) for the saved
    /// options; the ``exampleCredential`` while the options are not saved (a contract checked
    /// alone).
    /// - Throws: ``MatcherSampleError`` without `authenticators`; what they throw.
    func credential(at path: String, authenticators: (any WebAuthnCredentialSource)?) throws -> JSONValue {
        guard let savedOptions else { return exampleCredential }
        guard let authenticators else {
            throw MatcherSampleError(
                path: path, reason: "a \(ceremony.matcherName) is made by the authenticators of a run, and none was given")
        }
        return try authenticators.credential(for: self, options: savedOptions, at: path)
    }

    /// Why `value` is not a response of this ceremony's shape (a `RegistrationResponseJSON`
    /// or an `AuthenticationResponseJSON`), or nil: what the matcher checks without a
    /// relying party.
    func shapeProblem(_ value: JSONValue) -> String? {
        let data = Data(value.description.utf8)
        do {
            switch ceremony {
            case .registration: _ = try WebAuthnJSON.decode(RegistrationResponseJSON.self, from: data)
            case .assertion: _ = try WebAuthnJSON.decode(AuthenticationResponseJSON.self, from: data)
            }
            return nil
        } catch {
            return "\(summary) (\(error))"
        }
    }

    /// Whether `text` is an origin as clients write them: `scheme://host` with an optional
    /// port and nothing after it, or an Android app's `android:apk-key-hash:…`.
    ///
    /// ```swift
    /// WebAuthnSpec.isOrigin("https://example.com")        // true
    /// WebAuthnSpec.isOrigin("https://example.com/login")  // false
    /// ```
    public static func isOrigin(_ text: String) -> Bool {
        if text.hasPrefix("android:apk-key-hash:") { return text.count > "android:apk-key-hash:".count }
        guard let components = URLComponents(string: text), let scheme = components.scheme, !scheme.isEmpty,
            let host = components.host, !host.isEmpty, components.path.isEmpty, components.query == nil, components.fragment == nil,
            components.user == nil, text.hasPrefix(scheme + "://")
        else { return false }
        return true
    }
}

/// `{ match: webauthn_registration | webauthn_assertion, options: "{{creation}}", origin: …,
/// authenticator: … }`, in requests only: the verifier's software authenticator makes a
/// credential for the saved options, the stub accepts one that verifies against them as a
/// relying party would.
extension WebAuthnSpec: MatcherKind {
    public static let names = Ceremony.allCases.map(\.matcherName)

    public static func parameters(of name: String) -> [String] {
        name == Ceremony.registration.matcherName
            ? ["options", "origin", "authenticator", "algorithm", "attestation", "user_verified"]
            : ["options", "origin", "authenticator", "user_verified"]
    }

    /// A credential answers a challenge: no example can be written down.
    public static var takesExample: Bool { false }

    /// `options` (a saved `{{name}}`), `origin` (`https://example.com`) and `authenticator`
    /// (a name) required; `user_verified` (true), and for a registration `algorithm` (ES256
    /// or EdDSA) and `attestation` (none or packed).
    public static func read(_ name: String, from arguments: inout some MatcherArguments) -> Self? {
        guard arguments.inRequest else {
            arguments.error(
                at: nil,
                "a \(name) matcher belongs in a request (a credential the verifier's authenticator makes), not in a response or a delivery")
            return nil
        }
        let ceremony: Ceremony = name == Ceremony.registration.matcherName ? .registration : .assertion
        let saved = ceremony == .registration ? "{{creation}}" : "{{request}}"
        let needs = [
            (
                "options",
                "the options an earlier interaction answered and saved whole, such as \"\(saved)\" from save: { \(saved.dropFirst(2).dropLast(2)): $ }"
            ),
            ("origin", "the origin the client is at, such as \"https://example.com\""),
            ("authenticator", "a name for the authenticator, such as mia-phone: its registration's key signs its assertions"),
        ]
        var texts: [String: String] = [:]
        var ok = true
        for (key, what) in needs {
            guard arguments.require(key, of: name, what), let text = arguments.string(key) else {
                ok = false
                continue
            }
            texts[key] = text
        }
        if let options = texts["options"], !(Template.mayHavePlaceholders(options) && Template(options).soleVariable != nil) {
            arguments.error(
                at: "options",
                "options must be a saved value such as \"\(saved)\" (the whole options an earlier interaction answered), not '\(options)'")
            ok = false
        }
        if let origin = texts["origin"], !isOrigin(origin) {
            arguments.error(
                at: "origin",
                "origin must be an origin such as https://example.com (a scheme, a host and perhaps a port; no path), not '\(origin)'")
            ok = false
        }
        if let authenticator = texts["authenticator"], authenticator.trimmingCharacters(in: .whitespaces).isEmpty {
            arguments.error(at: "authenticator", "authenticator must name the authenticator, such as mia-phone")
            ok = false
        }
        var spec = WebAuthnSpec(
            ceremony, options: texts["options"] ?? "", origin: texts["origin"] ?? "", authenticator: texts["authenticator"] ?? "")
        if arguments.has("algorithm") {
            if let algorithm = arguments.choice("algorithm", algorithmNames) { spec.algorithm = algorithm } else { ok = false }
        }
        if arguments.has("attestation") {
            if let attestation = arguments.choice("attestation", attestationNames) { spec.attestation = attestation } else { ok = false }
        }
        if arguments.has("user_verified") {
            if let verified = arguments.bool("user_verified") { spec.userVerified = verified } else { ok = false }
        }
        return ok ? spec : nil
    }

    public var name: String { ceremony.matcherName }

    public var arguments: [(key: String, value: MatcherArgument)] {
        let defaults = WebAuthnSpec(ceremony, options: options, origin: origin, authenticator: authenticator)
        var written: [(key: String, value: MatcherArgument)] = [
            ("options", .value(.string(options))), ("origin", .value(.string(origin))), ("authenticator", .value(.string(authenticator))),
        ]
        if algorithm != defaults.algorithm, let name = Self.algorithmNames.first(where: { $0.value == algorithm })?.name {
            written.append(("algorithm", .value(.string(name))))
        }
        if attestation != defaults.attestation, let name = Self.attestationNames.first(where: { $0.value == attestation })?.name {
            written.append(("attestation", .value(.string(name))))
        }
        if userVerified != defaults.userVerified { written.append(("user_verified", .value(.bool(userVerified)))) }
        return written
    }

    public var ownVariables: [String] { variables }

    public func resolvingOwn(with variables: [String: JSONValue], undefined: inout [String]) -> Self {
        guard !self.variables.isEmpty else { return self }
        guard let saved = savedOptions(with: variables) else {
            undefined += self.variables.filter { variables[$0] == nil }
            return self
        }
        var resolved = self
        resolved.savedOptions = saved
        return resolved
    }

    /// The shape: whether it verifies takes a relying party (the stub is one).
    public func mismatches(in actual: JSONValue, at path: String, strict: Bool) -> [Mismatch] {
        shapeProblem(actual).map { [Mismatch(path: path, expected: $0, actual: Mismatch.describe(actual))] } ?? []
    }

    public var jsonType: String? { "object" }
    /// The stub takes a credential only when it verifies, as narrow as a literal.
    public var specificity: Int { 4 }
    public var appliesToText: Bool { false }

    public func sample(at path: String, example: JSONValue?, with context: SampleContext) throws -> JSONValue {
        try credential(at: path, authenticators: context.authenticators)
    }

    public func jsonSchema(child: (Matcher) -> [String: JSONValue]) -> [String: JSONValue] { jsonSchema }

    /// Pact's `type` cascades: every member must be of the example's type.
    public func pact(_ pact: inout some PactRendering, at path: String, example: JSONValue?) -> JSONValue? {
        pact.addRules([PactMatchingRule.named("type")], at: path)
        pact.note(
            "\(path) is \(summary): Pact cannot sign one, so the verifier sends an example of its shape, which a provider refuses (contract verify signs a fresh one)"
        )
        return exampleCredential
    }
}

extension Matcher.Kind {
    /// A WebAuthn credential of `spec`'s ceremony (``WebAuthnSpec``).
    public static func webauthn(_ spec: WebAuthnSpec) -> Self { .typed(spec) }
}
