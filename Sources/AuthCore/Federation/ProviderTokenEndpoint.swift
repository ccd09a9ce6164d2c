import Crypto
import Foundation
import Synchronization
import WebForms

/// authd as a client of a provider's token and revocation endpoints: an authorization code
/// exchanged for tokens (RFC 6749 §4.1.3; Sign in with Apple's `authorizationCode`), a
/// refresh token revoked (RFC 7009 §2.1). The client authenticates with the provider's sealed
/// client secret, or for Apple with the ES256 client secret authd signs itself
/// (``AppleClientSecret``, kept per provider and renewed in its last hour); in the body
/// (`client_secret_post`) where the provider takes that or is Apple, else with HTTP Basic
/// (RFC 6749 §2.3.1). A refresh token kept is sealed under the KEK, bound to the provider and
/// the subject.
///
/// ```swift
/// let endpoint = ProviderTokenEndpoint(transport: transport, keyEncryptionKey: kek)
/// let tokens = try await endpoint.exchange(code: code, clientID: "com.example.app", at: apple)
/// ```
public final class ProviderTokenEndpoint: Sendable {
    /// How authd reaches providers.
    public let transport: any ProviderTransport
    /// The time source (the Apple secret's `iat`).
    public let clock: any WallClock
    private let sealer: SecretSealer
    private let appleSecrets = Mutex<[String: AppleClientSecret]>([:])

    /// An endpoint client with the secrets sealed under `keyEncryptionKey`.
    public init(transport: any ProviderTransport, keyEncryptionKey: KeyEncryptionKey, clock: any WallClock = SystemClock()) {
        self.transport = transport
        self.clock = clock
        sealer = ProviderSecrets.sealer(keyEncryptionKey)
    }

    /// What a code was exchanged for.
    public struct Tokens: Sendable {
        /// The ID token (to verify like a native one).
        public var idToken: String
        /// The refresh token, when the provider gave one (Apple does).
        public var refreshToken: String?
    }

    /// Exchanges `code` (issued to `clientID`, one of the provider's) at the provider's token
    /// endpoint.
    /// - Throws: ``AuthError/idTokenRefused`` when the provider refuses the code (RFC 6749
    ///   §5.2's 400), ``FederationError`` when it cannot be reached or answers otherwise.
    public func exchange(
        code: String, clientID: String, redirectURI: String? = nil, codeVerifier: String? = nil, at provider: IdentityProvider
    ) async throws -> Tokens {
        guard let endpoint = provider.metadata.tokenEndpoint.flatMap(URL.init(string:)) else {
            throw FederationError.unreachable("the token endpoint of \(provider.name)", "its discovery document names none")
        }
        var form = [(name: "grant_type", value: "authorization_code"), (name: "code", value: code)]
        if let redirectURI { form.append((name: "redirect_uri", value: redirectURI)) }
        if let codeVerifier { form.append((name: "code_verifier", value: codeVerifier)) }
        let response = try await post(to: endpoint, form: form, clientID: clientID, provider: provider, what: "token endpoint")
        if response.status == 400 || response.status == 401 { throw AuthError.idTokenRefused }
        guard response.status == 200,
            let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any],
            let idToken = object["id_token"] as? String
        else {
            throw FederationError.unreachable("the token endpoint of \(provider.name)", "HTTP \(response.status) without an id_token")
        }
        return Tokens(idToken: idToken, refreshToken: object["refresh_token"] as? String)
    }

    /// Revokes `refreshToken` (issued to `clientID`) at the provider's revocation endpoint.
    /// - Throws: ``FederationError`` when the provider has no revocation endpoint, cannot be
    ///   reached, or answers anything but 200 (RFC 7009 §2.2: 200 for a token revoked or
    ///   already invalid).
    public func revoke(refreshToken: String, clientID: String, at provider: IdentityProvider) async throws {
        guard let endpoint = provider.metadata.revocationEndpoint.flatMap(URL.init(string:)) else {
            throw FederationError.unreachable("the revocation endpoint of \(provider.name)", "its discovery document names none")
        }
        let form = [(name: "token", value: refreshToken), (name: "token_type_hint", value: "refresh_token")]
        let response = try await post(to: endpoint, form: form, clientID: clientID, provider: provider, what: "revocation endpoint")
        guard response.status == 200 else {
            throw FederationError.unreachable("the revocation endpoint of \(provider.name)", "HTTP \(response.status)")
        }
    }

    /// `refreshToken` sealed for the identity `(provider, subject)`.
    public func seal(refreshToken: String, provider: String, subject: String) throws -> Data {
        try sealer.seal(Data(refreshToken.utf8), context: ProviderSecrets.refreshTokenContext(provider: provider, subject: subject))
    }

    /// What ``seal(refreshToken:provider:subject:)`` sealed.
    /// - Throws: ``SecretSealerError``.
    public func openRefreshToken(_ sealed: Data, provider: String, subject: String) throws -> String {
        String(
            decoding: try sealer.open(sealed, context: ProviderSecrets.refreshTokenContext(provider: provider, subject: subject)),
            as: UTF8.self)
    }

    private func post(
        to endpoint: URL, form: [(name: String, value: String)], clientID: String, provider: IdentityProvider, what: String
    ) async throws -> ProviderResponse {
        var form = form + [(name: "client_id", value: clientID)]
        var headers: [(name: String, value: String)] = []
        if let secret = try clientSecret(of: provider, clientID: clientID) {
            let methods = provider.metadata.tokenEndpointAuthMethods ?? ["client_secret_basic"]
            if provider.kind == .apple || (methods.contains("client_secret_post") && !methods.contains("client_secret_basic")) {
                form.append((name: "client_secret", value: secret))
            } else {
                headers.append((name: "Authorization", value: BasicCredentials.header(username: clientID, password: secret)))
            }
        }
        do {
            return try await transport.send(ProviderRequest(post: endpoint, form: form, headers: headers))
        } catch {
            throw FederationError.unreachable("the \(what) of \(provider.name)", "\(type(of: error))")
        }
    }

    /// The secret `clientID` authenticates with at `provider`: Apple's signed one, the sealed
    /// one, or none (a public client).
    private func clientSecret(of provider: IdentityProvider, clientID: String) throws -> String? {
        if let apple = provider.apple {
            let cacheKey = "\(provider.name)/\(apple.keyID)"
            let secrets =
                try appleSecrets.withLock { made -> AppleClientSecret in
                    if let kept = made[cacheKey] { return kept }
                    let raw = try sealer.open(apple.sealedPrivateKey, context: ProviderSecrets.appleKeyContext(provider.name))
                    let secrets = AppleClientSecret(
                        teamID: apple.teamID, keyID: apple.keyID, key: try P256.Signing.PrivateKey(rawRepresentation: raw))
                    made[cacheKey] = secrets
                    return secrets
                }
            return secrets.secret(for: clientID, now: clock.now)
        }
        return try provider.sealedClientSecret.map {
            String(decoding: try sealer.open($0, context: ProviderSecrets.clientSecretContext(provider.name)), as: UTF8.self)
        }
    }
}
