import AuthPostgres
import PostgresEmbedded
import AuthTestSupport
import Foundation
import Logging
import PostgresNIO
import Testing
import ProcessKit

@Suite struct EmbeddedPostgresTests {
    @Test func createsStartsReusesAndStops() async throws {
        let temporary = try TemporaryFolder("authd-embedded")
        defer { temporary.remove() }
        let folder = temporary.appending("folder")
        let first = try EmbeddedPostgres(directory: folder, durable: false)
        try first.start()
        #expect(first.isRunning)
        #expect(FileManager.default.fileExists(atPath: first.socketPath))

        // A second user of the same folder (say `authd user add` beside `authd serve`)
        // finds it running, uses it, and leaves it running.
        let second = try EmbeddedPostgres(directory: folder, durable: false)
        try second.start()
        try await second.createDatabase("authd", logger: Logger(label: "tests"))
        try await TestCluster.withDatabase(second.configuration(database: "authd")) { database in
            try await database.check()
        }
        try second.stop()
        #expect(first.isRunning)

        try first.stop()
        #expect(!first.isRunning)
        // Data survives a restart.
        try first.start()
        try await TestCluster.withDatabase(first.configuration(database: "authd")) { database in
            try await database.check()
        }
        try first.stop()
    }

    @Test func leavesAFolderOfOtherFilesAlone() throws {
        let temporary = try TemporaryFolder("authd-busy")
        defer { temporary.remove() }
        let folder = temporary.url
        try "keep me".write(to: folder.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)
        let before = try FileManager.default.attributesOfItem(atPath: folder.path)
        #expect {
            try EmbeddedPostgres(directory: folder, durable: false).start()
        } throws: { error in
            "\(error)".contains("already holds other files")
        }
        let after = try FileManager.default.attributesOfItem(atPath: folder.path)
        #expect(before[.ownerAccountID] as? Int == after[.ownerAccountID] as? Int)
        #expect(before[.posixPermissions] as? Int == after[.posixPermissions] as? Int)
        #expect(try String(contentsOf: folder.appendingPathComponent("notes.txt"), encoding: .utf8) == "keep me")
    }

    @Test func saysHowToInstallWhenNoBinariesExist() {
        #expect {
            try PostgresBinaries.locate(environment: ["PATH": "/nonexistent"], debianRoot: "/nonexistent")
        } throws: { error in
            "\(error)".contains("apt-get install postgresql") && "\(error)".contains("--database-url")
        }
        #expect(throws: EmbeddedPostgresError.self) {
            try PostgresBinaries.locate(environment: ["AUTHD_POSTGRES_BIN": "/nonexistent"])
        }
    }
}

@Suite struct DatabaseURLTests {
    @Test func parsesTCPURLs() throws {
        let configuration = try DatabaseURL.parse("postgres://app:s%40cret@db.internal:6543/auth?sslmode=disable").client
        #expect(configuration.host == "db.internal")
        #expect(configuration.port == 6543)
        #expect(configuration.username == "app")
        #expect(configuration.password == "s@cret")
        #expect(configuration.database == "auth")
    }

    @Test func parsesSocketURLsAndDefaults() throws {
        let configuration = try DatabaseURL.parse("postgresql://authd@/authd?host=/tmp/pg").client
        #expect(configuration.unixSocketPath == "/tmp/pg/.s.PGSQL.5432")
        #expect(try DatabaseURL.parse("postgres://app@localhost").client.database == "app")
    }

    /// The outage probe's single connections get the URL's sslmode, not the clear.
    @Test(arguments: [
        ("disable", "disable"), ("prefer", "prefer"), ("allow", "prefer"), ("require", "require"), ("verify-ca", "require"), ("verify-full", "require"),
    ])
    func singleConnectionsKeepTheSSLMode(mode: String, expected: String) throws {
        let target = try DatabaseURL.parse("postgres://app@db.internal/auth?sslmode=\(mode)")
        let kind =
            switch target.connectionTLS {
            case .disable: "disable"
            case .prefer: "prefer"
            case .require(let configuration):
                mode == "verify-full" && configuration.certificateVerification != .fullVerification ? "unverified" : "require"
            }
        #expect(kind == expected)
        #expect(try DatabaseURL.parse("postgres://app@/auth?host=/tmp/pg").connectionTLS.isDisabled)
    }

    @Test(arguments: ["mysql://u@h/d", "postgres://h/d", "postgres://u@/d", "postgres://u@h/d?sslmode=bogus", "not a url"])
    func rejectsUnusableURLsWithoutEchoingSecrets(url: String) {
        #expect(throws: DatabaseURL.Invalid.self) { try DatabaseURL.parse(url) }
    }

    @Test func errorTextNeverContainsThePassword() {
        #expect {
            try DatabaseURL.parse("postgres://u:topsecret@/d")
        } throws: { error in
            !"\(error)".contains("topsecret")
        }
    }
}
