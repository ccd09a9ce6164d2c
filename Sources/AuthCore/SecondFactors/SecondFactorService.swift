import Foundation
import JOSE

/// Second factors: an authenticator app (TOTP, RFC 6238) turned on with its first code,
/// the recovery codes that come with it, and the second step of a login
/// (``completeLogin(mfaToken:proof:origin:)``).
///
/// Codes are accepted one step either side of the current one, each step once (a code, or
/// an earlier one, is refused after a later one was accepted), compared in constant time,
/// and counted against the account's second-factor throttle counter, which only a completed
/// login clears. The key is sealed at rest under the KEK, bound to the account.
///
/// ```swift
/// let factors = SecondFactorService(login: login, algorithm: HummingbirdTOTP(), keyEncryptionKey: kek)
/// let secret = try await factors.beginTOTP(for: user)
/// let recoveryCodes = try await factors.confirmTOTP(for: user, code: "123456", origin: origin)
/// ```
public struct SecondFactorService<Storage: AuthStorage>: Sendable {
    /// The login rules this service completes: storage, throttling, grants, audit.
    public let login: LoginService<Storage>
    /// What computes codes.
    public let algorithm: any TOTPAlgorithm
    /// Tells the owner when TOTP is turned on (nil without a delivery URL).
    public let notices: OwnerNotices<Storage>?
    private let sealer: SecretSealer

    /// Creates the service; keys are sealed under `keyEncryptionKey`'s `totp-secrets` key.
    public init(
        login: LoginService<Storage>, algorithm: any TOTPAlgorithm, keyEncryptionKey: KeyEncryptionKey,
        notices: OwnerNotices<Storage>? = nil
    ) {
        self.login = login
        self.algorithm = algorithm
        self.notices = notices
        self.sealer = SecretSealer(keyEncryptionKey: keyEncryptionKey, purpose: "totp-secrets")
    }

    private var storage: Storage { login.storage }

    /// Begins an enrolment: a new key, sealed and stored, waiting for its first code
    /// (replacing an enrolment that never got one).
    /// - Throws: ``AuthError/totpAlreadyEnabled`` when TOTP is on.
    public func beginTOTP(for user: User) async throws -> TOTPSecret {
        let secret = TOTPSecret.generate()
        let sealed = try sealer.seal(Data(secret.bytes), context: Self.context(user.id))
        guard try await storage.secondFactors.beginTOTP(userID: user.id, sealedSecret: sealed, now: login.clock.now) else {
            throw AuthError.totpAlreadyEnabled
        }
        return secret
    }

    /// Turns TOTP on with the enrolment's first code, and issues the recovery codes (shown
    /// once; only their digests are kept); the owner is sent a `totp_enabled` notice.
    /// - Throws: ``AuthError`` — `invalid_request` (not 6 digits), `not_found` (no
    ///   enrolment), `totp_already_enabled`, `invalid_credentials` (wrong code),
    ///   `too_many_attempts`.
    public func confirmTOTP(for user: User, code: String, origin: RequestOrigin) async throws -> [String] {
        let code = try TOTPPolicy.normalized(code)
        guard let factor = try await storage.secondFactors.totpFactor(userID: user.id) else {
            throw AuthError.notFound("No authenticator app enrolment is waiting: POST /mfa/totp first.")
        }
        guard !factor.isConfirmed else { throw AuthError.totpAlreadyEnabled }
        let key = try await reserveCodeAttempt(for: user, origin: origin)
        let codes = (0..<RecoveryCode.count).map { _ in RecoveryCode.generate() }
        guard let step = try matchingStep(code, factor: factor),
            try await storage.secondFactors.confirmTOTP(
                userID: user.id, step: step, recoveryCodeHashes: codes.map(\.hash), now: login.clock.now)
        else {
            try await login.audit(.loginFailed, user: user, usernameKey: user.usernameKey, origin: origin, detail: "wrong_code")
            throw AuthError.invalidCode
        }
        try await storage.loginAttempts.release([], clearing: [key])
        try await login.audit(.totpEnabled, user: user, usernameKey: user.usernameKey, origin: origin)
        try await notices?.notify(.totpEnabled, account: .id(user.id))
        return codes.map(\.code)
    }

    /// Turns TOTP off (or drops an enrolment waiting for its code), with the recovery codes,
    /// once the owner proves it with a current code or the password (re-authenticated as
    /// ``LoginService/confirmPassword(of:password:origin:)`` does).
    /// - Throws: ``AuthError`` — `invalid_request`, `not_found` (no app enrolled),
    ///   `invalid_credentials`, `too_many_attempts`.
    public func removeTOTP(for user: User, proof: TOTPRemovalProof, origin: RequestOrigin) async throws {
        guard let factor = try await storage.secondFactors.totpFactor(userID: user.id) else {
            throw AuthError.notFound("No authenticator app is enrolled.")
        }
        let detail: String
        var checked = CheckedAccount(user)
        switch proof {
        case .password(let password):
            checked = try await login.confirmPassword(of: user, password: password, origin: origin)
            detail = "password"
        case .code(let code):
            let code = try TOTPPolicy.normalized(code)
            let key = try await reserveCodeAttempt(for: user, origin: origin)
            guard let failure = try await accept(code, factor: factor) else {
                try await storage.loginAttempts.release([], clearing: [key])
                detail = "code"
                break
            }
            try await login.audit(.loginFailed, user: user, usernameKey: user.usernameKey, origin: origin, detail: failure)
            throw AuthError.invalidCode
        }
        // Only while the account is as the proof was checked against: a reset or a
        // disabling since then wins.
        guard try await storage.secondFactors.deleteTOTP(userID: user.id, whileUnchanged: checked) else {
            throw AuthError.invalidCredentials
        }
        try await login.audit(.totpDisabled, user: user, usernameKey: user.usernameKey, origin: origin, detail: detail)
    }

    /// Reserves a code attempt against the account's second-factor counter and the
    /// client's address; returns the account's key (what a success clears).
    private func reserveCodeAttempt(for user: User, origin: RequestOrigin) async throws -> ThrottleKey {
        let key = login.throttle.secondFactorKey(userID: user.id)
        try await login.reserve([key], for: user, origin: origin, detail: "second_factor")
        return key
    }

    /// Checks a normalised `code` against a confirmed or waiting `factor` and, for a
    /// confirmed one, records its step; nil when accepted, else the audit detail of the
    /// failure (`wrong_code`, `replayed_code`).
    func accept(_ code: String, factor: TOTPFactor) async throws -> String? {
        guard let step = try matchingStep(code, factor: factor) else { return "wrong_code" }
        guard factor.isConfirmed else { return nil }
        return try await storage.secondFactors.useTOTPStep(userID: factor.userID, step: step) ? nil : "replayed_code"
    }

    /// The latest step within the skew whose code is `code`, every candidate compared in
    /// full, so the time taken does not depend on which (or whether one) matched.
    private func matchingStep(_ code: String, factor: TOTPFactor) throws -> Int64? {
        let secret = try openSecret(factor)
        let now = TOTPPolicy.step(at: login.clock.now)
        var matched: Int64?
        for step in (now - TOTPPolicy.skew)...(now + TOTPPolicy.skew) {
            if ConstantTime.equal(Array(algorithm.code(secret: secret, step: step).utf8), Array(code.utf8)) {
                matched = step
            }
        }
        return matched
    }

    private func openSecret(_ factor: TOTPFactor) throws -> TOTPSecret {
        let bytes = try sealer.open(factor.sealedSecret, context: Self.context(factor.userID))
        guard let secret = TOTPSecret(bytes: [UInt8](bytes)) else { throw SecretSealerError() }
        return secret
    }

    /// What a sealed key is bound to: its account.
    private static func context(_ userID: UUID) -> String { "totp:" + userID.uuidString.lowercased() }
}
