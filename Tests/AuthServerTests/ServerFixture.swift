import AuthCore
import AuthPostgres
import AuthServer
import AuthTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PostgresNIO
import Testing

/// A fresh database, a configuration for it, and helpers to seed users and send JSON.
struct ServerFixture {
    static let lightHash = Argon2idHasher.Parameters.testLight
    /// The deadline of a call to the tests' upstream providers: the application's, and
    /// registering one (``addProvider``), which fetches its discovery document and under the
    /// suite's load took longer than the default 10 s too (IdentityLinkingTests).
    static let providerTimeout = Duration.seconds(120)

    let testDatabase: TestCluster.TestDatabase
    var configuration: AppConfiguration
    /// What seals the fixture's signing keys, the same for every start of its application.
    let keyEncryptionKey = KeyEncryptionKey.generate()

    /// Read replicas of ``testDatabase`` for the application's stale reads, and how far behind they may be.
    var readReplicas: [PostgresClient.Configuration] = []
    var maximumReadLag = Duration.seconds(1)

    init() async throws {
        try await self.init(database: try await TestCluster.newMigratedDatabase())
    }

    /// A fixture on `database`, migrated.
    init(database: TestCluster.TestDatabase) async throws {
        testDatabase = database
        configuration = AppConfiguration()
        configuration.hashParameters = Self.lightHash
        // At normal priority, not authd's nice 19: there, a test's hashes waited behind the
        // rest of the suite (one that takes 2 s alone ended the suite, after 126 s).
        configuration.hashingNiceness = 0
        // A live test client keeps its connection while the test works between requests:
        // under the suite's load that took longer than the default 10 s head timeout, which
        // closed the connection under SlowBodyTests ("I/O on closed channel"). The tests of
        // the timeout itself set it (authdTests run the binary with its default).
        configuration.requestHeadTimeout = .seconds(300)
        // The tests' providers answer in process: under the suite's load one took longer
        // than the default 10 s (AppleCodeSignInTests' sign-in got 503, provider unavailable).
        configuration.providerTimeout = Self.providerTimeout
        configuration.logger = TestCluster.logger
    }

    /// The application on the fixture's database.
    func application() async throws -> some ApplicationProtocol {
        try await buildApplication(
            configuration: configuration,
            storage: PostgresStorage(
                target: DatabaseTarget(client: testDatabase.configuration), readReplicas: readReplicas.map(DatabaseTarget.init(client:)),
                maximumLag: maximumReadLag, timeout: TestCluster.operationTimeout, logger: TestCluster.logger,
                metrics: configuration.metrics),
            keyEncryptionKey: keyEncryptionKey
        )
    }

    /// Creates a user directly in storage, hashed with `parameters`.
    @discardableResult
    func addUser(_ name: String, password: String, parameters: Argon2idHasher.Parameters = lightHash, disabled: Bool = false) async throws
        -> User
    {
        try await TestCluster.withDatabase(testDatabase.configuration) { database async throws in
            let users = PostgresUserRepository(database: database)
            let username = try Username(name)
            let user = try await users.create(
                username: username, passwordHash: try Argon2idHasher(parameters: parameters).hash(password), at: Date())
            if disabled { _ = try await users.setDisabled(true, usernameKey: username.key, at: Date()) }
            return user
        }
    }

    /// Runs SQL-reading `body` against the fixture's database.
    func withDatabase<T: Sendable>(_ body: @Sendable (Database) async throws -> T) async throws -> T {
        try await TestCluster.withDatabase(testDatabase.configuration, body)
    }

    /// Runs `test` against the application in-process.
    func test<T: Sendable>(_ test: @Sendable (any TestClientProtocol) async throws -> T) async throws -> T {
        try await application().test(.router, test)
    }
}

extension TestClientProtocol {
    /// POSTs `json` (raw text) with `Content-Type: application/json`.
    func postJSON(_ path: String, _ json: String, headers: HTTPFields = [.contentType: "application/json"]) async throws -> TestResponse {
        try await execute(uri: path, method: .post, headers: headers, body: ByteBuffer(string: json))
    }

    /// Sends `body` as JSON with `method` to `path`, with `Authorization: Bearer` when given.
    func sendJSON(_ method: HTTPRequest.Method, _ path: String, _ body: [String: Any], bearer: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let bearer { headers[.authorization] = "Bearer \(bearer)" }
        return try await execute(
            uri: path, method: method, headers: headers, body: ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
    }

    /// Logs in with `username` and `password`.
    func login(_ username: String, _ password: String) async throws -> TestResponse {
        let body = try JSONSerialization.data(withJSONObject: ["username": username, "password": password])
        return try await postJSON("/login", String(decoding: body, as: UTF8.self))
    }
}

extension TestResponse {
    /// The body as a JSON object.
    func json() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any])
    }

    /// `error` and `error_description` of an error body.
    func error() throws -> (code: String, description: String) {
        let object = try json()
        return (try #require(object["error"] as? String), try #require(object["error_description"] as? String))
    }
}
