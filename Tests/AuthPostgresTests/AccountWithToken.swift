import AuthCore
import AuthPostgres
import Foundation

/// Creates the account `username` and stores one refresh token of it, `tokenHash`: valid for
/// a minute, in a session of ten.
@discardableResult
func createAccount(_ username: String, withRefreshToken tokenHash: String, in database: Database) async throws -> (
    user: User, token: RefreshTokenRecord
) {
    let user = try await PostgresUserRepository(database: database).create(username: try Username(username), passwordHash: "h", at: Date())
    let token = RefreshTokenRecord(
        tokenHash: tokenHash, familyID: UUID(), userID: user.id, expiresAt: Date().addingTimeInterval(60),
        sessionExpiresAt: Date().addingTimeInterval(600)
    )
    try await PostgresRefreshTokenRepository(database: database).store(token)
    return (user, token)
}
