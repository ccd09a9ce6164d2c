import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An account as `POST /users` answers it.
public struct Account: Sendable, Equatable {
    /// The account's id.
    public let id: String
    /// The username as registered.
    public let username: String
}

/// One entry of `GET /sessions`.
public struct ActiveSession: Sendable, Equatable {
    /// Its id, to end it.
    public let id: String
    /// The `User-Agent` it began with, if any.
    public let userAgent: String?
    /// Whether it is the session of the access token that asked.
    public let isCurrent: Bool
}

extension LoginAPI {
    /// Creates an account (the server must run with `--signup open`), with an email address
    /// where password resets can be sent if one is given (the server then sends it a
    /// verification message: see ``verifyEmail(token:)``).
    /// - Throws: ``LoginError/usernameTaken``, ``LoginError/emailTaken``, ``LoginError/weakPassword(_:)``,
    ///   ``LoginError/tooManyAttempts(retryAfter:)``, ``LoginError/invalidRequest(_:)``.
    ///
    /// ```swift
    /// let account = try await api.signUp(username: "nina", password: "correct horse battery staple")
    /// ```
    public func signUp(username: String, password: String, email: String? = nil) async throws -> Account {
        var fields = ["username": username, "password": password]
        fields["email"] = email
        let (data, http) = try await send(try request("POST", "users", json: fields))
        guard http.statusCode == 201 else { throw Self.error(http, data) }
        guard let body = try? JSONDecoder().decode(AccountBody.self, from: data) else { throw LoginError.malformedResponse }
        return Account(id: body.userID, username: body.username)
    }

    /// The live sessions of the account `accessToken` was issued to, newest first.
    /// - Throws: ``LoginError/invalidToken``.
    ///
    /// ```swift
    /// for session in try await api.sessions(accessToken: login.accessToken) { print(session.userAgent ?? "?") }
    /// ```
    public func sessions(accessToken: String) async throws -> [ActiveSession] {
        let (data, http) = try await send(try request("GET", "sessions", bearer: accessToken))
        guard http.statusCode == 200 else { throw Self.error(http, data) }
        guard let entries = try? JSONDecoder().decode([SessionBody].self, from: data) else { throw LoginError.malformedResponse }
        return entries.map { ActiveSession(id: $0.id, userAgent: $0.userAgent, isCurrent: $0.current) }
    }

    /// Asks for a password reset of the account with this username or email address. The
    /// server answers the same whether or not one exists; the token goes to the account's
    /// mailer, never to this client.
    /// - Throws: ``LoginError/tooManyAttempts(retryAfter:)``, ``LoginError/invalidRequest(_:)``.
    ///
    /// ```swift
    /// try await api.requestPasswordReset(email: "pat@example.com")
    /// ```
    public func requestPasswordReset(username: String? = nil, email: String? = nil) async throws {
        var fields: [String: String] = [:]
        fields["username"] = username
        fields["email"] = email
        let (data, http) = try await send(try request("POST", "password/reset", json: fields))
        guard http.statusCode == 202 else { throw Self.error(http, data) }
    }

    /// Sets a new password with the token of a reset message (from the link the user opened).
    /// - Throws: ``LoginError/invalidToken`` (unknown, used or expired), ``LoginError/weakPassword(_:)``.
    ///
    /// ```swift
    /// try await api.resetPassword(token: tokenFromTheLink, newPassword: "a whole new passphrase")
    /// ```
    public func resetPassword(token: String, newPassword: String) async throws {
        let (data, http) = try await send(
            try request("POST", "password/reset/confirm", json: ["token": token, "new_password": newPassword]))
        guard http.statusCode == 204 else { throw Self.error(http, data) }
    }

    /// Confirms the account's email address with the token of its verification message.
    /// - Throws: ``LoginError/invalidToken``.
    ///
    /// ```swift
    /// try await api.verifyEmail(token: tokenFromTheLink)
    /// ```
    public func verifyEmail(token: String) async throws {
        let (data, http) = try await send(try request("POST", "email/verify", json: ["token": token]))
        guard http.statusCode == 204 else { throw Self.error(http, data) }
    }

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        try await perform(request)
    }

    /// The error an answer other than success stands for.
    static func error(_ http: HTTPURLResponse, _ data: Data) -> LoginError {
        if http.statusCode == 429 {
            return .tooManyAttempts(retryAfter: http.value(forHTTPHeaderField: "Retry-After").flatMap(Int.init))
        }
        guard let error = try? JSONDecoder().decode(ErrorBody.self, from: data) else { return .unexpectedStatus(http.statusCode) }
        switch error.error {
        case "username_taken": return .usernameTaken
        case "email_taken": return .emailTaken
        case "weak_password": return .weakPassword(error.errorDescription)
        case "invalid_token": return .invalidToken
        case "invalid_credentials": return .invalidCredentials
        case "invalid_request": return .invalidRequest(error.errorDescription)
        default: return .unexpectedStatus(http.statusCode)
        }
    }

    private struct AccountBody: Decodable {
        let userID: String
        let username: String

        enum CodingKeys: String, CodingKey {
            case userID = "user_id"
            case username
        }
    }

    private struct SessionBody: Decodable {
        let id: String
        let userAgent: String?
        let current: Bool

        enum CodingKeys: String, CodingKey {
            case id, current
            case userAgent = "user_agent"
        }
    }
}
