import PostgresNIO

/// One server a ``DatabaseTarget`` may connect to.
public enum DatabaseHost: Sendable, Hashable, CustomStringConvertible {
    /// A host name or address and a port.
    case tcp(String, port: Int)
    /// A Unix socket's path.
    case socket(String)

    /// The server `configuration` connects to.
    init(of configuration: PostgresClient.Configuration) {
        if let path = configuration.unixSocketPath {
            self = .socket(path)
        } else {
            self = .tcp(configuration.host ?? "localhost", port: configuration.port ?? 5432)
        }
    }

    public var description: String {
        switch self {
        case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .socket(let path): path
        }
    }
}

/// Which of a URL's servers will do, as libpq's `target_session_attrs` says (PostgreSQL's
/// documentation, "Connection Strings", 34.1.2): servers are tried in order and the first
/// that fits is used.
public enum TargetSessionAttributes: String, Sendable, CaseIterable {
    /// Any server that answers.
    case any
    /// One that accepts writes (`transaction_read_only` is off).
    case readWrite = "read-write"
    /// One that does not (`transaction_read_only` is on).
    case readOnly = "read-only"
    /// One that is not in recovery: the primary.
    case primary
    /// One in recovery: a standby.
    case standby
    /// A standby if one answers, else any server.
    case preferStandby = "prefer-standby"

    /// Whether a server in this state fits, on the pass that looks for a standby first
    /// (`standbyPass`, for ``preferStandby`` only) or the pass after it.
    func accepts(inRecovery: Bool, readOnly: Bool, standbyPass: Bool) -> Bool {
        switch self {
        case .any: true
        case .readWrite: !readOnly
        case .readOnly: readOnly
        case .primary: !inRecovery
        case .standby: inRecovery
        case .preferStandby: standbyPass ? inRecovery : true
        }
    }

    /// Whether a session must accept writes: a server that refuses one (SQLSTATE 25006) is
    /// then no longer the right one, and another is looked for.
    var needsWrites: Bool { self == .readWrite || self == .primary }
}
