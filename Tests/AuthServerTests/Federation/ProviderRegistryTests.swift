import AsyncHTTPClient
import AuthCore
import AuthPostgres
import AuthServer
import AuthTestSupport
import ContractTestSupport
import Crypto
import Foundation
import Hummingbird
import Testing

/// `authd provider add`'s rules: the discovery document fetched and checked, secrets sealed
/// under the KEK, no redirect followed, a removal unlinking the provider's identities.
@Suite struct ProviderRegistryTests {
    static func withRegistry<T: Sendable>(
        _ fixture: ServerFixture, _ body: @Sendable (ProviderRegistry<PostgresStorage>) async throws -> T
    ) async throws -> T {
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
        let kek = fixture.keyEncryptionKey
        do {
            let result = try await PostgresStorage(
                configuration: fixture.testDatabase.configuration, timeout: TestCluster.operationTimeout, logger: TestCluster.logger
            ).withRunning { storage in
                try await body(
                    ProviderRegistry(
                        storage: storage,
                        transport: HTTPProviderTransport(
                            client: client, timeout: .seconds(ServerFixture.providerTimeout.components.seconds)), keyEncryptionKey: kek))
            }
            try await client.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    @Test func secretsAreSealedAndOpenOnlyUnderTheKEKForTheirProvider() async throws {
        let upstream = TestIdentityProvider()
        try await upstream.withRunning { issuer in
            let fixture = try await ServerFixture()
            let secret = "a client secret of the provider, 0123456789"
            let pem = P256.Signing.PrivateKey().pemRepresentation
            let (corp, apple) = try await Self.withRegistry(fixture) { registry in
                let corp = try await registry.add(
                    ProviderRegistration(name: "corp", kind: .oidc, issuer: issuer, clientIDs: ["authd"], clientSecret: secret))
                let apple = try await registry.add(
                    ProviderRegistration(
                        name: "apple", kind: .apple, issuer: issuer, clientIDs: ["com.example.app"], appleTeamID: "TEAM123456",
                        appleKeyID: "KEY1234567", applePrivateKeyPEM: pem))
                return (corp, apple)
            }
            let stored = try await fixture.withDatabase { database async throws in
                var bytes = Data()
                for try await (sealed, key) in try await database.client.query(
                    "SELECT coalesce(sealed_client_secret, ''::bytea), coalesce(sealed_apple_private_key, ''::bytea) FROM identity_providers"
                ).decode((Data, Data).self) {
                    bytes += sealed + key
                }
                return bytes
            }
            #expect(stored.range(of: Data(secret.utf8)) == nil)
            let sealer = ProviderSecrets.sealer(fixture.keyEncryptionKey)
            let sealed = try #require(corp.sealedClientSecret)
            #expect(try sealer.open(sealed, context: ProviderSecrets.clientSecretContext("corp")) == Data(secret.utf8))
            #expect(throws: SecretSealerError.self) {
                try sealer.open(sealed, context: ProviderSecrets.clientSecretContext("apple"))
            }
            #expect(throws: SecretSealerError.self) {
                try ProviderSecrets.sealer(.generate()).open(
                    sealed, context: ProviderSecrets.clientSecretContext("corp"))
            }
            let key = try #require(apple.apple)
            #expect(key.teamID == "TEAM123456")
            let opened = try sealer.open(key.sealedPrivateKey, context: ProviderSecrets.appleKeyContext("apple"))
            #expect(
                try P256.Signing.PrivateKey(rawRepresentation: opened).publicKey.rawRepresentation
                    == P256.Signing.PrivateKey(pemRepresentation: pem).publicKey.rawRepresentation)
        }
    }

    @Test func aProviderOutOfReachOrRedirectingIsNotAdded() async throws {
        let router = Router()
        router.get("/.well-known/openid-configuration") { _, _ in
            Response(status: .found, headers: [.location: "https://evil.example/.well-known/openid-configuration"])
        }
        try await EphemeralServer.withRunning(router) { issuer in
            let fixture = try await ServerFixture()
            try await Self.withRegistry(fixture) { registry async throws in
                await #expect(throws: FederationError.self) {
                    try await registry.add(ProviderRegistration(name: "moved", kind: .oidc, issuer: issuer, clientIDs: ["a"]))
                }
                await #expect(throws: FederationError.self) {
                    try await registry.add(ProviderRegistration(name: "gone", kind: .oidc, issuer: "http://127.0.0.1:9", clientIDs: ["a"]))
                }
                await #expect(throws: AuthError.self) {
                    try await registry.add(ProviderRegistration(name: "no name!", kind: .oidc, issuer: issuer, clientIDs: ["a"]))
                }
                await #expect(throws: AuthError.self) {
                    try await registry.add(ProviderRegistration(name: "apple", kind: .apple, issuer: issuer, clientIDs: ["a"]))
                }
                #expect(try await registry.all().isEmpty)
            }
        }
    }

    @Test func aRemovalUnlinksTheProvidersIdentitiesAndIsAudited() async throws {
        let upstream = TestIdentityProvider()
        try await upstream.withRunning { issuer in
            let fixture = try await ServerFixture()
            try await fixture.addProvider("test", issuer: issuer)
            let token = upstream.token(TestIdentityProvider.claims(issuer: issuer))
            try await fixture.test { client async throws in
                #expect(try await IDTokenSignInTests.signIn(client, token).status == .ok)
            }
            let unlinked = try await Self.withRegistry(fixture) { registry in
                await #expect(throws: AuthError.self) {
                    try await registry.add(ProviderRegistration(name: "test", kind: .oidc, issuer: issuer, clientIDs: ["b"]))
                }
                _ = try await registry.add(
                    ProviderRegistration(name: "test", kind: .oidc, issuer: issuer, clientIDs: ["b"], replacing: true))
                return try await registry.remove(name: "test")
            }
            #expect(unlinked == 1)
            #expect(try await fixture.auditDetails(of: "provider_removed") == ["test:1"])
            #expect(try await fixture.auditDetails(of: "provider_added") == ["test", "test"])
        }
    }
}
