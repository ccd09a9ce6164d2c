/// The body of `POST /token/refresh` and `POST /logout`: `{"refresh_token"}`, non-empty.
///
/// ```swift
/// let body = try await JSONRequestBody.decode(RefreshTokenRequest.self, from: request, limit: 64 * 1024)
/// ```
public struct RefreshTokenRequest: RequestBody {
    /// The opaque refresh token. Never log it.
    public let refreshToken: NonEmptyString

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case refreshToken = "refresh_token"
    }
}
