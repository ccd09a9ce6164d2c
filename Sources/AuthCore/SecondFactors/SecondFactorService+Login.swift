import Foundation

extension SecondFactorService {
    /// The second step of a login (`POST /login/mfa`): the `mfa_token` the password step
    /// issued and a code of the account's authenticator app or one of its recovery codes,
    /// for a token pair.
    ///
    /// The token must be unused, unexpired (5 minutes), still bound to the account's
    /// password hash, and have attempts left (5, each taken before its answer is checked).
    /// Each attempt is also reserved against the account's second-factor counter and the
    /// client's address first.
    /// - Throws: ``AuthError`` — `invalid_request`, `invalid_token`, `invalid_credentials`
    ///   (a wrong or replayed code), `account_disabled`, `too_many_attempts`.
    ///
    /// ```swift
    /// let grant = try await factors.completeLogin(mfaToken: body.mfaToken, proof: .code("123456"), origin: origin)
    /// ```
    public func completeLogin(mfaToken: String, proof: SecondFactorProof, origin: RequestOrigin) async throws -> TokenGrant {
        try await login.counted { try await checkedCompleteLogin(mfaToken: mfaToken, proof: proof, origin: origin) }
    }

    private func checkedCompleteLogin(mfaToken: String, proof: SecondFactorProof, origin: RequestOrigin) async throws -> TokenGrant {
        // A code that is not 6 digits is malformed (400) before any lookup.
        var proof = proof
        if case .code(let code) = proof { proof = .code(try TOTPPolicy.normalized(code)) }
        let storage = login.storage
        let tokenHash = OpaqueToken.hash(of: mfaToken)
        // The token's attempt is taken before anything is checked, so answers sent at once
        // get no more checks than the token has attempts.
        guard
            let challenge = try await storage.loginChallenges.reserveAttempt(
                tokenHash: tokenHash, kind: .secondFactor, now: login.clock.now),
            let userID = challenge.userID,
            let user = try await storage.users.user(withID: userID),
            user.passwordHash == challenge.passwordHash
        else { throw AuthError.invalidToken }
        let usernameKey = user.usernameKey
        guard !user.isDisabled else {
            try await login.audit(.loginFailed, user: user, usernameKey: usernameKey, origin: origin, detail: "account_disabled")
            throw AuthError.accountDisabled
        }
        let attempt = [login.throttle.secondFactorKey(userID: user.id), login.throttle.addressKey(origin.clientAddress)].compactMap { $0 }
        try await login.reserve(attempt, for: user, origin: origin, detail: "second_factor")

        let failure: String?
        let factorName: String
        switch proof {
        case .code(let code):
            factorName = "totp"
            if let factor = try await storage.secondFactors.totpFactor(userID: user.id), factor.isConfirmed {
                failure = try await accept(code, factor: factor)
            } else {
                failure = "wrong_code"
            }
        case .recoveryCode(let code):
            factorName = "recovery_code"
            if let hash = RecoveryCode.hash(of: code),
                try await storage.secondFactors.useRecoveryCode(userID: user.id, codeHash: hash, now: login.clock.now)
            {
                failure = nil
            } else {
                failure = "wrong_recovery_code"
            }
        }
        if let failure {
            try await login.audit(.loginFailed, user: user, usernameKey: usernameKey, origin: origin, detail: failure)
            throw AuthError.invalidCode
        }
        guard try await storage.loginChallenges.take(tokenHash: tokenHash, kind: .secondFactor, now: login.clock.now) != nil else {
            throw AuthError.invalidToken
        }
        // As a password login's: the session is written only if the account still has the
        // password hash the first step checked, and is enabled.
        guard let grant = try await login.finishLogin(of: user, origin: origin, detail: factorName) else { throw AuthError.invalidToken }
        return grant
    }
}
