import AsyncHTTPClient
import AuthPostgres
import AuthTestSupport
import Foundation
import NIOSSL
import PostgresEmbedded
import PostgresNIO
import ProcessKit
import Testing

/// HTTPS from `authd serve --tls-cert --tls-key`, and `sslmode=verify-full` towards
/// PostgreSQL, each with a throwaway certificate made here.
@Suite struct TLSTests {
    @Test func serveAnswersHTTPSWithTheGivenCertificate() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (cert, key) = try Self.certificate(in: folder, name: "server", subjectAltName: "IP:127.0.0.1,DNS:localhost")
        let database = try await TestCluster.newMigratedDatabase()
        let (server, base) = try await AuthdBinary.serve([
            "--database-url", database.url, "--tls-cert", cert, "--tls-key", key, "--argon2-memory", "1024", "--argon2-iterations", "1",
        ])
        #expect(base.scheme == "https")

        var trusting = TLSConfiguration.makeClientConfiguration()
        trusting.trustRoots = .file(cert)
        // Shut down whatever the checks do: a client left to its deinit ends the test process.
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: trusting))
        let strict = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: .makeClientConfiguration()))
        do {
            try await Self.checkHTTPS(at: base, trusting: client, strict: strict)
        } catch {
            try? await client.shutdown()
            try? await strict.shutdown()
            _ = try? await AuthdBinary.stop(server)
            throw error
        }
        try await client.shutdown()
        try await strict.shutdown()
        #expect(try await AuthdBinary.stop(server) == 0)
    }

    /// `base` answers HTTPS with the HSTS header to a `client` that trusts its certificate; a
    /// `strict` client (system roots) refuses it, and plain HTTP on its port gets no answer.
    /// The answers' deadlines bound a hang only: under the suite's load 5 s were not enough.
    static func checkHTTPS(at base: URL, trusting client: HTTPClient, strict: HTTPClient) async throws {
        let request = HTTPClientRequest(url: base.absoluteString + "/health/live")
        let response = try await client.execute(request, timeout: .seconds(60))
        #expect(response.status == .ok)
        let body = try await response.body.collect(upTo: 1024)
        #expect(String(buffer: body) == #"{"status":"ok"}"#)
        #expect(response.headers["Strict-Transport-Security"] == ["max-age=31536000"])
        let unknown = try await client.execute(HTTPClientRequest(url: base.absoluteString + "/nowhere"), timeout: .seconds(60))
        #expect(unknown.status == .notFound)
        #expect(unknown.headers["Strict-Transport-Security"] == ["max-age=31536000"])

        // Without the certificate among its roots a client refuses the server.
        await #expect(throws: (any Error).self) { _ = try await strict.execute(request, timeout: .seconds(2)) }
        // Plain HTTP on the TLS port gets no HTTP answer.
        var plain = URLComponents(url: base, resolvingAgainstBaseURL: false)
        plain?.scheme = "http"
        let plainURL = try #require(plain?.url).absoluteString + "/health/live"
        await #expect(throws: (any Error).self) { _ = try await client.execute(HTTPClientRequest(url: plainURL), timeout: .seconds(2)) }
    }

    /// What sslscan (Debian's) sees of `--tls-cert` HTTPS: no TLS 1.0 or 1.1, and over TLS
    /// 1.2 only suites with an ephemeral key exchange (forward secrecy) and an AEAD cipher.
    @Test(.enabled(if: Self.sslscan != nil, "sslscan is not installed (apt-get install sslscan)"))
    func httpsOffersTLS12AndUpWithForwardSecrecyOnly() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (cert, key) = try Self.certificate(in: folder, name: "server", subjectAltName: "IP:127.0.0.1")
        let database = try await TestCluster.newMigratedDatabase()
        let (server, base) = try await AuthdBinary.serve(["--database-url", database.url, "--tls-cert", cert, "--tls-key", key])
        let scan = try ChildProcess(
            executable: try #require(Self.sslscan),
            arguments: [
                "--no-colour", "--no-check-certificate", "--no-heartbleed", "--no-renegotiation", "--no-compression", "--no-fallback",
                "127.0.0.1:\(base.port ?? 0)",
            ])
        let status = await scan.waitForExit()
        #expect(try await AuthdBinary.stop(server) == 0)
        let report = scan.standardOutput
        #expect(status == 0, "\(report)")
        for line in [
            "SSLv2     disabled", "SSLv3     disabled", "TLSv1.0   disabled", "TLSv1.1   disabled", "TLSv1.2   enabled",
            "TLSv1.3   enabled",
        ] {
            #expect(report.contains(line), "\(line)\n\(report)")
        }
        let suites = report.split(separator: "\n").filter { $0.hasPrefix("Accepted") || $0.hasPrefix("Preferred") }
            .map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        #expect(!suites.isEmpty, "\(report)")
        for suite in suites {
            let (version, name) = (String(suite[1]), String(suite[4]))
            #expect(
                version == "TLSv1.3" || (name.hasPrefix("ECDHE-") && (name.contains("GCM") || name.contains("CHACHA20"))),
                "\(suite.joined(separator: " "))")
        }
    }

    static let sslscan = ["/usr/bin/sslscan", "/usr/local/bin/sslscan"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test func verifyFullChecksThePostgreSQLServersCertificateAndName() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (cluster, cert) = try await Self.tlsOnlyCluster(in: folder)
        defer { try? cluster.stop() }
        let (otherCert, _) = try Self.certificate(in: folder, name: "other", subjectAltName: "IP:127.0.0.2")
        let (wrongNameCert, wrongNameKey) = try Self.ownedCertificate(cluster, name: "wrong-name", subjectAltName: "DNS:db.example")

        // A connection that must succeed gets the suite's long deadline (a TLS handshake
        // under the whole suite's load has taken over 3 s); one that must fail, 3 s.
        func connect(_ query: String, timeout: Duration = TestCluster.operationTimeout) async throws -> Int {
            let target = try DatabaseURL.parse("postgres://\(cluster.user)@127.0.0.2:5432/postgres?\(query)")
            return try await TestCluster.withDatabase(target, timeout: timeout) { try await Self.ssl(of: $0) }
        }
        #expect(try await connect("sslmode=verify-full&sslrootcert=\(cert)") == 1)
        #expect(try await connect("sslmode=require") == 1)
        // Another authority's root: refused.
        await #expect(throws: (any Error).self) {
            _ = try await connect("sslmode=verify-full&sslrootcert=\(otherCert)", timeout: .seconds(3))
        }

        // A certificate for another name: verify-ca accepts it, verify-full does not.
        try await Self.serverCertificate(cluster, cert: wrongNameCert, key: wrongNameKey)
        #expect(try await connect("sslmode=verify-ca&sslrootcert=\(wrongNameCert)") == 1)
        await #expect(throws: (any Error).self) {
            _ = try await connect("sslmode=verify-full&sslrootcert=\(wrongNameCert)", timeout: .seconds(3))
        }
    }

    /// A database that takes TLS connections only: after an outage, authd's probe must reach
    /// it with the URL's sslmode too. Without that the probe's cleartext attempts show in
    /// the server's log as rejected with "no encryption" (and, towards a server in between,
    /// would have offered the password in the clear).
    @Test func anOutageOfATLSOnlyDatabaseIsProbedOverTLS() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (cluster, _) = try await Self.tlsOnlyCluster(in: folder, address: "127.0.0.3")
        defer { try? cluster.stop() }
        let target = try DatabaseURL.parse("postgres://\(cluster.user)@127.0.0.3:5432/postgres?sslmode=require")
        try await TestCluster.withDatabase(target) { database async throws in
            @Sendable func ssl() async throws -> Int { try await Self.ssl(of: database) }
            #expect(try await ssl() == 1)
            let logged = (try? String(contentsOfFile: cluster.logFile, encoding: .utf8))?.count ?? 0
            try cluster.forceStop()
            await #expect(throws: (any Error).self) { _ = try await ssl() }
            try cluster.start()
            var recovered = false
            for _ in 0..<80 where !recovered {
                recovered = (try? await ssl()) == 1
                if !recovered { try await Task.sleep(for: .milliseconds(250)) }
            }
            #expect(recovered)
            let log = String(((try? String(contentsOfFile: cluster.logFile, encoding: .utf8)) ?? "").dropFirst(logged))
            #expect(!log.contains("no encryption"), "\(log)")
        }
    }

    /// 1 when `database`'s connection is TLS, 0 when it is not.
    static func ssl(of database: Database) async throws -> Int {
        try await database.run { client in
            var value = 0
            let rows = try await client.query("SELECT ssl::int FROM pg_stat_ssl WHERE pid = pg_backend_pid()", logger: TestCluster.logger)
            for try await (ssl, ) in rows.decode((Int,).self) { value = ssl }
            return value
        }
    }

    /// A cluster of its own on `address` (any loopback address works on Linux; each test its
    /// own, as they run at once) that lets in TLS connections from loopback only, with a
    /// certificate for that address.
    static func tlsOnlyCluster(in folder: URL, address: String = "127.0.0.2") async throws -> (EmbeddedPostgres, cert: String) {
        let cluster = try EmbeddedPostgres(
            directory: folder.appendingPathComponent("pg"), durable: false, settings: ["listen_addresses": address])
        try cluster.start()
        let (cert, key) = try ownedCertificate(cluster, name: "server", subjectAltName: "IP:\(address)")
        // TLS connections from loopback are let in, ahead of initdb's "reject" lines (the
        // file keeps its owner: it is rewritten in place).
        let hbaPath = cluster.dataDirectory + "/pg_hba.conf"
        let rules = try String(contentsOfFile: hbaPath, encoding: .utf8)
        let hba = try FileHandle(forWritingTo: URL(fileURLWithPath: hbaPath))
        try hba.write(contentsOf: Data(("hostssl all all 127.0.0.0/8 trust\n" + rules).utf8))
        try hba.close()
        try await serverCertificate(cluster, cert: cert, key: key)
        return (cluster, cert)
    }

    /// A certificate in the cluster's folder, owned by the account PostgreSQL runs as.
    static func ownedCertificate(_ cluster: EmbeddedPostgres, name: String, subjectAltName: String) throws -> (cert: String, key: String) {
        var owner = stat()
        #expect(stat(cluster.directory, &owner) == 0)
        let (cert, key) = try certificate(in: URL(fileURLWithPath: cluster.directory), name: name, subjectAltName: subjectAltName)
        for file in [cert, key] {
            #expect(chown(file, owner.st_uid, owner.st_gid) == 0)
        }
        return (cert, key)
    }

    /// Points the cluster at `cert` and `key` and reloads it (ALTER SYSTEM takes no bind
    /// parameters; the paths are this test's own).
    static func serverCertificate(_ cluster: EmbeddedPostgres, cert: String, key: String) async throws {
        try await TestCluster.withDatabase(cluster.configuration(database: "postgres")) { database async throws in
            for statement in [
                "ALTER SYSTEM SET ssl_cert_file = '\(cert)'", "ALTER SYSTEM SET ssl_key_file = '\(key)'",
                "ALTER SYSTEM SET ssl = on", "SELECT pg_reload_conf()",
            ] {
                _ = try await database.client.query(PostgresQuery(unsafeSQL: statement), logger: TestCluster.logger)
            }
        }
        // The reload is asynchronous.
        try await Task.sleep(for: .milliseconds(500))
    }

    /// A self-signed certificate and its key, made with openssl.
    static func certificate(in folder: URL, name: String, subjectAltName: String) throws -> (cert: String, key: String) {
        let cert = folder.appendingPathComponent("\(name).crt").path
        let key = folder.appendingPathComponent("\(name).key").path
        let openssl = try #require(CommandRunner.which("openssl"), "openssl is not installed (scripts/system-packages installs it)")
        let result = try CommandRunner.run(
            openssl,
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
                "-subj", "/CN=authd test", "-addext", "subjectAltName=\(subjectAltName)", "-keyout", key, "-out", cert,
            ]
        )
        #expect(result.status == 0, "\(result.output)")
        chmod(key, 0o600)
        return (cert, key)
    }

    static func temporaryFolder() throws -> URL {
        try TemporaryFolder.forCluster("authd-tls").url
    }
}
