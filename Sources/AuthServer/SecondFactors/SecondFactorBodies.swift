import AuthCore

/// The body of `POST /mfa/totp/confirm`: `{"code"}`, the enrolled app's current code.
///
/// ```swift
/// let body = try await JSONRequestBody.decode(TOTPConfirmation.self, from: request, limit: 64 * 1024)
/// ```
public struct TOTPConfirmation: RequestBody {
    /// The code (6 digits; spaces are ignored).
    public let code: NonEmptyString

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case code
    }
}

/// The body of `DELETE /mfa/totp`: `{"code"}` or `{"password"}`, exactly one; a field sent
/// as `null` is refused, not taken as absent.
///
/// ```swift
/// let removal = try await JSONRequestBody.decode(TOTPRemoval.self, from: request, limit: 64 * 1024).removal()
/// ```
public struct TOTPRemoval: RequestBody {
    /// The app's current code.
    public let code: NonEmptyString?
    /// The account's password. Never log it.
    public let password: NonEmptyString?

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case code, password
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        code = try container.decodeUnlessAbsent(NonEmptyString.self, forKey: .code)
        password = try container.decodeUnlessAbsent(NonEmptyString.self, forKey: .password)
    }

    /// What the body proves.
    /// - Throws: `invalid_request` unless exactly one field was sent.
    public func removal() throws -> TOTPRemovalProof {
        switch (code, password) {
        case (let code?, nil): .code(code.value)
        case (nil, let password?): .password(password.value)
        default: throw AuthError.invalidRequest("send either code or password")
        }
    }
}

/// The body of `POST /login/mfa`: `{"mfa_token", "code"}` or `{"mfa_token", "recovery_code"}`.
///
/// ```swift
/// let body = try await JSONRequestBody.decode(SecondFactorLoginRequest.self, from: request, limit: 64 * 1024)
/// ```
public struct SecondFactorLoginRequest: RequestBody {
    /// The token `POST /login` answered with `mfa_required`.
    public let mfaToken: NonEmptyString
    /// The authenticator app's current code.
    public let code: NonEmptyString?
    /// One of the recovery codes.
    public let recoveryCode: NonEmptyString?

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case mfaToken = "mfa_token"
        case code
        case recoveryCode = "recovery_code"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        mfaToken = try container.decode(NonEmptyString.self, forKey: .mfaToken)
        code = try container.decodeUnlessAbsent(NonEmptyString.self, forKey: .code)
        recoveryCode = try container.decodeUnlessAbsent(NonEmptyString.self, forKey: .recoveryCode)
    }

    /// What the body presents.
    /// - Throws: `invalid_request` unless exactly one of `code` and `recovery_code` was sent.
    public func proof() throws -> SecondFactorProof {
        switch (code, recoveryCode) {
        case (let code?, nil): .code(code.value)
        case (nil, let recoveryCode?): .recoveryCode(recoveryCode.value)
        default: throw AuthError.invalidRequest("send either code or recovery_code")
        }
    }
}

/// The answer of `POST /mfa/totp`: the new key for the app, typed in (`secret`, base32) or
/// scanned (`otpauth_uri`, for a QR code).
struct TOTPEnrolment: Encodable {
    let secret: String
    let otpauthURI: String

    enum CodingKeys: String, CodingKey {
        case secret
        case otpauthURI = "otpauth_uri"
    }
}

/// The answer of `POST /mfa/totp/confirm`: the recovery codes, shown this once.
struct RecoveryCodes: Encodable {
    let recoveryCodes: [String]

    enum CodingKeys: String, CodingKey {
        case recoveryCodes = "recovery_codes"
    }
}
