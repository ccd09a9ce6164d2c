import AuthPostgres
import AuthTestSupport
import Foundation
import PostgresNIO
import Testing

@Suite struct MigrationTests {
    /// The SQL lives in the top-level migrations/; what the binary embeds must be exactly it.
    @Test func everyMigrationFileIsEmbeddedInOrder() throws {
        let folder = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("migrations")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".sql") }.sorted()
        #expect(Migration.all.map { $0.version + ".sql" } == files)
        for migration in Migration.all {
            let text = try String(contentsOf: folder.appendingPathComponent(migration.version + ".sql"), encoding: .utf8)
            #expect(migration.sql == text)
        }
    }

    /// Each function's body lives in migrations/functions/, embedded as it is there.
    @Test func everyFunctionFileIsEmbedded() throws {
        let folder = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("migrations/functions")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".sql") }.sorted()
        #expect(SQLFunction.all.map { $0.name + ".sql" } == files)
        for function in SQLFunction.all {
            #expect(function.sql == (try String(contentsOf: folder.appendingPathComponent(function.name + ".sql"), encoding: .utf8)))
            #expect(function.sql.contains("CREATE OR REPLACE FUNCTION \(function.name)("))
            #expect(Migration.all.map(\.version).contains(function.since))
        }
    }

    /// A function's file changed after every migration was applied: migrating again
    /// replaces the body the database runs.
    @Test func aFunctionsBodyReachesADatabaseMigratedBefore() async throws {
        let testDatabase = try await TestCluster.newDatabase()
        try await TestCluster.withDatabase(testDatabase.configuration) { database in
            _ = try await MigrationRunner(database: database).migrate()
            let rotation = try #require(SQLFunction.all.first { $0.name == "rotate_refresh_token" })
            let changed = SQLFunction(
                name: rotation.name, sql: rotation.sql.replacingOccurrences(of: "outcome := 'unknown';", with: "outcome := 'not found';"),
                since: rotation.since
            )
            #expect(try await MigrationRunner(database: database, functions: [changed]).migrate() == [])
            let rows = try await database.client.query(
                "SELECT outcome FROM rotate_refresh_token('no such token', 'successor', now() + interval '1 day', now(), NULL)"
            )
            for try await outcome in rows.decode(String.self) { #expect(outcome == "not found") }
            _ = try await MigrationRunner(database: database).migrate()
            for try await outcome in try await database.client.query(
                "SELECT outcome FROM rotate_refresh_token('no such token', 's', now(), now(), NULL)"
            ).decode(String.self) {
                #expect(outcome == "unknown")
            }
        }
    }

    @Test func appliesEverythingOnceAndRecordsIt() async throws {
        let testDatabase = try await TestCluster.newDatabase()
        try await TestCluster.withDatabase(testDatabase.configuration) { database in
            let runner = MigrationRunner(database: database)
            #expect(try await runner.migrate() == Migration.all.map(\.version))
            #expect(try await runner.migrate() == [])
            #expect(try await runner.appliedVersions() == Migration.all.map(\.version))
            let rows = try await database.client.query(
                "SELECT count(*) FROM information_schema.tables WHERE table_name IN ('users', 'signing_keys', 'refresh_tokens', 'login_failures')"
            )
            for try await count in rows.decode(Int.self) { #expect(count == 4) }
        }
    }

    @Test func concurrentRunnersBothSucceed() async throws {
        let testDatabase = try await TestCluster.newDatabase()
        let results = try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    try await TestCluster.withDatabase(testDatabase.configuration) { database in
                        try await MigrationRunner(database: database).migrate()
                    }
                }
            }
            return try await group.reduce(into: [[String]]()) { $0.append($1) }
        }
        // Exactly one runner applied everything; the others found nothing to do.
        #expect(results.filter { !$0.isEmpty } == [Migration.all.map(\.version)])
        let versions = try await TestCluster.withDatabase(testDatabase.configuration) { database in
            try await MigrationRunner(database: database).appliedVersions()
        }
        #expect(versions == Migration.all.map(\.version))
    }

    /// 0019 maps the fullwidth keys written before width mapping, unless the mapped key is
    /// taken or two accounts would share it.
    @Test func fullwidthKeysAreMappedWhereNothingCollides() async throws {
        let testDatabase = try await TestCluster.newDatabase()
        try await TestCluster.withDatabase(testDatabase.configuration) { database in
            let before = Array(Migration.all.prefix { $0.version < "0019" })
            _ = try await MigrationRunner(database: database, migrations: before).migrate()
            for key in ["ａｌｉｃｅ", "bob", "ｂｏｂ", "ｃａｒｏｌ", "cａrol", "ｄａｎ\u{3000}ｏ"] {
                try await database.client.query(
                    "INSERT INTO users (id, username, username_key, password_hash, created_at) VALUES (\(UUID()), \(key), \(key), 'h', now())"
                )
            }
            _ = try await MigrationRunner(database: database).migrate()
            var keys: [String: String] = [:]
            for try await (name, key) in try await database.client.query("SELECT username, username_key FROM users").decode(
                (String, String).self)
            {
                keys[name] = key
            }
            #expect(keys == ["ａｌｉｃｅ": "alice", "bob": "bob", "ｂｏｂ": "ｂｏｂ", "ｃａｒｏｌ": "ｃａｒｏｌ", "cａrol": "cａrol", "ｄａｎ\u{3000}ｏ": "dan o"])
        }
    }

    @Test func aFailingMigrationLeavesNothingBehind() async throws {
        let testDatabase = try await TestCluster.newDatabase()
        try await TestCluster.withDatabase(testDatabase.configuration) { database in
            let broken = [
                Migration(version: "0001_ok", sql: "CREATE TABLE kept_only_if_all_pass (x int);"),
                Migration(version: "0002_broken", sql: "CREATE TABLE nope (x nosuchtype);"),
            ]
            await #expect(throws: (any Error).self) { try await MigrationRunner(database: database, migrations: broken).migrate() }
            let rows = try await database.client.query("SELECT to_regclass('kept_only_if_all_pass')::text")
            for try await name in rows.decode(String?.self) { #expect(name == nil) }
        }
    }
}

@Suite struct SQLScriptTests {
    @Test func splitsAtTopLevelSemicolonsOnly() {
        let sql = """
            -- a comment; with a semicolon
            CREATE TABLE a (note text DEFAULT 'x;y', "odd;name" int);
            /* block; comment */
            CREATE FUNCTION f() RETURNS int AS $body$ SELECT 1; $body$ LANGUAGE sql;
            INSERT INTO a VALUES ('it''s; fine', 1)
            """
        let statements = SQLScript.statements(in: sql)
        #expect(statements.count == 3)
        #expect(statements[0].hasSuffix(#"CREATE TABLE a (note text DEFAULT 'x;y', "odd;name" int)"#))
        #expect(statements[1].hasSuffix("CREATE FUNCTION f() RETURNS int AS $body$ SELECT 1; $body$ LANGUAGE sql"))
        #expect(statements[2] == "INSERT INTO a VALUES ('it''s; fine', 1)")
    }

    @Test func dropsEmptyStatements() {
        #expect(SQLScript.statements(in: " ;; -- only a comment\n") == [])
    }
}
