/// The body of `DELETE /me`: `{"password"}`, the account's password, non-empty; an
/// account with no password of its own (made by a provider sign-in) sends `{}` with a
/// recent access token instead.
///
/// ```swift
/// let body = try await JSONRequestBody.decode(AccountDeletionRequest.self, from: request, limit: 64 * 1024)
/// ```
public struct AccountDeletionRequest: RequestBody {
    /// The account's password, to confirm. Never log it.
    public let password: NonEmptyString?

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case password
    }

    public init(from decoder: any Decoder) throws {
        password = try decoder.container(keyedBy: CodingKeys.self).decodeUnlessAbsent(NonEmptyString.self, forKey: .password)
    }
}
