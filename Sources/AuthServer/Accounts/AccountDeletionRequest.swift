/// The body of `DELETE /me`: `{"password"}`, the account's password, non-empty.
///
/// ```swift
/// let body = try await JSONRequestBody.decode(AccountDeletionRequest.self, from: request, limit: 64 * 1024)
/// ```
public struct AccountDeletionRequest: RequestBody {
    /// The account's password, to confirm. Never log it.
    public let password: NonEmptyString

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case password
    }
}
