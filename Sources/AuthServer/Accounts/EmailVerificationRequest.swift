/// The body of `POST /email/verify`: `{"token"}`.
///
/// ```swift
/// let body = try await JSONRequestBody.decode(EmailVerificationRequest.self, from: request, limit: 64 * 1024)
/// ```
public struct EmailVerificationRequest: RequestBody {
    /// The token the verification message carried. Never log it.
    public let token: NonEmptyString

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case token
    }
}
