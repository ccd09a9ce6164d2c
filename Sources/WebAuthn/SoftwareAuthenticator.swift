import Crypto
import Foundation
import JOSE

/// An authenticator and client in software, holding one credential: it answers creation
/// options with a ``RegistrationResponseJSON`` (attestation `none` or `packed`
/// self-attestation) and request options with an ``AuthenticationResponseJSON``, signed
/// with an ES256 or Ed25519 key, as a browser's `toJSON()` would. For tests, and for a
/// client that must act as the user's authenticator (`contract verify`). Its public
/// properties set what the next response says: the origin, the flags, the counter.
///
/// ```swift
/// var authenticator = SoftwareAuthenticator(algorithm: .es256, origin: "https://example.org")
/// let registration = try authenticator.register(relyingParty.creationOptions(challenge: c1, user: user))
/// let assertion = try authenticator.authenticate(relyingParty.requestOptions(challenge: c2))   // signCount 1
/// ```
public struct SoftwareAuthenticator: Sendable {
    /// The credential key's algorithm.
    ///
    /// ```swift
    /// SoftwareAuthenticator(algorithm: .edDSA, origin: "https://example.org")
    /// ```
    public enum Algorithm: Sendable, CaseIterable {
        /// ECDSA P-256 with SHA-256 (COSE -7).
        case es256
        /// Ed25519 (COSE -8).
        case edDSA

        /// The COSE algorithm.
        ///
        /// ```swift
        /// SoftwareAuthenticator.Algorithm.edDSA.cose   // .edDSA
        /// ```
        public var cose: COSEAlgorithm {
            switch self {
            case .es256: .es256
            case .edDSA: .edDSA
            }
        }
    }

    /// The attestation statement of registrations.
    ///
    /// ```swift
    /// SoftwareAuthenticator(attestation: .packedSelf, origin: "https://example.org")
    /// ```
    public enum Attestation: Sendable, CaseIterable {
        /// `fmt: none`, an empty statement.
        case none
        /// `fmt: packed` without `x5c`: signed with the credential key itself.
        case packedSelf
    }

    private enum PrivateKey: Sendable {
        case p256(P256.Signing.PrivateKey)
        case ed25519(Curve25519.Signing.PrivateKey)

        var coseKey: Data {
            switch self {
            case .p256(let key): COSEKey.encoded(key.publicKey)
            case .ed25519(let key): COSEKey.encoded(key.publicKey)
            }
        }

        func sign(_ data: Data) throws(WebAuthnError) -> Data {
            do {
                switch self {
                case .p256(let key): return try key.signature(for: data).derRepresentation
                case .ed25519(let key): return try key.signature(for: data)
                }
            } catch {
                throw .rejected(.signature, "the software authenticator could not sign")
            }
        }
    }

    /// The credential key's algorithm.
    public let algorithm: Algorithm
    /// The attestation of registrations.
    public var attestation: Attestation
    /// The origin written into `clientDataJSON`.
    public var origin: String
    /// When set, responses say the call came from a cross-origin iframe in this top-level origin.
    public var topOrigin: String?
    /// Whether responses set UP.
    public var userPresent = true
    /// Whether responses set UV.
    public var userVerified = true
    /// Whether responses set BE.
    public var backupEligible = false
    /// Whether responses set BS.
    public var backedUp = false
    /// The signature counter: 0 at registration, then one more before each assertion.
    public var signCount: UInt32 = 0
    /// The AAGUID of registrations (all zeros by default, as clients send for `attestation: "none"`).
    public var aaguid = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    /// The RP ID the credential is scoped to (set by ``register(_:)``).
    public var rpID: String?
    /// The credential ID (set by ``register(_:)``).
    public private(set) var credentialID: Data?
    /// The user handle the credential was created for, returned by assertions.
    public private(set) var userHandle: Data?
    private var key: PrivateKey?

    /// An authenticator with no credential yet.
    ///
    /// ```swift
    /// var authenticator = SoftwareAuthenticator(algorithm: .es256, attestation: .packedSelf, origin: "https://example.org")
    /// ```
    public init(algorithm: Algorithm = .es256, attestation: Attestation = .none, origin: String) {
        self.algorithm = algorithm
        self.attestation = attestation
        self.origin = origin
    }

    /// Creates a new credential (a new key and a random 32-byte ID, replacing any earlier
    /// one) and answers `options` as `navigator.credentials.create()` would.
    ///
    /// ```swift
    /// let response = try authenticator.register(options)
    /// response.response.transports   // ["internal"]
    /// ```
    /// - Throws: rejected with ``WebAuthnError/Check/algorithm`` when `options` do not
    ///   accept this authenticator's algorithm.
    public mutating func register(_ options: PublicKeyCredentialCreationOptionsJSON) throws(WebAuthnError) -> RegistrationResponseJSON {
        guard options.pubKeyCredParams.contains(where: { $0.alg == algorithm.cose.rawValue && $0.type == "public-key" }) else {
            throw .rejected(.algorithm, "the options do not accept \(algorithm.cose)")
        }
        let newKey: PrivateKey =
            switch algorithm {
            case .es256: .p256(P256.Signing.PrivateKey())
            case .edDSA: .ed25519(Curve25519.Signing.PrivateKey())
            }
        let id = Data(SecureRandom.bytes(32))
        let rpID = options.rp.id ?? URL(string: origin)?.host ?? origin
        key = newKey
        credentialID = id
        userHandle = options.user.id
        self.rpID = rpID

        let clientData = clientDataJSON(type: "webauthn.create", challenge: options.challenge)
        var authData = authenticatorDataPrefix(rpID: rpID, extraFlags: 0x40)
        authData.append(contentsOf: withUnsafeBytes(of: aaguid.uuid) { Array($0) })
        authData.append(contentsOf: [UInt8(id.count >> 8), UInt8(id.count & 0xff)])
        authData.append(id)
        authData.append(newKey.coseKey)

        let statement: CBORValue
        switch attestation {
        case .none:
            statement = .map([])
        case .packedSelf:
            let signature = try newKey.sign(authData + Data(SHA256.hash(data: clientData)))
            statement = .map([CBORMapEntry(.text("alg"), .int(algorithm.cose.rawValue)), CBORMapEntry(.text("sig"), .bytes(signature))])
        }
        let object = CBOREncoder.encode(
            .map([
                CBORMapEntry(.text("fmt"), .text(attestation == .none ? "none" : "packed")),
                CBORMapEntry(.text("attStmt"), statement),
                CBORMapEntry(.text("authData"), .bytes(authData)),
            ]))
        let discoverable = options.authenticatorSelection?.residentKey.map { $0 != .discouraged } ?? false
        return RegistrationResponseJSON(
            id: Base64URL.encode(id),
            rawId: id,
            response: .init(
                clientDataJSON: clientData, attestationObject: object, transports: ["internal"],
                authenticatorData: authData, publicKeyAlgorithm: algorithm.cose.rawValue
            ),
            authenticatorAttachment: "platform",
            clientExtensionResults: .init(credProps: options.extensions?.credProps == true ? .init(rk: discoverable) : nil)
        )
    }

    /// Answers `options` with the credential as `navigator.credentials.get()` would, one
    /// more on the counter (wrapping at 2³²).
    ///
    /// ```swift
    /// let response = try authenticator.authenticate(relyingParty.requestOptions(challenge: challenge))
    /// response.response.userHandle   // the user.id of the registration
    /// ```
    /// - Throws: rejected with ``WebAuthnError/Check/credentialID`` when there is no
    ///   credential, or `options` name another RP ID or only other credentials.
    public mutating func authenticate(_ options: PublicKeyCredentialRequestOptionsJSON) throws(WebAuthnError) -> AuthenticationResponseJSON
    {
        guard let key, let credentialID, let rpID else { throw .rejected(.credentialID, "the software authenticator holds no credential") }
        guard (options.rpId ?? URL(string: origin)?.host ?? origin) == rpID else {
            throw .rejected(.credentialID, "the software authenticator holds no credential for this RP ID")
        }
        guard options.allowCredentials.isEmpty || options.allowCredentials.contains(where: { $0.id == credentialID }) else {
            throw .rejected(.credentialID, "the options allow only other credentials")
        }
        signCount &+= 1
        let clientData = clientDataJSON(type: "webauthn.get", challenge: options.challenge)
        let authData = authenticatorDataPrefix(rpID: rpID, extraFlags: 0)
        let signature = try key.sign(authData + Data(SHA256.hash(data: clientData)))
        return AuthenticationResponseJSON(
            id: Base64URL.encode(credentialID),
            rawId: credentialID,
            response: .init(clientDataJSON: clientData, authenticatorData: authData, signature: signature, userHandle: userHandle),
            authenticatorAttachment: "platform"
        )
    }

    /// rpIdHash ‖ flags ‖ signCount.
    private func authenticatorDataPrefix(rpID: String, extraFlags: UInt8) -> Data {
        var flags = extraFlags
        if userPresent { flags |= AuthenticatorData.Flags.userPresent.rawValue }
        if userVerified { flags |= AuthenticatorData.Flags.userVerified.rawValue }
        if backupEligible { flags |= AuthenticatorData.Flags.backupEligible.rawValue }
        if backedUp { flags |= AuthenticatorData.Flags.backupState.rawValue }
        var data = Data(SHA256.hash(data: Data(rpID.utf8)))
        data.append(flags)
        data.append(contentsOf: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: signCount >> $0) })
        return data
    }

    private struct ClientData: Encodable {
        var type: String
        var challenge: String
        var origin: String
        var crossOrigin: Bool
        var topOrigin: String?
    }

    /// The client data as a browser serializes it: type, challenge, origin, crossOrigin.
    private func clientDataJSON(type: String, challenge: Data) -> Data {
        let clientData = ClientData(
            type: type, challenge: Base64URL.encode(challenge), origin: origin, crossOrigin: topOrigin != nil, topOrigin: topOrigin
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        // Encoding strings and a Bool cannot fail.
        return (try? encoder.encode(clientData)) ?? Data("{}".utf8)
    }
}
