import Foundation

/// Why the embedded PostgreSQL cluster could not be set up or started.
///
/// ```swift
/// catch let error as EmbeddedPostgresError { print(error) }   // one line saying what to do
/// ```
public struct EmbeddedPostgresError: Error, Sendable, CustomStringConvertible {
    private enum Kind: Sendable {
        case binariesNotFound
        case noUnprivilegedUser
        case folderInUse(String)
        case commandFailed(step: String, output: String)
    }

    private let kind: Kind

    /// The PostgreSQL server programs are not installed.
    public static let binariesNotFound = EmbeddedPostgresError(kind: .binariesNotFound)
    /// Running as root, no unprivileged account to run PostgreSQL as.
    public static let noUnprivilegedUser = EmbeddedPostgresError(kind: .noUnprivilegedUser)

    /// The folder holds files that are not a cluster's; it is left alone.
    public static func folderInUse(_ path: String) -> EmbeddedPostgresError {
        EmbeddedPostgresError(kind: .folderInUse(path))
    }

    /// A step (`initdb`, `pg_ctl start`, …) exited non-zero; `output` is the end of what it printed.
    public static func commandFailed(step: String, output: String) -> EmbeddedPostgresError {
        EmbeddedPostgresError(kind: .commandFailed(step: step, output: String(output.suffix(2000))))
    }

    /// What went wrong and how to fix it.
    public var description: String {
        switch kind {
        case .binariesNotFound:
            "PostgreSQL server programs (initdb, pg_ctl) were not found on PATH, through pg_config, or under "
                + "/usr/lib/postgresql/*/bin. Install them (Debian/Ubuntu: sudo apt-get install postgresql; "
                + "macOS: brew install postgresql@15), or set AUTHD_POSTGRES_BIN to their folder, "
                + "or pass --database-url to use an existing server."
        case .noUnprivilegedUser:
            "PostgreSQL refuses to run as root and neither a 'postgres' nor a 'nobody' account exists: "
                + "create one (useradd --system postgres) or run authd as an ordinary user."
        case .folderInUse(let path):
            "\(path) already holds other files; the embedded PostgreSQL cluster needs a folder of its own "
                + "(choose another --data-dir)."
        case .commandFailed(let step, let output):
            "\(step) failed: \(output.trimmingCharacters(in: .whitespacesAndNewlines))"
        }
    }
}
