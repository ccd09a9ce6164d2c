import Foundation

/// The options of a registration, in the JSON form the browser's
/// `PublicKeyCredential.parseCreationOptionsFromJSON()` reads
/// (`PublicKeyCredentialCreationOptionsJSON`, WebAuthn §5.1.8): camelCase members, binary
/// ones as unpadded base64url. ``WebAuthnRelyingParty/creationOptions(challenge:user:excludeCredentials:residentKey:timeout:)``
/// builds one.
///
/// ```swift
/// let options = relyingParty.creationOptions(challenge: challenge, user: .init(id: handle, name: "alice", displayName: "Alice"))
/// let json = try JSONEncoder().encode(options)   // {"rp":{"id":"example.org","name":"Example"},"user":{…},"challenge":"…",…}
/// ```
public struct PublicKeyCredentialCreationOptionsJSON: Codable, Sendable, Equatable {
    /// The relying party.
    public var rp: RelyingPartyEntity
    /// The account the credential is for.
    public var user: UserEntity
    /// The challenge (at least 16 random bytes; the server keeps it until the response).
    public var challenge: Data
    /// The accepted algorithms, most preferred first.
    public var pubKeyCredParams: [Parameters]
    /// How long the ceremony may take, in milliseconds.
    public var timeout: Int?
    /// The account's existing credentials, so an authenticator does not register twice.
    public var excludeCredentials: [PublicKeyCredentialDescriptorJSON]
    /// What kind of authenticator and credential the relying party wants.
    public var authenticatorSelection: AuthenticatorSelection?
    /// UI hints (`security-key`, `client-device`, `hybrid`).
    public var hints: [String]?
    /// The attestation conveyance preference: `none` (authd uses no attestation).
    public var attestation: String
    /// Extension inputs.
    public var extensions: Extensions?

    /// `rp`: the RP ID (a registrable domain suffix of the origin) and a name to show.
    ///
    /// ```swift
    /// PublicKeyCredentialCreationOptionsJSON.RelyingPartyEntity(id: "example.org", name: "Example")
    /// ```
    public struct RelyingPartyEntity: Codable, Sendable, Equatable {
        /// The RP ID; the client uses the origin's host when absent.
        public var id: String?
        /// A name to show.
        public var name: String

        /// Creates the value.
        ///
        /// ```swift
        /// .init(id: "example.org", name: "Example")
        /// ```
        public init(id: String?, name: String) {
            self.id = id
            self.name = name
        }
    }

    /// `user`: the user handle (opaque, at most 64 bytes, no personal data) and names to show.
    ///
    /// ```swift
    /// PublicKeyCredentialCreationOptionsJSON.UserEntity(id: handle, name: "alice", displayName: "Alice")
    /// ```
    public struct UserEntity: Codable, Sendable, Equatable {
        /// The user handle, returned as `userHandle` by assertions of discoverable credentials.
        public var id: Data
        /// The account name (e.g. the username).
        public var name: String
        /// A friendly name.
        public var displayName: String

        /// Creates the value.
        ///
        /// ```swift
        /// .init(id: Data(repeating: 7, count: 32), name: "alice", displayName: "Alice")
        /// ```
        public init(id: Data, name: String, displayName: String) {
            self.id = id
            self.name = name
            self.displayName = displayName
        }

        private enum CodingKeys: String, CodingKey {
            case id, name, displayName
        }

        /// Decodes the JSON form, `id` from base64url.
        ///
        /// ```swift
        /// try JSONDecoder().decode(PublicKeyCredentialCreationOptionsJSON.UserEntity.self, from: json)
        /// ```
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decodeBase64URL(forKey: .id)
            name = try container.decodeText(forKey: .name)
            displayName = try container.decodeText(forKey: .displayName)
        }

        /// Encodes the JSON form, `id` as base64url.
        ///
        /// ```swift
        /// try JSONEncoder().encode(user)   // {"id":"BwcH…","name":"alice","displayName":"Alice"}
        /// ```
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeBase64URL(id, forKey: .id)
            try container.encode(name, forKey: .name)
            try container.encode(displayName, forKey: .displayName)
        }
    }

    /// One accepted algorithm: `{"type":"public-key","alg":-7}`.
    ///
    /// ```swift
    /// PublicKeyCredentialCreationOptionsJSON.Parameters(.es256)
    /// ```
    public struct Parameters: Codable, Sendable, Equatable {
        /// Always `public-key`.
        public var type: String
        /// The COSE algorithm identifier.
        public var alg: Int

        /// The parameters of `algorithm`.
        ///
        /// ```swift
        /// .init(.edDSA).alg   // -8
        /// ```
        public init(_ algorithm: COSEAlgorithm) {
            type = "public-key"
            alg = algorithm.rawValue
        }
    }

    /// `authenticatorSelection` (WebAuthn §5.4.4).
    ///
    /// ```swift
    /// .init(residentKey: .required, userVerification: .preferred)   // requireResidentKey: true
    /// ```
    public struct AuthenticatorSelection: Codable, Sendable, Equatable {
        /// `platform` or `cross-platform`; any when nil.
        public var authenticatorAttachment: String?
        /// Whether a discoverable credential (a passkey) is wanted.
        public var residentKey: ResidentKeyRequirement?
        /// `residentKey == .required`, for clients of WebAuthn Level 1.
        public var requireResidentKey: Bool?
        /// Whether the user must be verified.
        public var userVerification: UserVerificationRequirement?

        /// Creates the value; `requireResidentKey` follows `residentKey`.
        ///
        /// ```swift
        /// .init(residentKey: .preferred, userVerification: .required)
        /// ```
        public init(
            authenticatorAttachment: String? = nil, residentKey: ResidentKeyRequirement, userVerification: UserVerificationRequirement
        ) {
            self.authenticatorAttachment = authenticatorAttachment
            self.residentKey = residentKey
            self.requireResidentKey = residentKey == .required
            self.userVerification = userVerification
        }
    }

    /// Whether the authenticator should make a discoverable credential (WebAuthn §5.4.6).
    ///
    /// ```swift
    /// PublicKeyCredentialCreationOptionsJSON.ResidentKeyRequirement.required.rawValue   // "required"
    /// ```
    public enum ResidentKeyRequirement: String, Codable, Sendable, CaseIterable {
        /// A server-side credential is preferred.
        case discouraged
        /// A discoverable credential if possible.
        case preferred
        /// A discoverable credential or nothing.
        case required
    }

    /// Extension inputs: `credProps` asks the client to say whether the credential is
    /// discoverable.
    ///
    /// ```swift
    /// PublicKeyCredentialCreationOptionsJSON.Extensions(credProps: true)   // {"credProps":true}
    /// ```
    public struct Extensions: Codable, Sendable, Equatable {
        /// Ask for the `credProps` output.
        public var credProps: Bool?

        /// Creates the value.
        ///
        /// ```swift
        /// .init(credProps: true)
        /// ```
        public init(credProps: Bool? = nil) {
            self.credProps = credProps
        }
    }

    /// Creates the value.
    ///
    /// ```swift
    /// PublicKeyCredentialCreationOptionsJSON(rp: rp, user: user, challenge: challenge, pubKeyCredParams: [.init(.es256)])
    /// ```
    public init(
        rp: RelyingPartyEntity, user: UserEntity, challenge: Data, pubKeyCredParams: [Parameters], timeout: Int? = nil,
        excludeCredentials: [PublicKeyCredentialDescriptorJSON] = [], authenticatorSelection: AuthenticatorSelection? = nil,
        hints: [String]? = nil, attestation: String = "none", extensions: Extensions? = nil
    ) {
        self.rp = rp
        self.user = user
        self.challenge = challenge
        self.pubKeyCredParams = pubKeyCredParams
        self.timeout = timeout
        self.excludeCredentials = excludeCredentials
        self.authenticatorSelection = authenticatorSelection
        self.hints = hints
        self.attestation = attestation
        self.extensions = extensions
    }

    private enum CodingKeys: String, CodingKey {
        case rp, user, challenge, pubKeyCredParams, timeout, excludeCredentials, authenticatorSelection, hints, attestation, extensions
    }

    /// Decodes the JSON form (what a client, or the software authenticator, receives).
    ///
    /// ```swift
    /// let options = try JSONDecoder().decode(PublicKeyCredentialCreationOptionsJSON.self, from: body)
    /// ```
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        rp = try container.decode(RelyingPartyEntity.self, forKey: .rp)
        user = try container.decode(UserEntity.self, forKey: .user)
        challenge = try container.decodeBase64URL(forKey: .challenge)
        pubKeyCredParams = try container.decode([Parameters].self, forKey: .pubKeyCredParams)
        timeout = try container.decodeIfPresent(Int.self, forKey: .timeout)
        excludeCredentials = try container.decodeIfPresent([PublicKeyCredentialDescriptorJSON].self, forKey: .excludeCredentials) ?? []
        authenticatorSelection = try container.decodeIfPresent(AuthenticatorSelection.self, forKey: .authenticatorSelection)
        hints = try container.decodeTextListIfPresent(forKey: .hints)
        attestation = try container.decodeTextIfPresent(forKey: .attestation) ?? "none"
        extensions = try container.decodeIfPresent(Extensions.self, forKey: .extensions)
    }

    /// Encodes the JSON form, `challenge` as base64url.
    ///
    /// ```swift
    /// let body = try JSONEncoder().encode(options)
    /// ```
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(rp, forKey: .rp)
        try container.encode(user, forKey: .user)
        try container.encodeBase64URL(challenge, forKey: .challenge)
        try container.encode(pubKeyCredParams, forKey: .pubKeyCredParams)
        try container.encodeIfPresent(timeout, forKey: .timeout)
        try container.encode(excludeCredentials, forKey: .excludeCredentials)
        try container.encodeIfPresent(authenticatorSelection, forKey: .authenticatorSelection)
        try container.encodeIfPresent(hints, forKey: .hints)
        try container.encode(attestation, forKey: .attestation)
        try container.encodeIfPresent(extensions, forKey: .extensions)
    }
}
