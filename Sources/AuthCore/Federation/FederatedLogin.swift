import Crypto
import Foundation
import JOSE

/// Sign-in with upstream providers, and the accounts' links to them.
///
/// An identity is `(provider, sub)`, never an email address. Its first sign-in makes an
/// account (with sign-up open, or a provider that ``IdentityProvider/createsAccounts``),
/// with the provider's email when the provider says it is verified. When that verified
/// email is already an account's own, nothing is linked: the answer is `link_required` with
/// a `link_token`, and the owner must sign in to that account (password, passkey, an emailed
/// code) and confirm the link from that session. An account's unverified address matching
/// it is given up to the new account instead (it was never proved that account's). An
/// account keeps at least one way in: the last is never unlinked.
///
/// ```swift
/// let federation = FederatedLogin(login: login, verifier: IDTokenVerifier(keys: cache), signUpOpen: false)
/// let grant = try await federation.signIn(provider: "apple", idToken: token, nonce: raw, origin: origin)
/// ```
public struct FederatedLogin<Storage: AuthStorage>: Sendable {
    /// The login rules: throttling, sessions, second factors, the audit log.
    public let login: LoginService<Storage>
    /// Checks the providers' ID tokens.
    public let verifier: IDTokenVerifier
    /// Whether anyone may make an account (`serve --signup open`).
    public let signUpOpen: Bool
    /// Whether an account's verified email is a way in (email sign-in codes are delivered):
    /// the last identity of such an account may be unlinked.
    public let emailIsAWayIn: Bool
    /// The providers' token endpoints, for an authorization code; nil: codes are refused.
    public let tokens: ProviderTokenEndpoint?
    private var storage: Storage { login.storage }

    /// Creates the service.
    public init(
        login: LoginService<Storage>, verifier: IDTokenVerifier, signUpOpen: Bool, emailIsAWayIn: Bool = false,
        tokens: ProviderTokenEndpoint? = nil
    ) {
        self.login = login
        self.verifier = verifier
        self.signUpOpen = signUpOpen
        self.emailIsAWayIn = emailIsAWayIn
        self.tokens = tokens
    }

    /// Signs in with an authorization code an app got natively (Sign in with Apple's
    /// `authorizationCode`): exchanged at the provider's token endpoint as `clientID` (one of
    /// the provider's client ids; the first when nil), its ID token verified as
    /// ``signIn(provider:idToken:nonce:origin:)`` verifies one, and the refresh token the
    /// provider gave kept sealed on the identity, so that it is revoked at the provider when
    /// the identity or the account goes.
    /// - Throws: as ``signIn(provider:idToken:nonce:origin:)``; `invalid_request` for a client
    ///   id not the provider's; `invalid_credentials` for a code the provider refused;
    ///   `service_unavailable` when its token endpoint is out of reach.
    public func signIn(provider name: String, authorizationCode: String, clientID: String?, nonce: String?, origin: RequestOrigin)
        async throws -> TokenGrant
    {
        try await counted(provider: name) {
            try await login.reserveAddress(for: nil, origin: origin, detail: "authorization_code")
            let provider = try await provider(named: name)
            let client = clientID ?? provider.clientIDs[0]
            guard provider.clientIDs.contains(client) else {
                throw AuthError.invalidRequest("client_id: not a client id of the provider '\(name)'")
            }
            return try await exchange(
                authorizationCode, clientID: client, redirectURI: nil, codeVerifier: nil, at: provider,
                nonce: nonce.map { .sha256(of: $0) } ?? .absent, name: nil, origin: origin)
        }
    }

    /// Signs in with the authorization code a browser brought back to authd's callback from
    /// `provider` (authd the relying party: ``ProviderSignInAttempt``, whose provider it is):
    /// exchanged with the redirect URI and PKCE verifier it was asked with, its ID token's
    /// `nonce` the attempt's own, and `name` (what Apple's `user` JSON said, at a first
    /// sign-in only) kept on the identity.
    /// - Throws: as ``signIn(provider:authorizationCode:clientID:nonce:origin:)``.
    public func signIn(
        returningFrom attempt: ProviderSignInAttempt, at provider: IdentityProvider, code: String, name: String?, origin: RequestOrigin
    ) async throws -> TokenGrant {
        try await counted(provider: provider.name) {
            try await login.reserveAddress(for: nil, origin: origin, detail: "provider_callback")
            return try await exchange(
                code, clientID: provider.clientIDs[0], redirectURI: attempt.redirectURI, codeVerifier: attempt.codeVerifier,
                at: provider, nonce: .equal(attempt.nonce), name: name, origin: origin)
        }
    }

    /// Audits the provider's answer to `attempt` refused before any exchange (`reason`:
    /// `state_mismatch`, `issuer_mismatch`).
    public func refuseAnswer(to attempt: ProviderSignInAttempt, reason: String, origin: RequestOrigin) async throws {
        try await login.audit(.loginFailed, user: nil, usernameKey: "", origin: origin, detail: "\(attempt.provider):\(reason)")
    }

    /// `code` exchanged at the provider's token endpoint, its ID token verified, and the
    /// sign-in of it, keeping the provider's refresh token.
    private func exchange(
        _ code: String, clientID: String, redirectURI: String?, codeVerifier: String?, at provider: IdentityProvider,
        nonce: IDTokenVerifier.Nonce, name: String?, origin: RequestOrigin
    ) async throws -> TokenGrant {
        guard let tokens else { throw AuthError.invalidRequest("authorization codes are not taken here") }
        let exchanged: ProviderTokenEndpoint.Tokens
        do {
            exchanged = try await tokens.exchange(
                code: code, clientID: clientID, redirectURI: redirectURI, codeVerifier: codeVerifier, at: provider)
        } catch let error as AuthError {
            try await login.audit(.loginFailed, user: nil, usernameKey: "", origin: origin, detail: "\(provider.name):code_refused")
            throw error
        } catch is FederationError {
            throw AuthError.serviceUnavailable("The identity provider '\(provider.name)' could not be reached.", retryAfter: 5)
        }
        let token = try await verified(exchanged.idToken, from: provider, nonce: nonce, origin: origin)
        let refresh = try exchanged.refreshToken.map {
            SealedRefreshToken(
                sealed: try tokens.seal(refreshToken: $0, provider: provider.name, subject: token.subject), clientID: clientID)
        }
        return try await signIn(with: token, at: provider, origin: origin, keeping: refresh, name: name)
    }

    /// Signs in with `idToken`, an ID token of the provider named `provider` that an app got
    /// natively (Sign in with Apple, Google Sign-In). With `nonce`, the token's `nonce` must
    /// be its lowercase hex SHA-256; without, the token must carry none. Each token signs in
    /// once.
    /// - Throws: ``AuthError`` — `invalid_request` (no such provider), `invalid_credentials`
    ///   (the token does not verify, or was used), `mfa_required`, `link_required`,
    ///   `account_disabled`, `not_found` (no account, and none may be made),
    ///   `too_many_attempts`, `service_unavailable` (the provider's keys out of reach).
    public func signIn(provider name: String, idToken: String, nonce: String?, origin: RequestOrigin) async throws -> TokenGrant {
        try await counted(provider: name) {
            let (provider, token) = try await nativeToken(idToken, of: name, nonce: nonce, for: nil, origin: origin)
            return try await signIn(with: token, at: provider, origin: origin)
        }
    }

    /// The sign-in of a verified token: its identity's account, or a new one, or
    /// `link_required`. A provider's refresh token given with it is kept on the identity (the
    /// one it replaces is queued for revocation), as is the name the provider gave; a link
    /// waiting for its confirmation keeps both until then.
    public func signIn(
        with token: VerifiedIDToken, at provider: IdentityProvider, origin: RequestOrigin, keeping refresh: SealedRefreshToken? = nil,
        name: String? = nil
    ) async throws -> TokenGrant {
        let now = login.clock.now
        if let identity = try await storage.identities.identity(provider: provider.name, subject: token.subject) {
            guard let user = try await storage.users.user(withID: identity.userID) else { throw AuthError.idTokenRefused }
            try await storage.identities.recordUse(id: identity.id, email: token.email, name: name, at: now)
            try await keep(refresh, provider: provider.name, subject: token.subject)
            return try await finish(user, provider: provider, origin: origin)
        }
        let email = token.emailVerified ? token.email.flatMap { try? EmailAddress($0) } : nil
        if let email, let holder = try await storage.users.user(withEmailKey: email.key) {
            if holder.emailVerifiedAt != nil {
                let link = OpaqueToken.generate()
                try await storage.identities.storePending(
                    PendingIdentityLink(
                        tokenHash: link.hash, userID: holder.id, provider: provider.name, subject: token.subject, email: email.value,
                        name: name, refreshToken: refresh, expiresAt: now.addingTimeInterval(TimeInterval(PendingIdentityLink.lifetime))))
                try await login.audit(
                    .identityLinkRequired, user: holder, usernameKey: holder.usernameKey, origin: origin, detail: provider.name)
                throw AuthError.linkRequired(token: link.token)
            }
            if let released = try await storage.users.releaseUnverifiedEmail(key: email.key) {
                try await login.audit(
                    .unverifiedEmailReleased, user: released, usernameKey: released.usernameKey, origin: origin, detail: provider.name)
            }
        }
        guard signUpOpen || provider.createsAccounts else {
            try await login.audit(.loginFailed, user: nil, usernameKey: "", origin: origin, detail: "no_account:\(provider.name)")
            throw AuthError.notFound(
                "No account is linked to this \(provider.name) identity, and accounts are not made here: sign in another way and link it.")
        }
        let user = try await createAccount(email: email, from: provider, origin: origin)
        let identity = Identity(
            id: UUID(), userID: user.id, provider: provider.name, subject: token.subject, email: token.email, name: name, createdAt: now,
            lastUsedAt: now)
        // Two first sign-ins of one identity at once: one links, the other's new account goes.
        guard try await storage.identities.link(identity) else {
            _ = try await storage.users.delete(usernameKey: user.usernameKey)
            return try await signIn(with: token, at: provider, origin: origin, keeping: refresh, name: name)
        }
        try await keep(refresh, provider: provider.name, subject: token.subject)
        try await login.audit(
            .identityLinked, user: user, usernameKey: user.usernameKey, origin: origin, detail: "\(provider.name):created")
        return try await finish(user, provider: provider, origin: origin)
    }

    /// The account's identities, oldest first.
    public func identities(of user: User) async throws -> [Identity] {
        try await storage.identities.identities(ofUser: user.id)
    }

    /// Links the identity a `link_required` answer named to `user`, the account whose email
    /// matched, signed in since (the token is single-use and lives ten minutes).
    /// - Throws: ``AuthError`` — `invalid_token` (unknown, used, expired, or another
    ///   account's), `identity_taken` when the identity was linked to another account since.
    public func confirmLink(token: String, for user: User, origin: RequestOrigin) async throws -> Identity {
        guard let pending = try await storage.identities.takePending(tokenHash: OpaqueToken.hash(of: token), now: login.clock.now),
            pending.userID == user.id
        else { throw AuthError.invalidToken }
        let identity = try await link(
            provider: pending.provider, subject: pending.subject, email: pending.email, name: pending.name, to: user, how: "confirmed",
            origin: origin)
        try await keep(pending.refreshToken, provider: pending.provider, subject: pending.subject)
        return identity
    }

    /// Keeps a provider's refresh token on its identity.
    private func keep(_ refresh: SealedRefreshToken?, provider: String, subject: String) async throws {
        guard let refresh else { return }
        try await storage.identities.storeRefreshToken(
            provider: provider, subject: subject, sealedToken: refresh.sealed, clientID: refresh.clientID)
    }

    /// Links a fresh sign-in with `provider` (`idToken`, as ``signIn(provider:idToken:nonce:origin:)``
    /// takes it) to `user`, who is signed in.
    public func link(provider name: String, idToken: String, nonce: String?, to user: User, origin: RequestOrigin) async throws -> Identity
    {
        let (provider, token) = try await nativeToken(idToken, of: name, nonce: nonce, for: user, origin: origin)
        return try await link(
            provider: provider.name, subject: token.subject, email: token.email, name: nil, to: user, how: "signed_in", origin: origin)
    }

    private func link(
        provider: String, subject: String, email: String?, name: String?, to user: User, how: String, origin: RequestOrigin
    ) async throws -> Identity {
        let now = login.clock.now
        let identity = Identity(
            id: UUID(), userID: user.id, provider: provider, subject: subject, email: email, name: name, createdAt: now, lastUsedAt: now)
        guard try await storage.identities.link(identity) else {
            if let existing = try await storage.identities.identity(provider: provider, subject: subject), existing.userID == user.id {
                return existing
            }
            throw AuthError.identityTaken
        }
        try await login.audit(.identityLinked, user: user, usernameKey: user.usernameKey, origin: origin, detail: "\(provider):\(how)")
        return identity
    }

    /// Unlinks the account's identity `id`, unless it is the account's last way in.
    /// - Throws: ``AuthError`` — `not_found`, `invalid_request` (the last way in).
    public func unlink(id: UUID, of user: User, origin: RequestOrigin) async throws {
        switch try await storage.identities.unlink(id: id, ofUser: user.id, emailCounts: emailIsAWayIn) {
        case .unlinked(let identity):
            try await login.audit(.identityUnlinked, user: user, usernameKey: user.usernameKey, origin: origin, detail: identity.provider)
        case .notFound:
            throw AuthError.notFound("The account has no identity with this id.")
        case .lastWayIn:
            throw AuthError.invalidRequest(
                "This identity is the account's only way in: set a password or add a passkey before unlinking it.")
        }
    }

    /// The provider named `name`.
    public func provider(named name: String) async throws -> IdentityProvider {
        guard IdentityProvider.isValidName(name), let provider = try await storage.providers.provider(named: name) else {
            throw AuthError.invalidRequest("provider: no identity provider has this name")
        }
        return provider
    }

    /// An ID token an app got natively from the provider named `name`, with the raw `nonce`
    /// whose SHA-256 it must carry (none without one): the attempt reserved against the
    /// client's address first (each costs a signature check at most), then the provider
    /// found and the token verified as ``verified(_:from:nonce:origin:)`` does.
    private func nativeToken(_ idToken: String, of name: String, nonce: String?, for user: User?, origin: RequestOrigin) async throws
        -> (IdentityProvider, VerifiedIDToken)
    {
        try await login.reserveAddress(for: user, origin: origin, detail: "id_token")
        let provider = try await provider(named: name)
        return (provider, try await verified(idToken, from: provider, nonce: nonce.map { .sha256(of: $0) } ?? .absent, origin: origin))
    }

    /// `idToken` verified and remembered as used; a refusal audited and answered as
    /// `invalid_credentials`, keys out of reach as `service_unavailable`.
    public func verified(_ idToken: String, from provider: IdentityProvider, nonce: IDTokenVerifier.Nonce, origin: RequestOrigin)
        async throws -> VerifiedIDToken
    {
        do {
            let token = try await verifier.verify(idToken, from: provider, nonce: nonce)
            guard
                try await storage.identities.markUsed(
                    digest: token.digest, until: token.expiresAt.addingTimeInterval(IDTokenVerifier.leeway))
            else { throw IDTokenRefusal.replayed }
            return token
        } catch let refusal as IDTokenRefusal {
            try await login.audit(.loginFailed, user: nil, usernameKey: "", origin: origin, detail: "\(provider.name):\(refusal.rawValue)")
            throw AuthError.idTokenRefused
        } catch is FederationError {
            // Its keys out of reach, or answered with something that is not a key set.
            throw AuthError.serviceUnavailable("The identity provider '\(provider.name)' could not be reached.", retryAfter: 5)
        }
    }

    /// The end of a sign-in whose identity is `user`'s (``LoginService/finishFirstFactor(of:origin:detail:methods:)``).
    private func finish(_ user: User, provider: IdentityProvider, origin: RequestOrigin) async throws -> TokenGrant {
        try await login.finishFirstFactor(of: user, origin: origin, detail: "provider:\(provider.name)", methods: ["fed"])
    }

    /// A new account with no password for a first sign-in: named by the verified email when
    /// that name is free, else by the provider and a random suffix.
    private func createAccount(email: EmailAddress?, from provider: IdentityProvider, origin: RequestOrigin) async throws -> User {
        let now = login.clock.now
        let secret = try await login.hashing.hash(SecureRandom.base64URLText(length: 43))
        var candidates = [email?.value].compactMap { $0 }
        for _ in 0..<3 { candidates.append("\(provider.name)-\(SecureRandom.base64URLText(length: 8).lowercased())") }
        for candidate in candidates {
            guard let username = try? Username(candidate) else { continue }
            do {
                let user = try await storage.users.createWithoutPassword(
                    username: username, email: email, emailVerifiedAt: email == nil ? nil : now, passwordHash: secret, at: now)
                try await login.audit(
                    .userCreated, user: user, usernameKey: user.usernameKey, origin: origin, detail: "provider:\(provider.name)")
                return user
            } catch let error as RepositoryError where error == .duplicateUsername {
                continue
            }
        }
        throw AuthError.usernameTaken
    }

    /// Runs a provider sign-in, counting its outcome per provider.
    private func counted(provider: String, _ attempt: () async throws -> TokenGrant) async throws -> TokenGrant {
        let label = IdentityProvider.isValidName(provider) ? provider : "unknown"
        do {
            let grant = try await login.counted(attempt)
            login.metrics.providerSignIn(provider: label, result: "success")
            return grant
        } catch let error as AuthError {
            login.metrics.providerSignIn(provider: label, result: error.code.rawValue)
            throw error
        }
    }
}
