import AuthCore
import AuthServer
import AuthTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// `serve --test-clock`: a test moves authd's time forward and sees an access token expire
/// while its refresh token outlives it; without the option the route does not exist.
@Suite struct TestClockTests {
    @Test func steppingTheClockExpiresTheAccessTokenNotTheRefreshToken() async throws {
        var fixture = try await ServerFixture()
        fixture.configuration.testClock = SteppedClock()
        try await fixture.addUser("alice", password: "correct horse battery staple")
        try await fixture.test { client async throws in
            let grant = try await client.login("alice", "correct horse battery staple").json()
            let access = try #require(grant["access_token"] as? String)
            let refresh = try #require(grant["refresh_token"] as? String)
            #expect(try await client.me(access).status == .ok)

            let before = try await client.execute(uri: "/test/clock", method: .get).json()
            #expect(before["stepped"] as? Double == 0)
            let stepped = try await client.sendJSON(.post, "/test/clock", ["advance": 901])
            #expect(stepped.status == .ok)
            #expect(try stepped.json()["stepped"] as? Double == 901)
            let text = try #require(try stepped.json()["now"] as? String)
            let now = try #require(ISO8601DateFormatter().date(from: text))
            #expect(now.timeIntervalSinceNow > 890)

            #expect(try await client.me(access).status == .unauthorized)
            let renewed = try await client.postJSON("/token/refresh", #"{"refresh_token":"\#(refresh)"}"#)
            #expect(renewed.status == .ok)
            #expect(try await client.me(try #require(try renewed.json()["access_token"] as? String)).status == .ok)

            for bad in [#"{"advance":0}"#, #"{"advance":-5}"#, #"{"advance":"901"}"#, #"{"advance":1e12}"#, "{}"] {
                #expect(try await client.postJSON("/test/clock", bad).status == .badRequest, "\(bad)")
            }
        }
    }

    @Test func withoutTheOptionThereIsNoClockToStep() async throws {
        let fixture = try await ServerFixture()
        try await fixture.test { client async throws in
            #expect(try await client.sendJSON(.post, "/test/clock", ["advance": 901]).status == .notFound)
            #expect(try await client.execute(uri: "/test/clock", method: .get).status == .notFound)
        }
    }
}
