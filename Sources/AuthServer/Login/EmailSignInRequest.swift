/// The body of `POST /login/email`: `{"email"}`, the address to send a sign-in code to.
///
/// ```swift
/// let body = try await JSONRequestBody.decode(EmailSignInRequest.self, from: request, limit: 64 * 1024)
/// ```
public struct EmailSignInRequest: RequestBody {
    /// The account's email address.
    public let email: NonEmptyString

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case email
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        email = try container.decode(NonEmptyString.self, forKey: .email)
    }
}

/// The body of `POST /login/email/verify`: `{"email", "code"}` (the 6 digits the message
/// carried), or `{"token"}` (the message's token, as an app's own link hands it over).
public struct EmailSignInVerification: RequestBody {
    /// The address the code was sent to, with `code`.
    public let email: NonEmptyString?
    /// The code.
    public let code: NonEmptyString?
    /// The message's token, alone.
    public let token: NonEmptyString?

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case email, code, token
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        email = try container.decodeUnlessAbsent(NonEmptyString.self, forKey: .email)
        code = try container.decodeUnlessAbsent(NonEmptyString.self, forKey: .code)
        token = try container.decodeUnlessAbsent(NonEmptyString.self, forKey: .token)
    }
}
