import Crypto
import Foundation

/// The operator's rules for upstream providers: add one (found through its discovery
/// document, its secrets sealed under the KEK), replace it, remove it (unlinking its
/// identities), list them — each change written to the audit log. `authd provider …` only
/// calls it.
///
/// ```swift
/// let registry = ProviderRegistry(storage: storage, transport: transport, keyEncryptionKey: kek)
/// let google = try await registry.add(ProviderRegistration(name: "google", kind: .google, clientIDs: ["1234.apps.googleusercontent.com"]))
/// ```
public struct ProviderRegistry<Storage: AuthStorage>: Sendable {
    /// The providers and the audit log.
    public let storage: Storage
    /// How the discovery document is fetched.
    public let transport: any ProviderTransport
    /// Seals the client secrets and Apple's keys.
    public let sealer: SecretSealer
    /// The time of additions and removals.
    public let clock: any WallClock

    /// Creates the registry.
    public init(
        storage: Storage, transport: any ProviderTransport, keyEncryptionKey: KeyEncryptionKey, clock: any WallClock = SystemClock()
    ) {
        self.storage = storage
        self.transport = transport
        self.sealer = ProviderSecrets.sealer(keyEncryptionKey)
        self.clock = clock
    }

    /// Adds (or with `registration.replacing`, replaces) a provider: fetches its discovery
    /// document, checks it, seals its secrets.
    /// - Throws: ``AuthError`` `invalid_request` (a name, client id, scope or key refused; a
    ///   provider of the name exists), ``FederationError`` (the discovery document is out of
    ///   reach or wrong).
    public func add(_ registration: ProviderRegistration) async throws -> IdentityProvider {
        let name = registration.name
        guard IdentityProvider.isValidName(name) else {
            throw AuthError.invalidRequest("a provider name is 1 to 64 letters, digits, '.', '_' or '-': '\(name.prefix(64))'")
        }
        guard let issuer = registration.issuer ?? registration.kind.defaultIssuer else {
            throw AuthError.invalidRequest("--issuer is needed for a provider of kind oidc")
        }
        let clientIDs = registration.clientIDs
        guard !clientIDs.isEmpty, clientIDs.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 255 }) else {
            throw AuthError.invalidRequest("--client-id is needed (1 to 255 characters each)")
        }
        let scopes = registration.scopes.isEmpty ? registration.kind.defaultScopes : registration.scopes
        guard scopes.contains("openid"), scopes.allSatisfy({ !$0.isEmpty && !$0.contains(" ") }) else {
            throw AuthError.invalidRequest("the scopes must include openid, each one word")
        }
        var apple: IdentityProvider.AppleSigning?
        if registration.kind == .apple {
            guard let teamID = registration.appleTeamID, let keyID = registration.appleKeyID, let pem = registration.applePrivateKeyPEM
            else {
                throw AuthError.invalidRequest("a provider of kind apple needs --team-id, --key-id and --private-key-file")
            }
            guard let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) else {
                throw AuthError.invalidRequest("the private key file is not a P-256 key in PEM (PKCS#8, as Apple's AuthKey_….p8 files are)")
            }
            apple = IdentityProvider.AppleSigning(
                teamID: teamID, keyID: keyID,
                sealedPrivateKey: try sealer.seal(key.rawRepresentation, context: ProviderSecrets.appleKeyContext(name)))
        }
        let metadata = try await discover(issuer)
        let provider = IdentityProvider(
            name: name, kind: registration.kind, issuer: issuer, clientIDs: clientIDs,
            sealedClientSecret: try registration.clientSecret.map {
                try sealer.seal(Data($0.utf8), context: ProviderSecrets.clientSecretContext(name))
            },
            apple: apple, scopes: scopes, createsAccounts: registration.createsAccounts, metadata: metadata, createdAt: clock.now)
        guard try await storage.providers.add(provider, replacing: registration.replacing) else {
            throw AuthError.invalidRequest("a provider named \(name) exists already; replace it with --replace")
        }
        try await storage.audit.record(SecurityEvent(kind: .providerAdded, at: provider.createdAt, detail: name))
        return provider
    }

    /// The discovery document of `issuer`, checked.
    public func discover(_ issuer: String) async throws -> ProviderMetadata {
        let url = try ProviderMetadata.discoveryURL(of: issuer)
        let response: ProviderResponse
        do {
            response = try await transport.send(ProviderRequest(get: url))
        } catch {
            throw FederationError.unreachable("the discovery document \(url.absoluteString)", "\(error)")
        }
        guard response.status == 200 else {
            throw FederationError.unreachable("the discovery document \(url.absoluteString)", "HTTP \(response.status)")
        }
        return try ProviderMetadata.parse(response.body, expectedIssuer: issuer)
    }

    /// Removes a provider and unlinks its identities; answers how many.
    /// - Throws: `not_found` when there is no such provider.
    @discardableResult
    public func remove(name: String) async throws -> Int {
        guard let unlinked = try await storage.providers.remove(named: name) else { throw AuthError.notFound("no provider named \(name)") }
        try await storage.audit.record(SecurityEvent(kind: .providerRemoved, at: clock.now, detail: "\(name):\(unlinked)"))
        return unlinked
    }

    /// Every provider, by name.
    public func all() async throws -> [IdentityProvider] {
        try await storage.providers.all()
    }
}

/// What `authd provider add` asks for.
public struct ProviderRegistration: Sendable {
    /// The provider's name in authd.
    public var name: String
    /// Its kind.
    public var kind: IdentityProvider.Kind
    /// Its issuer (the kind's default unless given).
    public var issuer: String?
    /// The audiences its ID tokens may name, the browser's client id first.
    public var clientIDs: [String]
    /// The client secret (none for Apple, whose secret authd signs).
    public var clientSecret: String?
    /// The scopes (the kind's default when empty).
    public var scopes: [String]
    /// Whether first sign-ins make accounts even with sign-up closed.
    public var createsAccounts: Bool
    /// Apple's team id, key id and key (the `.p8` file's PEM).
    public var appleTeamID: String?
    public var appleKeyID: String?
    public var applePrivateKeyPEM: String?
    /// Whether it replaces a provider of the same name.
    public var replacing: Bool

    /// Creates the value.
    public init(
        name: String, kind: IdentityProvider.Kind, issuer: String? = nil, clientIDs: [String], clientSecret: String? = nil,
        scopes: [String] = [], createsAccounts: Bool = false, appleTeamID: String? = nil, appleKeyID: String? = nil,
        applePrivateKeyPEM: String? = nil, replacing: Bool = false
    ) {
        self.name = name
        self.kind = kind
        self.issuer = issuer
        self.clientIDs = clientIDs
        self.clientSecret = clientSecret
        self.scopes = scopes
        self.createsAccounts = createsAccounts
        self.appleTeamID = appleTeamID
        self.appleKeyID = appleKeyID
        self.applePrivateKeyPEM = applePrivateKeyPEM
        self.replacing = replacing
    }
}
