/// What the second step of a login presents (`POST /login/mfa`).
///
/// ```swift
/// let grant = try await factors.completeLogin(mfaToken: token, proof: .code("123456"), origin: origin)
/// ```
public enum SecondFactorProof: Sendable, Equatable {
    /// The authenticator app's current code.
    case code(String)
    /// One of the recovery codes.
    case recoveryCode(String)
}

/// What proves the owner's wish to turn TOTP off (`DELETE /mfa/totp`).
///
/// ```swift
/// try await factors.removeTOTP(for: user, proof: .password("…"), origin: origin)
/// ```
public enum TOTPRemovalProof: Sendable, Equatable {
    /// The authenticator app's current code.
    case code(String)
    /// The account's password.
    case password(String)
}
