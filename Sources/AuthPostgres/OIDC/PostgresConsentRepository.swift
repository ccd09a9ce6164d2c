import AuthCore
import Foundation
import PostgresNIO

/// Consents in `consents` (migration 0026).
///
/// ```swift
/// try await PostgresConsentRepository(database: database).grant(userID: id, clientID: "photos", scopes: ["openid"], at: Date())
/// ```
public struct PostgresConsentRepository: ConsentRepository {
    /// The database.
    public let database: Database

    /// Creates the repository.
    public init(database: Database) {
        self.database = database
    }

    public func scopes(userID: UUID, clientID: String) async throws -> [String]? {
        try await database.query("SELECT scopes FROM consents WHERE user_id = \(userID) AND client_id = \(clientID)") { rows in
            for try await scopes in rows.decode([String].self) { return scopes }
            return nil
        }
    }

    public func grant(userID: UUID, clientID: String, scopes: [String], at date: Date) async throws {
        try await database.execute(
            """
            INSERT INTO consents (user_id, client_id, scopes, granted_at) VALUES (\(userID), \(clientID), \(scopes), \(date))
            ON CONFLICT (user_id, client_id) DO UPDATE SET scopes = excluded.scopes, granted_at = excluded.granted_at
            """
        )
    }
}
