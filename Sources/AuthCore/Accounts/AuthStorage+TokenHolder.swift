import Foundation

extension AuthStorage {
    /// The account an emailed token of one of `purposes` belongs to while it works at `now`
    /// (unused, unexpired, its account's address unchanged); nil otherwise. What a link's page
    /// shows before its form is sent: nothing is used up or counted.
    public func holder(ofToken token: String, purposes: Set<AccountTokenPurpose>, now: Date) async throws -> User? {
        let digest = OpaqueToken.hash(of: token)
        for purpose in AccountTokenPurpose.allCases where purposes.contains(purpose) {
            if let id = try await accountTokens.owner(ofTokenHash: digest, purpose: purpose, now: now) {
                return try await users.user(withID: id)
            }
        }
        return nil
    }
}
