import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A new authenticator app's key, as `POST /mfa/totp` answers it.
public struct AuthenticatorEnrolment: Sendable, Equatable {
    /// The key in base32, for typing into the app.
    public let secret: String
    /// The `otpauth://` URI, for a QR code.
    public let uri: String
}

extension LoginAPI {
    /// Begins adding an authenticator app to the account: show ``AuthenticatorEnrolment/uri``
    /// as a QR code, then confirm with the app's first code.
    /// - Throws: ``LoginError/invalidToken``, ``LoginError/unexpectedStatus(_:)`` (409 when an app is on already).
    ///
    /// ```swift
    /// let enrolment = try await api.enrolAuthenticatorApp(accessToken: session.accessToken)
    /// ```
    public func enrolAuthenticatorApp(accessToken: String) async throws -> AuthenticatorEnrolment {
        let (data, http) = try await send(try request("POST", "mfa/totp", bearer: accessToken, json: [:]))
        guard http.statusCode == 200 else { throw Self.error(http, data) }
        guard let body = try? JSONDecoder().decode(EnrolmentBody.self, from: data) else { throw LoginError.malformedResponse }
        return AuthenticatorEnrolment(secret: body.secret, uri: body.otpauthURI)
    }

    /// Turns the enrolled app on with its current code; answers the ten recovery codes, to
    /// show the user once.
    /// - Throws: ``LoginError/invalidCredentials`` for a wrong code, ``LoginError/invalidToken``.
    ///
    /// ```swift
    /// let recoveryCodes = try await api.confirmAuthenticatorApp(accessToken: session.accessToken, code: "123456")
    /// ```
    public func confirmAuthenticatorApp(accessToken: String, code: String) async throws -> [String] {
        let (data, http) = try await send(try request("POST", "mfa/totp/confirm", bearer: accessToken, json: ["code": code]))
        guard http.statusCode == 200 else { throw Self.error(http, data) }
        guard let body = try? JSONDecoder().decode(RecoveryCodesBody.self, from: data) else { throw LoginError.malformedResponse }
        return body.recoveryCodes
    }

    /// Finishes a login that answered ``LoginError/secondFactorRequired(mfaToken:)``, with
    /// the app's current code.
    /// - Throws: ``LoginError/invalidCredentials`` (a wrong or used code: the token still
    ///   works for a few more), ``LoginError/invalidToken`` (log in again).
    ///
    /// ```swift
    /// let session = try await api.completeLogin(mfaToken: token, code: "123456")
    /// ```
    public func completeLogin(mfaToken: String, code: String) async throws -> LoginSession {
        try await completeLogin(["mfa_token": mfaToken, "code": code])
    }

    /// Finishes such a login with one of the recovery codes instead (each works once).
    /// - Throws: as ``completeLogin(mfaToken:code:)``.
    public func completeLogin(mfaToken: String, recoveryCode: String) async throws -> LoginSession {
        try await completeLogin(["mfa_token": mfaToken, "recovery_code": recoveryCode])
    }

    private func completeLogin(_ fields: [String: String]) async throws -> LoginSession {
        let (data, http) = try await send(try request("POST", "login/mfa", json: fields))
        guard http.statusCode == 200 else { throw Self.error(http, data) }
        guard let body = try? JSONDecoder().decode(TokenBody.self, from: data), body.tokenType == "Bearer" else {
            throw LoginError.malformedResponse
        }
        return LoginSession(accessToken: body.accessToken, expiresIn: body.expiresIn, refreshToken: body.refreshToken)
    }

    private struct EnrolmentBody: Decodable {
        let secret: String
        let otpauthURI: String

        enum CodingKeys: String, CodingKey {
            case secret
            case otpauthURI = "otpauth_uri"
        }
    }

    private struct RecoveryCodesBody: Decodable {
        let recoveryCodes: [String]

        enum CodingKeys: String, CodingKey {
            case recoveryCodes = "recovery_codes"
        }
    }
}
