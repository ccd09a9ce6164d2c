import Foundation

/// What each user allowed each third-party client: the scopes of the consent page, kept so
/// the page is not shown again for the same or fewer scopes.
///
/// ```swift
/// try await storage.consents.grant(userID: user.id, clientID: "photos", scopes: ["openid", "email"], at: now)
/// try await storage.consents.scopes(userID: user.id, clientID: "photos")   // ["openid", "email"]
/// ```
public protocol ConsentRepository: Sendable {
    /// The scopes `userID` allowed `clientID`, nil when never asked.
    func scopes(userID: UUID, clientID: String) async throws -> [String]?
    /// Records that `userID` allowed `clientID` `scopes` (replacing what was allowed before).
    func grant(userID: UUID, clientID: String, scopes: [String], at date: Date) async throws
}
