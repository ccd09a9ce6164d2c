import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension LoginAPI {
    /// Signs in with an ID token the app got natively from an upstream provider: Sign in with
    /// Apple's `ASAuthorizationAppleIDCredential.identityToken`, Google Sign-In's
    /// `idToken.tokenString`. `nonce` is the raw nonce whose lowercase hex SHA-256 the app gave
    /// the provider's request (nil when it gave none).
    ///
    /// ```swift
    /// let rawNonce = UUID().uuidString   // its SHA-256 went into ASAuthorizationAppleIDRequest.nonce
    /// let session = try await api.signIn(provider: "apple", idToken: identityToken, nonce: rawNonce)
    /// ```
    /// - Throws: ``LoginError`` — ``LoginError/linkRequired(linkToken:)`` when the provider's
    ///   verified email is an existing account's (sign in to it, then confirm with the token);
    ///   ``LoginError/secondFactorRequired(mfaToken:)``; ``LoginError/noAccount`` when no
    ///   account has the identity and none may be made; ``LoginError/invalidCredentials`` for a
    ///   token that does not verify or was used; ``LoginError/invalidRequest(_:)`` for an
    ///   unknown provider.
    public func signIn(provider: String, idToken: String, nonce: String?) async throws -> LoginSession {
        var fields = ["provider": provider, "id_token": idToken]
        fields["nonce"] = nonce
        return try await providerSignIn(fields)
    }

    /// Signs in with Sign in with Apple's `authorizationCode` (authd exchanges it, keeps
    /// Apple's refresh token sealed and revokes it when the account is deleted); `clientID` the
    /// app's bundle id.
    /// - Throws: as ``signIn(provider:idToken:nonce:)``.
    public func signIn(provider: String, authorizationCode: String, clientID: String, nonce: String?) async throws -> LoginSession {
        var fields = ["provider": provider, "authorization_code": authorizationCode, "client_id": clientID]
        fields["nonce"] = nonce
        return try await providerSignIn(fields)
    }

    private func providerSignIn(_ fields: [String: String]) async throws -> LoginSession {
        let (data, http) = try await send(try request("POST", "login/id-token", json: fields))
        guard http.statusCode == 200 else {
            if let body = try? JSONDecoder().decode(ProviderErrorBody.self, from: data) {
                switch body.error {
                case "link_required": if let token = body.linkToken { throw LoginError.linkRequired(linkToken: token) }
                case "mfa_required": if let token = body.mfaToken { throw LoginError.secondFactorRequired(mfaToken: token) }
                case "not_found": throw LoginError.noAccount
                case "account_disabled": throw LoginError.accountDisabled
                default: break
                }
            }
            throw Self.error(http, data)
        }
        guard let body = try? JSONDecoder().decode(TokenBody.self, from: data), body.tokenType == "Bearer" else {
            throw LoginError.malformedResponse
        }
        return LoginSession(accessToken: body.accessToken, expiresIn: body.expiresIn, refreshToken: body.refreshToken)
    }

    private struct ProviderErrorBody: Decodable {
        let error: String
        let linkToken: String?
        let mfaToken: String?

        enum CodingKeys: String, CodingKey {
            case error
            case linkToken = "link_token"
            case mfaToken = "mfa_token"
        }
    }
}
