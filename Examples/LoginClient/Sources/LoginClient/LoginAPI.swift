import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A session after a successful login.
public struct LoginSession: Sendable, Equatable {
    /// The bearer token for API calls.
    public let accessToken: String
    /// Seconds until `accessToken` expires.
    public let expiresIn: Int
    /// The token that renews the session.
    public let refreshToken: String
}

/// Why a login did not produce a session.
public enum LoginError: Error, Equatable {
    /// Wrong username or password.
    case invalidCredentials
    /// The account exists but is disabled.
    case accountDisabled
    /// The password was right and the account has a second factor on: finish with
    /// ``LoginAPI/completeLogin(mfaToken:code:)`` (or a recovery code) within 5 minutes.
    case secondFactorRequired(mfaToken: String)
    /// A provider's sign-in whose verified email is an existing account's: sign in to that
    /// account, then confirm the link with this token (`POST /me/identities`) within 10 minutes.
    case linkRequired(linkToken: String)
    /// A provider's sign-in of an identity no account has, where none may be made.
    case noAccount
    /// The request was refused as malformed; the server's description.
    case invalidRequest(String)
    /// Too many attempts; try again after this many seconds.
    case tooManyAttempts(retryAfter: Int?)
    /// Sign-up: the username is taken.
    case usernameTaken
    /// Sign-up: the email address is another account's.
    case emailTaken
    /// Sign-up or a password change: the password is refused; the server says why.
    case weakPassword(String)
    /// The access token is not (or no longer) accepted.
    case invalidToken
    /// The server answered with a status this client does not expect.
    case unexpectedStatus(Int)
    /// The server's answer could not be understood.
    case malformedResponse
    /// The server answered `503` to every attempt the ``RetryPolicy`` allows; its last `Retry-After`.
    case serviceUnavailable(retryAfter: Int?)
    /// An attempt took longer than the ``RetryPolicy``'s timeout.
    case timedOut
}

/// The login API of an authd server, over URLSession.
///
/// ```swift
/// let api = LoginAPI(baseURL: URL(string: "https://auth.example.com")!)
/// let session = try await api.login(username: "alice", password: "correct horse battery staple")
/// ```
public struct LoginAPI: Sendable {
    /// The server.
    public let baseURL: URL
    /// The session requests go through (tests pass a stub's).
    public let session: URLSession
    /// The `User-Agent` sent with each request (the server shows it in the session list).
    public let userAgent: String?
    /// Retries of a `503` and the timeout of each attempt.
    public let retry: RetryPolicy

    /// Creates a client.
    public init(baseURL: URL, session: URLSession = .shared, userAgent: String? = nil, retry: RetryPolicy = RetryPolicy()) {
        self.baseURL = baseURL
        self.session = session
        self.userAgent = userAgent
        self.retry = retry
    }

    /// Logs in.
    /// - Throws: ``LoginError`` (``LoginError/secondFactorRequired(mfaToken:)`` when the
    ///   account has an authenticator app; ``LoginError/serviceUnavailable(retryAfter:)`` and
    ///   ``LoginError/timedOut`` as the ``RetryPolicy`` says), or a `URLError` when the server
    ///   cannot be reached.
    public func login(username: String, password: String) async throws -> LoginSession {
        let request = try self.request("POST", "login", json: ["username": username, "password": password])
        let (data, http) = try await perform(request)
        switch http.statusCode {
        case 200:
            guard let body = try? JSONDecoder().decode(TokenBody.self, from: data), body.tokenType == "Bearer" else {
                throw LoginError.malformedResponse
            }
            return LoginSession(accessToken: body.accessToken, expiresIn: body.expiresIn, refreshToken: body.refreshToken)
        case 400, 401:
            guard let error = try? JSONDecoder().decode(ErrorBody.self, from: data) else { throw LoginError.malformedResponse }
            switch error.error {
            case "invalid_credentials": throw LoginError.invalidCredentials
            case "account_disabled": throw LoginError.accountDisabled
            case "mfa_required":
                guard let token = error.mfaToken else { throw LoginError.malformedResponse }
                throw LoginError.secondFactorRequired(mfaToken: token)
            default: throw LoginError.invalidRequest(error.errorDescription)
            }
        case 429:
            throw LoginError.tooManyAttempts(retryAfter: http.value(forHTTPHeaderField: "Retry-After").flatMap(Int.init))
        default:
            throw LoginError.unexpectedStatus(http.statusCode)
        }
    }

    /// A request to `path` with this client's `User-Agent`, a bearer token and a JSON body
    /// when given.
    func request(_ method: String, _ path: String, bearer: String? = nil, json: [String: String]? = nil) throws -> URLRequest {
        var request = URLRequest(url: baseURL.appendingPathComponent(path))
        request.httpMethod = method
        if let userAgent { request.setValue(userAgent, forHTTPHeaderField: "User-Agent") }
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        if let json {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONEncoder().encode(json)
        }
        return request
    }

    struct TokenBody: Decodable {
        let accessToken: String
        let tokenType: String
        let expiresIn: Int
        let refreshToken: String

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case tokenType = "token_type"
            case expiresIn = "expires_in"
            case refreshToken = "refresh_token"
        }
    }

    struct ErrorBody: Decodable {
        let error: String
        let errorDescription: String
        let mfaToken: String?

        enum CodingKeys: String, CodingKey {
            case error
            case errorDescription = "error_description"
            case mfaToken = "mfa_token"
        }
    }
}
