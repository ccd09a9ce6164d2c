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
    /// options; a throwaway authenticator's registration without them; the
    /// ``exampleCredential`` while the options are not saved (a contract checked alone).
    /// - Throws: ``WebAuthnAuthenticators/NoCredential``; ``MatcherSampleError`` when the
    ///   options do not decode or the authenticator refuses them, or for an assertion without
    ///   `authenticators`.
    func credential(at path: String, authenticators: WebAuthnAuthenticators?) throws -> JSONValue {
        guard let savedOptions else { return exampleCredential }
        guard let run = authenticators ?? (ceremony == .registration ? WebAuthnAuthenticators() : nil) else {
            throw MatcherSampleError(
                path: path, reason: "a webauthn_assertion is signed by the authenticators of a run, and none was given")
        }
        do {
            return try run.credential(for: self, options: savedOptions)
        } catch var missing as WebAuthnAuthenticators.NoCredential {
            missing.path = path
            throw missing
        } catch {
            throw MatcherSampleError(path: path, reason: "\(error)")
        }
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
