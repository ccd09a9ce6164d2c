import AuthCore
import AuthServer
import AuthTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JOSE
import NIOCore
import Testing

/// An account's owner sees their sessions and ends them: `GET /sessions`,
/// `DELETE /sessions/{id}`, `DELETE /sessions`; on PostgreSQL.
@Suite struct SessionListTests {
    static let password = "correct horse battery staple"

    /// Two logins from two devices: both listed, newest first, the asking token's marked
    /// current, with the User-Agent each began with; the access token names its session.
    @Test func sessionsAreListedWithTheCurrentOneMarked() async throws {
        let fixture = try await ServerFixture()
        try await fixture.addUser("quinn", password: Self.password)
        try await fixture.test { client async throws in
            let phone = try await client.login("quinn", Self.password, userAgent: "Phone/1.0").json()
            let laptop = try await client.login("quinn", Self.password, userAgent: "Laptop/2.0").json()
            let access = try #require(phone["access_token"] as? String)
            let listed = try await client.sessions(access)
            #expect(listed.status == .ok)
            #expect(listed.headers[.cacheControl] == "no-store")
            let entries = try #require(try JSONSerialization.jsonObject(with: Data(buffer: listed.body)) as? [[String: Any]])
            #expect(entries.count == 2)
            #expect(entries.map { $0["user_agent"] as? String } == ["Laptop/2.0", "Phone/1.0"])
            #expect(entries.map { $0["current"] as? Bool } == [false, true])
            #expect(entries.allSatisfy { Set($0.keys) == ["id", "created_at", "last_used_at", "client_address", "user_agent", "current"] })
            #expect(entries.allSatisfy { $0["client_address"] is NSNull })
            #expect(try Self.sid(of: access) == entries[1]["id"] as? String)
            #expect(try Self.sid(of: try #require(laptop["access_token"] as? String)) == entries[0]["id"] as? String)

            // A refresh keeps the session and stamps its use; the new access token names it too.
            let refreshed = try await client.refresh(try #require(phone["refresh_token"] as? String)).json()
            #expect(try Self.sid(of: try #require(refreshed["access_token"] as? String)) == entries[1]["id"] as? String)
        }
    }

    /// One session ended by id: its refresh token stops working, the others go on; an id
    /// that is not a live session of this account is a 404, another account's included.
    @Test func oneSessionEndsByItsID() async throws {
        let fixture = try await ServerFixture()
        try await fixture.addUser("rosa", password: Self.password)
        try await fixture.addUser("sam", password: Self.password)
        try await fixture.test { client async throws in
            let first = try await client.login("rosa", Self.password).json()
            let second = try await client.login("rosa", Self.password).json()
            let sams = try await client.login("sam", Self.password).json()
            let access = try #require(first["access_token"] as? String)
            let secondAccess = try #require(second["access_token"] as? String)
            let samsAccess = try #require(sams["access_token"] as? String)
            let secondID = try #require(try Self.sid(of: secondAccess))
            let samsID = try #require(try Self.sid(of: samsAccess))

            #expect(try await client.endSession(access, id: samsID).status == .notFound)
            #expect(try await client.endSession(access, id: UUID().uuidString).status == .notFound)
            #expect(try await client.endSession(access, id: "not-a-uuid").status == .notFound)
            #expect(try await client.endSession("not.a.token", id: secondID).status == .unauthorized)
            #expect(try await client.refresh(try #require(sams["refresh_token"] as? String)).status == .ok)

            #expect(try await client.endSession(access, id: secondID).status == .noContent)
            #expect(try await client.refresh(try #require(second["refresh_token"] as? String)).status == .unauthorized)
            #expect(try await client.endSession(access, id: secondID).status == .notFound)
            #expect(try await client.refresh(try #require(first["refresh_token"] as? String)).status == .ok)
        }
        #expect(try await fixture.auditKinds().contains("sessions_revoked"))
    }

    /// `DELETE /sessions` ends every other session; with `?all=true` the asking one too.
    @Test func everyOtherSessionOrEveryOneEnds() async throws {
        let fixture = try await ServerFixture()
        try await fixture.addUser("tess", password: Self.password)
        try await fixture.test { client async throws in
            let mine = try await client.login("tess", Self.password).json()
            var others: [String] = []
            for _ in 0..<2 { others.append(try #require(try await client.login("tess", Self.password).json()["refresh_token"] as? String)) }
            let access = try #require(mine["access_token"] as? String)
            #expect(try await client.endSessions(access, query: "?all=maybe").status == .badRequest)
            #expect(try await client.endSessions(access, query: "").status == .noContent)
            for other in others { #expect(try await client.refresh(other).status == .unauthorized) }
            let kept = try await client.refresh(try #require(mine["refresh_token"] as? String))
            #expect(kept.status == .ok)

            #expect(try await client.endSessions(access, query: "?all=true").status == .noContent)
            #expect(try await client.refresh(try #require(try kept.json()["refresh_token"] as? String)).status == .unauthorized)
            // The asking token's own session ended with the rest: the token is refused now.
            #expect(try await client.sessions(access).status == .unauthorized)
            let fresh = try #require(try await client.login("tess", Self.password).json()["access_token"] as? String)
            let one = try #require(
                try JSONSerialization.jsonObject(with: Data(buffer: try await client.sessions(fresh).body)) as? [[String: Any]])
            #expect(one.count == 1 && one.first?["current"] as? Bool == true)
        }
    }

    /// The `sid` claim of an access token.
    static func sid(of token: String) throws -> String? {
        let payload = try #require(token.split(separator: ".").dropFirst().first)
        let claims = try JSONSerialization.jsonObject(with: try #require(Base64URL.decode(String(payload)))) as? [String: Any]
        return claims?["sid"] as? String
    }
}

extension TestClientProtocol {
    /// Logs in with a `User-Agent`.
    func login(_ username: String, _ password: String, userAgent: String) async throws -> TestResponse {
        let body = try JSONSerialization.data(withJSONObject: ["username": username, "password": password])
        return try await postJSON(
            "/login", String(decoding: body, as: UTF8.self), headers: [.contentType: "application/json", .userAgent: userAgent])
    }

    /// GETs /sessions.
    func sessions(_ access: String) async throws -> TestResponse {
        try await execute(uri: "/sessions", method: .get, headers: [.authorization: "Bearer \(access)"])
    }

    /// DELETEs /sessions/`id`.
    func endSession(_ access: String, id: String) async throws -> TestResponse {
        try await execute(uri: "/sessions/\(id)", method: .delete, headers: [.authorization: "Bearer \(access)"])
    }

    /// DELETEs /sessions with `query`.
    func endSessions(_ access: String, query: String) async throws -> TestResponse {
        try await execute(uri: "/sessions\(query)", method: .delete, headers: [.authorization: "Bearer \(access)"])
    }
}
