import AuthCore
import AuthPostgres
import AuthTestSupport
import Foundation
import Testing

/// The operator's rules for relying parties, on PostgreSQL: each change audited, a taken id
/// refused unless replaced, a missing one named.
@Suite struct ClientRegistryTests {
    @Test func aClientIsRegisteredReplacedAndRemovedAndEachChangeAudited() async throws {
        try await TestCluster.withStorage { storage in
            let registry = ClientRegistry(storage: storage, clock: TestClock(now: Date(timeIntervalSince1970: 1_800_000_000)))
            let (first, secret) = try await registry.register(id: "orders-api", audiences: ["https://orders.example.com"])
            #expect(secret.count >= 32)
            await #expect(throws: AuthError.self) { try await registry.register(id: "orders-api", audiences: []) }
            let (second, other) = try await registry.register(id: "orders-api", audiences: [], replacing: true)
            #expect(other != secret && second.id == first.id)
            #expect(try await registry.all().map(\.id) == ["orders-api"])
            try await registry.remove(id: "orders-api")
            await #expect(throws: AuthError.notFound("no client named orders-api")) { try await registry.remove(id: "orders-api") }
            let events = try await storage.auditEvents()
            #expect(events.map(\.kind) == [.clientRegistered, .clientRemoved, .clientRegistered, .clientRemoved])
            #expect(events.allSatisfy { $0.detail == "orders-api" })
        }
    }

    /// An OpenID Connect client keeps its redirect URIs and settings; a public one has no
    /// secret that could ever verify, and is refused one.
    @Test func anAppThatSignsUsersInIsStoredWithItsSettings() async throws {
        try await TestCluster.withStorage { storage in
            let registry = ClientRegistry(storage: storage, clock: TestClock(now: Date(timeIntervalSince1970: 1_800_000_000)))
            let settings = try OIDCClientSettings(
                redirectURIs: ["http://127.0.0.1/callback", "com.example.app:/callback"],
                postLogoutRedirectURIs: ["com.example.app:/signed-out"], isPublic: true, scopes: ["email", "openid"])
            let (app, secret) = try await registry.register(id: "phone-app", audiences: [], signIn: settings)
            #expect(secret.isEmpty && app.secretHash.isEmpty)
            for guess in ["", " ", OpaqueToken.generate().token] { #expect(!app.verifies(secret: guess)) }
            let stored = try #require(try await registry.all().first { $0.id == "phone-app" })
            #expect(stored == app)
            #expect(stored.signIn.scopes == ["openid", "email"])
            #expect(stored.signIn.redirectURIs.contains { $0.accepts("http://127.0.0.1:50123/callback") })

            await #expect(throws: AuthError.invalidRequest("a public client holds no secret")) {
                try await registry.register(id: "other-app", audiences: [], secret: String(repeating: "x", count: 40), signIn: settings)
            }
            await #expect(throws: AuthError.invalidRequest("a public client cannot be a trusted introspector")) {
                try await registry.register(id: "other-app", audiences: [], trustedIntrospector: true, signIn: settings)
            }
            let web = try OIDCClientSettings(redirectURIs: ["https://app.example.com/callback"], firstParty: true)
            let (site, siteSecret) = try await registry.register(id: "web-app", audiences: [], signIn: web)
            #expect(site.verifies(secret: siteSecret) && !site.signIn.isPublic)
            #expect(try await registry.all().first { $0.id == "web-app" }?.signIn == web)
            // Resource servers registered before keep no sign-in settings.
            let (api, _) = try await registry.register(id: "orders-api", audiences: [])
            #expect(try await registry.all().first { $0.id == api.id }?.signIn == OIDCClientSettings.none)
        }
    }

    @Test func settingsWithoutARedirectURIOrWithAnUnknownScopeAreRefused() {
        #expect(throws: AuthError.self) { try OIDCClientSettings(redirectURIs: []) }
        #expect(throws: AuthError.self) { try OIDCClientSettings(redirectURIs: ["https://a.example/cb"], scopes: ["openid", "admin"]) }
        #expect(throws: AuthError.self) { try OIDCClientSettings(redirectURIs: ["https://a.example/cb"], scopes: ["email"]) }
        #expect(throws: AuthError.self) {
            try OIDCClientSettings(redirectURIs: ["https://a.example/cb"], postLogoutRedirectURIs: ["http://evil.example/"])
        }
    }
}
