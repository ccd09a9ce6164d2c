import Foundation
import ProcessKit

/// Where the PostgreSQL server programs (`initdb`, `pg_ctl`) are.
///
/// Looked up in this order: `$AUTHD_POSTGRES_BIN`, `PATH`, `pg_config --bindir`, then the
/// newest `/usr/lib/postgresql/*/bin` (Debian's layout, which is not on `PATH`).
///
/// ```swift
/// let binaries = try PostgresBinaries.locate()
/// print(binaries.initdb)   // "/usr/lib/postgresql/15/bin/initdb"
/// ```
public struct PostgresBinaries: Sendable, Equatable {
    /// The folder holding the programs.
    public let directory: String

    /// Path of `initdb`.
    public var initdb: String { directory + "/initdb" }
    /// Path of `pg_ctl`.
    public var pgCtl: String { directory + "/pg_ctl" }
    /// Path of `pg_basebackup`.
    public var pgBasebackup: String { directory + "/pg_basebackup" }

    /// Finds the programs, or throws ``EmbeddedPostgresError`` saying how to install them.
    /// A set `AUTHD_POSTGRES_BIN` is the only place looked at.
    public static func locate(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        debianRoot: String = "/usr/lib/postgresql"
    ) throws -> PostgresBinaries {
        if let configured = environment["AUTHD_POSTGRES_BIN"], !configured.isEmpty {
            let binaries = PostgresBinaries(directory: configured)
            guard binaries.isComplete else { throw EmbeddedPostgresError.binariesNotFound }
            return binaries
        }
        // Looked at in order, each only when the ones before it have no complete set: a
        // `PATH` that has them spares running `pg_config`, which every `authd` command
        // beside a running server would otherwise pay for.
        if let initdb = CommandRunner.which("initdb", path: environment["PATH"]) {
            let binaries = PostgresBinaries(
                directory: URL(fileURLWithPath: initdb).resolvingSymlinksInPath().deletingLastPathComponent().path)
            if binaries.isComplete { return binaries }
        }
        if let pgConfig = CommandRunner.which("pg_config", path: environment["PATH"]),
            let result = try? CommandRunner.run(pgConfig, ["--bindir"]), result.status == 0
        {
            let binaries = PostgresBinaries(directory: result.output.trimmingCharacters(in: .whitespacesAndNewlines))
            if binaries.isComplete { return binaries }
        }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: debianRoot)) ?? []
        for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
            let binaries = PostgresBinaries(directory: "\(debianRoot)/\(version)/bin")
            if binaries.isComplete { return binaries }
        }
        throw EmbeddedPostgresError.binariesNotFound
    }

    private var isComplete: Bool {
        FileManager.default.isExecutableFile(atPath: initdb) && FileManager.default.isExecutableFile(atPath: pgCtl)
    }
}
