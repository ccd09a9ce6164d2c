import AuthCore
import AuthPostgres
import AuthTestSupport
import Foundation
import PostgresEmbedded
import ProcessKit
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct AuthdCommandTests {
    @Test func helpListsTheCommands() async throws {
        let result = try await AuthdBinary.run(["--help"])
        #expect(result.status == 0)
        for command in ["serve", "migrate", "user"] {
            #expect(result.stdout.contains(command))
        }
        let user = try await AuthdBinary.run(["user", "--help"])
        for command in ["add", "disable", "list"] {
            #expect(user.stdout.contains(command))
        }
    }

    @Test(arguments: [
        (["serve", "--port", "70000"], "--port must be between 0 and 65535"),
        (["serve", "--session-max-age", "0"], "--session-max-age must be positive"),
        (["frobnicate"], "Unexpected argument 'frobnicate'"),
        (["user", "add", "alice"], "--password-stdin"),
        (["serve", "--database-url", "mysql://x@y/z"], "must start with postgres://"),
        (
            ["serve", "--database-read-url", "postgres://x@/z?host=/a,b"],
            "--database-read-url: every host of ?host= must be a socket folder"
        ),
        (["serve", "--database-read-max-lag=-1"], "--database-read-max-lag must not be negative"),
        (["serve", "--database-url", "postgres://x@y/z?target_session_attrs=writable"], "unsupported target_session_attrs 'writable'"),
        (["serve", "--breached-passwords", "no-such-breached-list.txt"], "no-such-breached-list.txt"),
    ])
    func badArgumentsFailWithAOneLineError(arguments: [String], message: String) async throws {
        let result = try await AuthdBinary.run(arguments)
        #expect(result.status != 0)
        let firstLine = result.stderr.split(separator: "\n").first.map(String.init) ?? ""
        #expect(firstLine.hasPrefix("Error: "))
        #expect(firstLine.contains(message))
    }

    /// A standard input that cannot be read (here a folder) is a one-line error, not a crash
    /// with a backtrace, and nothing is created.
    @Test(arguments: [["user", "add", "alice", "--password-stdin"], ["client", "add", "orders-api", "--secret-stdin"]])
    func anUnreadableStandardInputIsAnError(command: [String]) async throws {
        let database = try await TestCluster.newMigratedDatabase()
        // The shell only redirects: the command reaches it as its positional parameters.
        let child = try ChildProcess(
            executable: "/bin/sh",
            arguments: ["-c", "exec \"$@\" < /", "sh", try AuthdBinary.path] + command + ["--database-url", database.url]
        )
        let status = await child.waitForExit()
        #expect(status == 1, "\(child.standardError)")
        #expect(child.standardError.hasPrefix("Error: standard input could not be read"), "\(child.standardError)")
        #expect(!child.standardError.contains("crashed"))
        let listed = try await AuthdBinary.run(["user", "list", "--database-url", database.url])
        #expect(!listed.stdout.contains("alice"))
    }

    /// An operator ends a stolen session; a password reset ends the thief's too.
    @Test func revokeSessionsAndAPasswordResetEndRefreshTokens() async throws {
        let database = try await TestCluster.newMigratedDatabase()
        let url = ["--database-url", database.url]
        let added = try await AuthdBinary.run(["user", "add", "alice", "--password-stdin"] + url, input: "correct horse battery staple")
        #expect(added.status == 0, "\(added.stderr)")
        let (server, base) = try await AuthdBinary.serve(url)
        func refresh(_ token: Any?) async throws -> Int {
            try await AuthdBinary.post(base, "token/refresh", ["refresh_token": token as? String ?? ""]).0
        }
        let first = try await AuthdBinary.login(base, "alice", "correct horse battery staple").1["refresh_token"]
        let second = try await AuthdBinary.login(base, "alice", "correct horse battery staple").1["refresh_token"]
        // authd sessions list shows them, newest first, with where they began.
        let listed = try await AuthdBinary.run(["sessions", "list", "alice"] + url)
        #expect(listed.status == 0)
        let lines = listed.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("ID ") == true)
        #expect(lines.count == 4)
        #expect(lines.dropFirst().prefix(2).allSatisfy { $0.contains("127.0.0.1") })
        #expect(lines.last == "2 sessions of alice")
        #expect(try await AuthdBinary.run(["sessions", "list", "nobody"] + url).stderr.contains("no user named 'nobody'"))
        let ended = try await AuthdBinary.run(["user", "revoke-sessions", "ALICE"] + url)
        #expect(ended.status == 0)
        #expect(ended.stdout == "ended 2 sessions of alice\n")
        #expect(try await refresh(first) == 401)
        #expect(try await refresh(second) == 401)
        #expect(try await AuthdBinary.run(["sessions", "list", "alice"] + url).stdout.hasSuffix("0 sessions of alice\n"))
        #expect(try await AuthdBinary.run(["user", "revoke-sessions", "nobody"] + url).stderr.contains("no user named 'nobody'"))

        let stolen = try await AuthdBinary.login(base, "alice", "correct horse battery staple").1["refresh_token"]
        let reset = try await AuthdBinary.run(
            ["user", "add", "alice", "--password-stdin", "--update-existing"] + url, input: "another good password")
        #expect(reset.status == 0)
        #expect(try await refresh(stolen) == 401)
        let kinds = try await AuthdBinary.run(["audit", "--user", "alice", "--limit", "3"] + url).stdout
        #expect(kinds.contains("sessions_revoked") && kinds.contains("password set: 1 session"))
        #expect(try await AuthdBinary.stop(server) == 0)
    }

    /// What the audit log and the user list print cannot rewrite the operator's terminal
    /// (bidi overrides, zero-width characters, escape sequences), and a password typed as a
    /// username is not there to print.
    @Test func theAuditAndUserListEscapeWhatTheyPrint() async throws {
        let database = try await TestCluster.newMigratedDatabase()
        let url = ["--database-url", database.url]
        let sly = "eve\u{202E}gnp\u{200B}.exe"
        // Such a name can no longer be registered (Username.validateNew); one registered before can be there.
        let refused = try await AuthdBinary.run(["user", "add", sly, "--password-stdin"] + url, input: "correct horse battery staple")
        #expect(refused.status != 0 && refused.stderr.contains("U+202E"), "\(refused.stderr)")
        try await TestCluster.withDatabase(database.configuration) { storage in
            let phc = try Argon2idHasher(parameters: .testLight).hash("correct horse battery staple")
            _ = try await PostgresUserRepository(database: storage).create(username: try Username(sly), passwordHash: phc, at: Date())
        }
        let (server, base) = try await AuthdBinary.serve(url)
        #expect(try await AuthdBinary.login(base, sly, "wrong password").0 == 401)
        #expect(try await AuthdBinary.login(base, "hunter2-typed-as-a-name", "wrong password").0 == 401)
        #expect(try await AuthdBinary.stop(server) == 0)

        let audit = try await AuthdBinary.run(["audit"] + url).stdout
        let listed = try await AuthdBinary.run(["user", "list"] + url).stdout
        for output in [audit, listed] {
            #expect(output.contains(#"eve\u{202E}gnp\u{200B}.exe"#), "\(output)")
            #expect(!output.unicodeScalars.contains { $0.value == 0x202E || $0.value == 0x200B })
        }
        #expect(!audit.contains("hunter2"))
        #expect(audit.contains("unknown_user"))
    }

    /// With --metrics-listen, /metrics answers there and not on the public port.
    @Test func metricsCanLeaveThePublicPort() async throws {
        let database = try await TestCluster.newMigratedDatabase()
        let (server, base) = try await AuthdBinary.serve(["--database-url", database.url, "--metrics-listen", "127.0.0.1:0"])
        // The metrics server starts beside the public one: its line may come a moment later.
        var announced: Substring?
        for _ in 0..<100 where announced == nil {
            announced = server.standardOutput.split(separator: "\n").first { $0.hasPrefix("authd metrics on ") }
            if announced == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        let line = try #require(announced)
        let metrics = try #require(URL(string: String(line.dropFirst("authd metrics on ".count))))
        let (scraped, scrapedResponse) = try await URLSession.shared.data(from: metrics)
        #expect((scrapedResponse as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: scraped, as: UTF8.self).contains("authd_hash_queue_depth"))
        let (_, publicResponse) = try await URLSession.shared.data(from: base.appendingPathComponent("metrics"))
        #expect((publicResponse as? HTTPURLResponse)?.statusCode == 404)
        // Only /metrics lives on the metrics port.
        let (_, other) = try await URLSession.shared.data(from: URL(string: "/health/live", relativeTo: metrics)!)
        #expect((other as? HTTPURLResponse)?.statusCode == 404)
        #expect(try await AuthdBinary.stop(server) == 0)
        #expect(
            try await AuthdBinary.run(["serve", "--metrics-listen", "9090"]).stderr.contains("--metrics-listen: '9090' is not HOST:PORT"))
    }

    /// Runs a Python socket script against `port` and returns what it printed.
    static func sockets(_ script: String, port: Int) async throws -> String {
        let child = try ChildProcess(executable: "/usr/bin/env", arguments: ["python3", "-c", script, String(port)], mergeErrors: true)
        _ = await child.waitForExit()
        return child.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A client that never finishes its request head loses its connection after
    /// --request-head-timeout, and so does an idle keep-alive one; a slow answer is not cut.
    @Test func slowAndIdleClientsAreCutOff() async throws {
        let database = try await TestCluster.newMigratedDatabase()
        let (server, base) = try await AuthdBinary.serve(["--database-url", database.url, "--request-head-timeout", "1"])
        let port = base.port ?? 0
        let slowloris = """
            import socket, sys, time
            s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
            start = time.time()
            s.sendall(b"GET /health/live HTTP/1.1\\r\\nHost: x\\r\\n")
            s.settimeout(20)
            for _ in range(15):
                try:
                    s.sendall(b"X-Slow: 1\\r\\n")
                except OSError:
                    break
                time.sleep(0.2)
            try:
                data = s.recv(1)
            except OSError:
                data = b""
            print("closed" if data == b"" else "answered", round(time.time() - start))
            """
        let cut = try await Self.sockets(slowloris, port: port).split(separator: " ")
        #expect(cut.first == "closed")
        #expect((Int(cut.last ?? "") ?? 99) <= 3)
        let idle = """
            import socket, sys, time
            s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
            s.sendall(b"GET /health/live HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n")
            s.settimeout(20)
            answer = s.recv(4096)
            start = time.time()
            rest = s.recv(4096)
            print("answered" if answer.startswith(b"HTTP/1.1 200") else "no answer", "closed" if rest == b"" else "open", round(time.time() - start))
            """
        let kept = try await Self.sockets(idle, port: port).split(separator: " ")
        #expect(kept.prefix(2) == ["answered", "closed"])
        #expect((Int(kept.last ?? "") ?? 99) <= 3)
        #expect(try await AuthdBinary.stop(server) == 0)
    }

    /// At --max-connections, held by connections that have sent nothing for a second, a new
    /// connection is answered: one of the silent ones is closed for it (the in-process
    /// ConnectionCapTests say which, and that a connection inside a request is never closed).
    @Test func atTheCapASilentConnectionMakesRoomForANewOne() async throws {
        let database = try await TestCluster.newMigratedDatabase()
        let (server, base) = try await AuthdBinary.serve([
            "--database-url", database.url, "--max-connections", "2", "--request-head-timeout", "60",
        ])
        let script = """
            import select, socket, sys, time
            port = int(sys.argv[1])
            held = [socket.create_connection(("127.0.0.1", port)) for _ in range(2)]
            time.sleep(1.1)
            late = socket.create_connection(("127.0.0.1", port))
            late.sendall(b"GET /health/live HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n")
            late.settimeout(20)
            first = "answered" if late.recv(12).startswith(b"HTTP/1.1 200") else "nothing"
            readable, _, _ = select.select(held, [], [], 20)
            closed = 0
            for connection in readable:
                try:
                    closed += connection.recv(1) == b""
                except ConnectionResetError:
                    closed += 1
            print(first, closed)
            """
        let printed = try await Self.sockets(script, port: base.port ?? 0)
        #expect(printed == "answered 1", "\(printed)")
        #expect(try await AuthdBinary.stop(server) == 0)
    }

    /// One address holds at most --max-connections-per-address connections: the next is
    /// closed as soon as it is accepted, while another address (127.0.0.2) is still
    /// served; a slot freed is a slot again.
    @Test func oneAddressCannotTakeEverySlot() async throws {
        let database = try await TestCluster.newMigratedDatabase()
        let (server, base) = try await AuthdBinary.serve([
            "--database-url", database.url, "--max-connections-per-address", "3", "--request-head-timeout", "60",
        ])
        let script = """
            import socket, sys, time
            port = int(sys.argv[1])
            def answered(connection):
                connection.sendall(b"GET /health/live HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n")
                connection.settimeout(5)
                try:
                    return connection.recv(12).startswith(b"HTTP/1.1 200")
                except (socket.timeout, ConnectionResetError):
                    return False
            held = [socket.create_connection(("127.0.0.1", port)) for _ in range(3)]
            time.sleep(0.3)
            extra = socket.create_connection(("127.0.0.1", port))
            extra.settimeout(5)
            try:
                closed = extra.recv(1) == b""
            except ConnectionResetError:
                closed = True
            other = socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.2", 0))
            held[0].close()
            time.sleep(0.3)
            again = socket.create_connection(("127.0.0.1", port))
            print("closed" if closed else "kept", "served" if answered(other) else "refused", "served" if answered(again) else "refused")
            """
        #expect(try await Self.sockets(script, port: base.port ?? 0) == "closed served served")
        #expect(try await AuthdBinary.stop(server) == 0)
    }

    @Test func managesUsers() async throws {
        let database = try await TestCluster.newMigratedDatabase()
        let url = ["--database-url", database.url]
        let password = "correct horse battery staple"

        let added = try await AuthdBinary.run(["user", "add", "Alice", "--password-stdin"] + url, input: password + "\n")
        #expect(added.status == 0)
        #expect(added.stdout.hasPrefix("created user Alice ("))

        let duplicate = try await AuthdBinary.run(["user", "add", "alice", "--password-stdin"] + url, input: password)
        #expect(duplicate.status == 1)
        #expect(duplicate.stderr.contains("Error: a user named 'alice' already exists"))

        #expect(try await AuthdBinary.run(["user", "disable", "alice"] + url).status == 0)
        let updated = try await AuthdBinary.run(
            ["user", "add", "ALICE", "--password-stdin", "--update-existing"] + url, input: "another good password")
        #expect(updated.status == 0)
        #expect(updated.stdout == "updated user ALICE\n")
        let (server, base) = try await AuthdBinary.serve(url)
        #expect(try await AuthdBinary.login(base, "alice", "another good password").0 == 200)
        #expect(try await AuthdBinary.login(base, "alice", password).0 == 401)
        #expect(try await AuthdBinary.stop(server) == 0)

        let weak = try await AuthdBinary.run(["user", "add", "bob", "--password-stdin"] + url, input: "short\n")
        #expect(weak.status == 1)
        #expect(weak.stderr.contains("password must be at least 8 characters"))

        let listed = try await AuthdBinary.run(["user", "list"] + url)
        #expect(listed.status == 0)
        #expect(listed.stdout.contains("Alice"))
        #expect(listed.stdout.contains("active"))
        #expect(!listed.stdout.contains("bob"))

        #expect(try await AuthdBinary.run(["user", "disable", "ALICE"] + url).status == 0)
        #expect(try await AuthdBinary.run(["user", "list"] + url).stdout.contains("disabled"))
        let missing = try await AuthdBinary.run(["user", "disable", "nobody"] + url)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no user named 'nobody'"))

        // Account changes are in the audit log, newest first.
        #expect(try await AuthdBinary.run(["user", "enable", "alice"] + url).status == 0)
        let audit = try await AuthdBinary.run(["audit", "--user", "alice"] + url)
        #expect(audit.status == 0)
        let kinds = audit.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: " ", omittingEmptySubsequences: true)[1] }
        #expect(kinds.prefix(3) == ["user_enabled", "user_disabled", "login_failed"])
        #expect(kinds.contains("user_disabled") && kinds.contains("login_succeeded"))
        #expect(try await AuthdBinary.run(["audit", "--limit", "0"] + url).stderr.contains("--limit must be between 1 and 10000"))
        #expect(audit.stdout.contains("password_set") && audit.stdout.contains("user_created"))

        // Deleting an account keeps its events, with its id only.
        let deleted = try await AuthdBinary.run(["user", "delete", "ALICE"] + url)
        #expect(deleted.status == 0)
        #expect(deleted.stdout.hasPrefix("deleted user Alice ("))
        #expect(!(try await AuthdBinary.run(["user", "list"] + url).stdout.contains("Alice")))
        #expect(try await AuthdBinary.run(["user", "delete", "alice"] + url).stderr.contains("no user named 'alice'"))
        let afterDeletion = try await AuthdBinary.run(["audit", "--limit", "1"] + url)
        #expect(afterDeletion.stdout.contains("user_deleted"))
        #expect(try await AuthdBinary.run(["audit", "--user", "alice"] + url).stdout.split(separator: "\n").count == 1, "the header only")
        #expect(!(try await AuthdBinary.run(["audit", "--limit", "100"] + url).stdout.lowercased().contains("alice")))

        // No secret is ever printed.
        for output in [added, duplicate, weak, listed].flatMap({ [$0.stdout, $0.stderr] }) {
            #expect(!output.contains(password))
            #expect(!output.contains("$argon2id"))
        }
    }

    /// The issue's reproduction: `user add` refuses the most common passwords, with and
    /// without --update-existing, and a breached one when --breached-passwords or
    /// AUTHD_BREACHED_PASSWORDS names a list that has it.
    @Test func userAddRefusesCommonAndBreachedPasswords() async throws {
        let database = try await TestCluster.newMigratedDatabase()
        let url = ["--database-url", database.url]
        #expect(
            try await AuthdBinary.run(["user", "add", "alice", "--password-stdin"] + url, input: "correct horse battery staple").status == 0
        )
        for weak in ["password", "12345678", "qwertyuiop"] {
            for arguments in [["bob"], ["alice", "--update-existing"]] {
                let refused = try await AuthdBinary.run(["user", "add"] + arguments + ["--password-stdin"] + url, input: weak + "\n")
                #expect(refused.status == 1)
                #expect(refused.stderr.hasPrefix("Error: password is one of the 10,000 most common passwords"))
                #expect(!refused.stderr.contains("'\(weak)'") && !refused.stdout.contains(weak))
            }
        }

        let leaked = "a leaked passphrase"
        let folder = try TemporaryFolder("breached", files: ["pwned.txt": TestBreachedPasswords.text(breached: [leaked], filler: 2000)])
        defer { folder.remove() }
        let list = folder.appending("pwned.txt").path
        let breached = "Error: password appears in a list of breached passwords"
        let byOption = try await AuthdBinary.run(
            ["user", "add", "carol", "--password-stdin", "--breached-passwords", list] + url, input: leaked)
        #expect(byOption.status == 1 && byOption.stderr.hasPrefix(breached))
        let byEnvironment = try await AuthdBinary.run(
            ["user", "add", "carol", "--password-stdin"] + url, input: leaked,
            environment: AuthdBinary.environment(["AUTHD_BREACHED_PASSWORDS": list])
        )
        #expect(byEnvironment.status == 1 && byEnvironment.stderr.hasPrefix(breached))
        let missing = folder.appending("missing.txt").path
        let badList = try await AuthdBinary.run(
            ["user", "add", "carol", "--password-stdin", "--breached-passwords", missing] + url, input: leaked)
        #expect(badList.status == 1 && badList.stderr.hasPrefix("Error: cannot open the breached-password list \(missing)"))

        #expect(try await AuthdBinary.run(["user", "add", "carol", "--password-stdin"] + url, input: leaked).status == 0)
        let listed = try await AuthdBinary.run(["user", "list"] + url).stdout
        #expect(listed.contains("alice") && listed.contains("carol") && !listed.contains("bob"))
    }

    @Test func concurrentMigrationsBothSucceed() async throws {
        let database = try await TestCluster.newDatabase()
        let children = try (0..<3).map { _ in
            try ChildProcess(
                executable: try AuthdBinary.path, arguments: ["migrate", "--database-url", database.url],
                environment: AuthdBinary.environment())
        }
        let last = try #require(Migration.all.last).version
        for child in children {
            #expect(await child.waitForExit() == 0, "\(child.standardError)")
            #expect(child.standardOutput.contains("schema up to date: \(last) (\(Migration.all.count) migrations)"))
        }
    }

    @Test func serveAnswersLoginsAndStopsOnSIGTERM() async throws {
        let database = try await TestCluster.newMigratedDatabase()
        let password = "correct horse battery staple"
        #expect(
            try await AuthdBinary.run(["user", "add", "alice", "--password-stdin", "--database-url", database.url], input: password).status
                == 0)
        let (server, base) = try await AuthdBinary.serve(["--database-url", database.url])
        let (status, body) = try await AuthdBinary.login(base, "alice", password)
        #expect(status == 200)
        #expect(body["token_type"] as? String == "Bearer")
        let (wrongStatus, wrongBody) = try await AuthdBinary.login(base, "alice", "not it")
        #expect(wrongStatus == 401)
        #expect(wrongBody["error"] as? String == "invalid_credentials")

        #expect(try await AuthdBinary.stop(server) == 0)
        let logs = server.standardError
        #expect(logs.contains("path=/login"))
        #expect(!logs.contains(password))
        #expect(!logs.contains(try #require(body["access_token"] as? String)))
        #expect(!logs.contains(try #require(body["refresh_token"] as? String)))
    }

    @Test func serveRunsItsOwnPostgreSQLByDefault() async throws {
        let temporary = try TemporaryFolder.forCluster("authd-e2e")
        defer { temporary.remove() }
        let folder = temporary.appending("folder")
        let dataDirectory = ["--data-dir", folder.path]
        let (server, base) = try await AuthdBinary.serve(dataDirectory)
        // A second command on the same folder uses the running cluster and leaves it running.
        let added = try await AuthdBinary.run(
            ["user", "add", "alice", "--password-stdin"] + dataDirectory, input: "correct horse battery staple")
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try await AuthdBinary.login(base, "alice", "correct horse battery staple").0 == 200)
        // serve keeps its whole pool open on the embedded cluster too.
        let counts = try await ServePoolTests.connections(
            to: EmbeddedPostgres(directory: folder).configuration(database: "authd"), until: DatabaseTarget.defaultPoolSize)
        #expect(counts.last == DatabaseTarget.defaultPoolSize, "serve's connections, the last counts: \(counts.suffix(5))")

        #expect(try await AuthdBinary.stop(server) == 0)
        let cluster = try EmbeddedPostgres(directory: folder)
        #expect(!cluster.isRunning)
        #expect(FileManager.default.fileExists(atPath: cluster.dataDirectory + "/PG_VERSION"))
        // In the folder asked for, so removing the folder removes the cluster.
        #expect(cluster.directory == folder.path)
    }

    @Test func saysHowToInstallPostgreSQLWhenItIsMissing() async throws {
        let temporary = try TemporaryFolder("authd-nopg")
        defer { temporary.remove() }
        let folder = temporary.appending("folder")
        let result = try await AuthdBinary.run(
            ["serve", "--data-dir", folder.path],
            environment: AuthdBinary.environment(["AUTHD_POSTGRES_BIN": "/nonexistent"])
        )
        #expect(result.status == 1)
        #expect(result.stderr.contains("PostgreSQL server programs (initdb, pg_ctl) were not found"))
        #expect(result.stderr.contains("apt-get install postgresql"))
    }
}
