/// The body of `POST /email`: `{"email"}`, the address the account should have instead.
///
/// ```swift
/// let body = try await JSONRequestBody.decode(EmailChangeRequest.self, from: request, limit: 64 * 1024)
/// ```
public struct EmailChangeRequest: RequestBody {
    /// The new address; it becomes the account's once the token sent to it comes back.
    public let email: NonEmptyString

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case email
    }
}
