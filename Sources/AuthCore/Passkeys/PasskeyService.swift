import Crypto
import Foundation
import JOSE
import WebAuthn

/// Passkeys (WebAuthn, relying-party side): registration by a signed-in account and login
/// by signature, which counts as both factors (possession of the authenticator, and the
/// user verification it did).
///
/// Each ceremony's challenge is 32 random bytes, stored (as the SHA-256 of its base64url
/// form) for 5 minutes and used once, whatever the outcome; the response's origin, RP ID
/// hash, flags and signature are checked by ``WebAuthn/WebAuthnRelyingParty``. A signature
/// counter that did not grow refuses the login and is audited
/// (`passkey_sign_count_regressed`): the credential may have been cloned.
///
/// ```swift
/// let passkeys = PasskeyService(login: login, relyingParty: WebAuthnRelyingParty(id: "example.com", name: "Example",
///                                                                              origins: ["https://example.com"]))
/// let options = try await passkeys.registrationOptions(for: user)
/// ```
public struct PasskeyService<Storage: AuthStorage>: Sendable {
    /// The login rules: storage, throttling, grants, audit.
    public let login: LoginService<Storage>
    /// The relying party: its id, name, origins, user-verification requirement.
    public let relyingParty: WebAuthnRelyingParty
    /// How many passkeys one account may register.
    public let limit: Int
    /// Tells the owner when a passkey is registered (nil without a delivery URL).
    public let notices: OwnerNotices<Storage>?
    /// The decoys' shape, read at most every ten minutes.
    private let decoyShape = PasskeyShapeCache(lifetime: 600)

    /// Creates the service.
    public init(login: LoginService<Storage>, relyingParty: WebAuthnRelyingParty, limit: Int = 20, notices: OwnerNotices<Storage>? = nil) {
        self.login = login
        self.relyingParty = relyingParty
        self.limit = limit
        self.notices = notices
    }

    private var storage: Storage { login.storage }

    /// The options of a registration for `user`: a new challenge, the account's user handle
    /// (random, made on the first registration), its passkeys to exclude.
    public func registrationOptions(for user: User) async throws -> PublicKeyCredentialCreationOptionsJSON {
        guard let handle = try await storage.passkeys.userHandle(ofUser: user.id, creating: Data(SecureRandom.bytes(32))) else {
            throw AuthError.invalidToken
        }
        let existing = try await storage.passkeys.passkeys(ofUser: user.id)
        let challenge = try await issueChallenge(.passkeyRegistration, userID: user.id)
        return relyingParty.creationOptions(
            challenge: challenge, user: .init(id: handle, name: user.username, displayName: user.username),
            excludeCredentials: existing.map(\.descriptor)
        )
    }

    /// Registers the credential `response` made for the options ``registrationOptions(for:)``
    /// answered `user`, and sends the owner a `passkey_added` notice.
    /// - Throws: ``AuthError`` — `invalid_request` (malformed, a name too long, a credential
    ///   registered already, too many passkeys), `invalid_credentials` (the response does not
    ///   verify, or answers no challenge of this account's).
    public func register(_ response: RegistrationResponseJSON, name: String?, for user: User, origin: RequestOrigin) async throws -> Passkey
    {
        let name = try Self.name(name)
        let challenge = try await takeChallenge(of: response.response.clientDataJSON, kind: .passkeyRegistration)
        guard let challenge, challenge.userID == user.id else { throw Self.refused }
        let verified: VerifiedCredential
        do {
            verified = try relyingParty.verifyRegistration(response, expectedChallenge: challenge.bytes)
        } catch {
            throw try await refusal(error, user: user, origin: origin)
        }
        let passkey = Passkey(
            id: verified.id, userID: user.id, publicKey: verified.publicKey, algorithm: verified.algorithm.rawValue,
            signCount: verified.signCount, backupEligible: verified.isBackupEligible, backedUp: verified.isBackedUp,
            transports: verified.transports, aaguid: verified.aaguid, attestationFormat: verified.attestationFormat, name: name,
            createdAt: login.clock.now
        )
        guard try await storage.passkeys.add(passkey, limit: limit) else {
            throw AuthError.invalidRequest("this passkey is registered already, or the account has \(limit) passkeys")
        }
        try await login.audit(
            .passkeyRegistered, user: user, usernameKey: user.usernameKey, origin: origin, detail: Base64URL.encode(passkey.id))
        try await notices?.notify(.passkeyAdded, account: .id(user.id))
        return passkey
    }

    /// The options of a login: a new challenge, and with `username` the account's passkeys
    /// as `allowCredentials`. For a name no account has (or one without passkeys) the answer
    /// looks the same: one credential id derived from the name under a secret, of the length
    /// and with the transports most registered passkeys have (``PasskeyShape``), so the answer
    /// tells no one which names exist or have passkeys. Without `username`, a discoverable login: the user
    /// picks a passkey and its user handle names the account.
    ///
    /// Each answer stores a challenge, so each is counted against the client address's login
    /// attempts (a passkey login that succeeds gives one back): a client cannot fill the
    /// table with challenges faster than it may try logins.
    /// - Throws: ``AuthError`` — `invalid_request`, `too_many_attempts`.
    public func authenticationOptions(username rawUsername: String?, origin: RequestOrigin) async throws
        -> PublicKeyCredentialRequestOptionsJSON
    {
        try await login.reserveAddress(for: nil, origin: origin, detail: "passkey_options")
        var allowed: [PublicKeyCredentialDescriptorJSON] = []
        var userID: UUID?
        if let rawUsername {
            let username = try Username(rawUsername)
            var passkeys: [Passkey] = []
            if let user = try await storage.users.user(withKey: username.key) {
                passkeys = try await storage.passkeys.passkeys(ofUser: user.id)
                userID = passkeys.isEmpty ? nil : user.id
            }
            if passkeys.isEmpty {
                let shape = try await decoyShape.shape(now: login.clock.now) { try await storage.passkeys.commonShape() }
                allowed = [shape.decoy(for: username.key, key: login.throttle.digestKey)]
            } else {
                allowed = passkeys.map(\.descriptor)
            }
        }
        let challenge = try await issueChallenge(.passkeyAuthentication, userID: userID)
        return relyingParty.requestOptions(challenge: challenge, allowCredentials: allowed)
    }

    /// A login by the assertion `response` made for the options ``authenticationOptions(username:origin:)``
    /// answered: a token pair, as a password login with its second factor gives.
    /// - Throws: ``AuthError`` — `invalid_request` (malformed), `invalid_credentials` (it does
    ///   not verify, answers no challenge, names no passkey, or its counter went back),
    ///   `account_disabled`, `too_many_attempts`.
    public func logIn(_ response: AuthenticationResponseJSON, origin: RequestOrigin) async throws -> TokenGrant {
        try await login.counted { try await checkedLogIn(response, origin: origin) }
    }

    private func checkedLogIn(_ response: AuthenticationResponseJSON, origin: RequestOrigin) async throws -> TokenGrant {
        // Each attempt costs a signature check at most: it is counted against the address.
        try await login.reserveAddress(for: nil, origin: origin, detail: "passkey")
        let challenge = try await takeChallenge(of: response.response.clientDataJSON, kind: .passkeyAuthentication)
        guard let challenge, let passkey = try await storage.passkeys.passkey(id: response.rawId),
            challenge.userID.map({ $0 == passkey.userID }) ?? true,
            let user = try await storage.users.user(withID: passkey.userID)
        else { throw Self.refused }
        let record = WebAuthnCredentialRecord(
            id: passkey.id, publicKey: passkey.publicKey, signCount: passkey.signCount, isBackupEligible: passkey.backupEligible,
            userHandle: try await storage.passkeys.userHandle(ofUser: user.id)
        )
        let verified: VerifiedAssertion
        do {
            verified = try relyingParty.verifyAuthentication(response, expectedChallenge: challenge.bytes, credential: record)
        } catch {
            throw try await refusal(error, user: user, origin: origin)
        }
        guard !verified.signCountRegressed else { throw try await signCountRegressed(passkey, user: user, origin: origin) }
        guard !user.isDisabled else {
            try await login.audit(.loginFailed, user: user, usernameKey: user.usernameKey, origin: origin, detail: "account_disabled")
            throw AuthError.accountDisabled
        }
        // The counter read above may be passed by another assertion with the same count (a
        // clone used at the same time): the update is guarded, and only one moves it.
        guard
            try await storage.passkeys.recordUse(
                id: passkey.id, signCount: verified.signCount, backedUp: verified.isBackedUp, at: login.clock.now)
        else { throw try await signCountRegressed(passkey, user: user, origin: origin) }
        guard var grant = try await login.finishLogin(of: user, origin: origin, detail: "passkey") else { throw AuthError.accountDisabled }
        grant.methods = [passkey.backupEligible ? "swk" : "hwk"]
        return grant
    }

    /// A counter that did not move forward (a possible clone): audited, refused.
    private func signCountRegressed(_ passkey: Passkey, user: User, origin: RequestOrigin) async throws -> AuthError {
        try await login.audit(
            .passkeySignCountRegressed, user: user, usernameKey: user.usernameKey, origin: origin, detail: Base64URL.encode(passkey.id))
        return Self.refused
    }

    /// The account's passkeys, oldest first.
    public func passkeys(of user: User) async throws -> [Passkey] {
        try await storage.passkeys.passkeys(ofUser: user.id)
    }

    /// Removes the account's passkey with this id (base64url), unless it is the account's
    /// only way in.
    /// - Throws: `not_found` when the account has none with that id, `invalid_request` when
    ///   it is the last way in (no password of its own, no other passkey, no identity).
    public func remove(id: String, of user: User, origin: RequestOrigin) async throws {
        guard let bytes = Base64URL.decode(id), try await storage.passkeys.passkey(id: bytes)?.userID == user.id else {
            throw AuthError.notFound("no passkey of this account has that id")
        }
        guard try await storage.passkeys.deleteKeepingAWayIn(id: bytes, ofUser: user.id) else {
            throw AuthError.invalidRequest(
                "This passkey is the account's only way in: set a password or link a provider before removing it.")
        }
        try await login.audit(.passkeyRemoved, user: user, usernameKey: user.usernameKey, origin: origin, detail: Base64URL.encode(bytes))
    }

    /// A challenge stored and its bytes.
    private struct TakenChallenge {
        let bytes: Data
        let userID: UUID?
    }

    /// A fresh challenge, stored for ``LoginChallenge/lifetime`` seconds.
    private func issueChallenge(_ kind: LoginChallenge.Kind, userID: UUID?) async throws -> Data {
        let bytes = Data(SecureRandom.bytes(32))
        let now = login.clock.now
        try await storage.loginChallenges.store(
            LoginChallenge(
                tokenHash: OpaqueToken.hash(of: Base64URL.encode(bytes)), kind: kind, userID: userID, passwordHash: nil, createdAt: now,
                expiresAt: now.addingTimeInterval(TimeInterval(LoginChallenge.lifetime)), attemptsLeft: 1
            ))
        return bytes
    }

    /// The stored challenge the client data answers, used up now (whatever the outcome);
    /// nil when it names none that still works.
    /// - Throws: `invalid_request` when the client data is malformed.
    private func takeChallenge(of clientDataJSON: Data, kind: LoginChallenge.Kind) async throws -> TakenChallenge? {
        let clientData: CollectedClientData
        do {
            clientData = try CollectedClientData(json: clientDataJSON)
        } catch {
            throw AuthError.invalidRequest("credential.response.clientDataJSON: \(error)")
        }
        let tokenHash = OpaqueToken.hash(of: Base64URL.encode(clientData.challenge))
        guard let stored = try await storage.loginChallenges.take(tokenHash: tokenHash, kind: kind, now: login.clock.now) else {
            return nil
        }
        return TakenChallenge(bytes: clientData.challenge, userID: stored.userID)
    }

    /// What a WebAuthn error becomes: 400 naming the field for a malformed payload; for a
    /// refused one, 401 (the reason audited as `login_failed`, never sent).
    private func refusal(_ error: WebAuthnError, user: User, origin: RequestOrigin) async throws -> AuthError {
        if error.isMalformed { return AuthError.invalidRequest("credential: \(error)") }
        try await login.audit(
            .loginFailed, user: user, usernameKey: user.usernameKey, origin: origin,
            detail: "passkey_\(error.check?.rawValue ?? "rejected")")
        return Self.refused
    }

    private static var refused: AuthError { AuthError.passkeyRefused }

    /// A passkey's name: trimmed, control characters dropped, at most 64 characters; `passkey` when none.
    static func name(_ raw: String?) throws -> String {
        let cleaned = String(String.UnicodeScalarView((raw ?? "").unicodeScalars.filter { !$0.properties.generalCategory.isControlLike }))
            .trimmingCharacters(in: .whitespaces)
        guard cleaned.count <= 64 else { throw AuthError.invalidRequest("name must be at most 64 characters") }
        return cleaned.isEmpty ? "passkey" : cleaned
    }
}
