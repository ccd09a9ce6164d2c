import AuthCore
import AuthTestSupport
import Foundation
import ProcessKit
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The key-encryption key on the command line: required with a database URL, kept in the
/// embedded cluster's folder otherwise, named by its fingerprint when wrong; and a leaked
/// key revoked while `authd serve` runs.
@Suite struct KeySealingCommandTests {
    static let password = "correct horse battery staple"

    @Test func aDatabaseURLWithoutAKEKFailsClosedAndAWrongKEKIsNamed() async throws {
        let database = try await TestCluster.newMigratedDatabase()
        let url = ["--database-url", database.url]
        var noKEK = AuthdBinary.environment()
        noKEK["AUTHD_KEY_ENCRYPTION_KEY"] = nil
        for command in [["keys", "list"], ["keys", "rotate"], ["serve", "--port", "0"]] {
            let refused = try await AuthdBinary.run(command + url, environment: noKEK)
            #expect(refused.status == 1, "\(command)")
            #expect(refused.stderr.hasPrefix("Error: no key-encryption key") && refused.stderr.contains("head -c 32 /dev/urandom | base64"))
            #expect(refused.stderr.contains("--key-encryption-key-file") && refused.stderr.contains("AUTHD_KEY_ENCRYPTION_KEY"))
        }

        let rotated = try await AuthdBinary.run(["keys", "rotate"] + url)
        #expect(rotated.status == 0, "\(rotated.stderr)")
        // The same KEK as a file of 32 raw bytes opens the keys.
        let folder = try TemporaryFolder("authd-kek")
        defer { folder.remove() }
        let raw = folder.appending("raw.kek")
        try Data(base64Encoded: AuthdBinary.keyEncryptionKey)?.write(to: raw)
        let listed = try await AuthdBinary.run(["keys", "list", "--key-encryption-key-file", raw.path] + url, environment: noKEK)
        #expect(listed.status == 0 && listed.stdout.contains("current"), "\(listed.stderr)")

        let otherFile = folder.appending("other.kek")
        try Data((0..<32).map { UInt8(255 - $0) }).base64EncodedString().write(to: otherFile, atomically: true, encoding: .utf8)
        let right = try KeyEncryptionKey(base64: AuthdBinary.keyEncryptionKey).fingerprint
        let wrong = try KeyEncryptionKey(fileContents: try Data(contentsOf: otherFile)).fingerprint
        for command in [["keys", "list"], ["keys", "rotate"], ["keys", "rotate", "--revoke-current"], ["serve", "--port", "0"]] {
            let refused = try await AuthdBinary.run(command + url + ["--key-encryption-key-file", otherFile.path])
            #expect(refused.status == 1, "\(command)")
            #expect(refused.stderr.contains("sealed under key-encryption key \(right), but the one given is \(wrong)"), "\(refused.stderr)")
            #expect(refused.stderr.contains("--revoke-all"))
        }
        #expect(try await AuthdBinary.run(["keys", "list"] + url).stdout.split(separator: "\n").count == 2)
    }

    @Test func theEmbeddedClusterKeepsItsKEKInItsFolder() async throws {
        let temporary = try TemporaryFolder.forCluster("authd-kek-embedded")
        defer { temporary.remove() }
        let dataDirectory = ["--data-dir", temporary.appending("folder").path]
        var noKEK = AuthdBinary.environment()
        noKEK["AUTHD_KEY_ENCRYPTION_KEY"] = nil
        let rotated = try await AuthdBinary.run(["keys", "rotate"] + dataDirectory, environment: noKEK)
        #expect(rotated.status == 0, "\(rotated.stderr)")
        // In the cluster's folder, beside data/ (a folder of its own under the temporary
        // directory when PostgreSQL's account cannot reach the one asked for).
        let created = try #require(rotated.stderr.split(separator: "\n").first { $0.contains("created the key-encryption key file") })
        let file = try #require(created.split(separator: " ").first { $0.hasPrefix("path=") }).dropFirst("path=".count)
        #expect(file.hasSuffix("/key-encryption-key"))
        let clusterFolder = URL(fileURLWithPath: String(file)).deletingLastPathComponent()
        defer { if !clusterFolder.path.hasPrefix(temporary.path) { try? FileManager.default.removeItem(at: clusterFolder) } }
        #expect(FileManager.default.fileExists(atPath: clusterFolder.appendingPathComponent("data/PG_VERSION").path))
        let attributes = try FileManager.default.attributesOfItem(atPath: String(file))
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let text = try String(contentsOfFile: String(file), encoding: .utf8)
        #expect(text.count == 45 && text.hasSuffix("\n"))
        let kek = try KeyEncryptionKey(base64: text)

        let listed = try await AuthdBinary.run(["keys", "list"] + dataDirectory, environment: noKEK)
        #expect(listed.status == 0 && listed.stdout.contains("current"), "\(listed.stderr)")
        #expect(!listed.stderr.contains("created the key-encryption key file"))
        #expect(try String(contentsOfFile: String(file), encoding: .utf8) == text)
        // Given one, the embedded cluster takes it instead of its file.
        let refused = try await AuthdBinary.run(["keys", "list"] + dataDirectory)
        #expect(refused.status == 1 && refused.stderr.contains("sealed under key-encryption key \(kek.fingerprint)"))
        for output in [rotated.stdout, rotated.stderr, listed.stdout, listed.stderr, refused.stderr] {
            #expect(!output.contains(text.trimmingCharacters(in: .newlines)))
        }
    }

    /// A leaked key, revoked with `keys rotate --revoke-current`: the running server stops
    /// accepting the tokens it signed at its next key reload, and no longer publishes it.
    @Test func aRevokedKeyStopsVerifyingOnARunningServer() async throws {
        let database = try await TestCluster.newMigratedDatabase()
        let url = ["--database-url", database.url]
        let light = ["--argon2-memory", "1024", "--argon2-iterations", "1"]
        #expect(try await AuthdBinary.run(["user", "add", "alice", "--password-stdin"] + url + light, input: Self.password).status == 0)
        let (server, base) = try await AuthdBinary.serve(url + light + ["--key-reload-interval", "1"])
        defer { server.send(SIGKILL) }
        let (status, login) = try await AuthdBinary.login(base, "alice", Self.password)
        #expect(status == 200)
        let leakedToken = try #require(login["access_token"] as? String)
        let leakedKid = try #require(InstancesTests.kid(of: leakedToken))
        #expect(try await HTTP.json(base, "GET", "/me", bearer: leakedToken).status == 200)

        let revoked = try await AuthdBinary.run(["keys", "rotate", "--revoke-current"] + url)
        #expect(revoked.status == 0, "\(revoked.stderr)")
        #expect(revoked.stdout.contains("revoked and deleted signing key \(leakedKid)"))

        var refused = false
        for _ in 0..<100 where !refused {
            try await Task.sleep(for: .milliseconds(100))
            refused = try await HTTP.json(base, "GET", "/me", bearer: leakedToken).status == 401
        }
        #expect(refused, "a token of the revoked key still verifies")
        let jwks = try await HTTP.json(base, "GET", "/.well-known/jwks.json")
        let kids = (jwks.body["keys"] as? [[String: Any]] ?? []).compactMap { $0["kid"] as? String }
        #expect(kids.count == 1 && !kids.contains(leakedKid))
        let (_, fresh) = try await AuthdBinary.login(base, "alice", Self.password)
        let freshToken = try #require(fresh["access_token"] as? String)
        #expect(InstancesTests.kid(of: freshToken) == kids.first)
        #expect(try await HTTP.json(base, "GET", "/me", bearer: freshToken).status == 200)
        let audit = try await AuthdBinary.run(["audit"] + url).stdout
        #expect(audit.contains("key_revoked") && audit.contains(leakedKid))
        #expect(try await AuthdBinary.stop(server) == 0)
    }
}
