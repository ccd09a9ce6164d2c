import Synchronization

/// The read replicas of a ``PostgresStorage``, taken in turn for reads that may be slightly
/// stale (``PostgresStorage/staleReads``); each answers through its primary while it is
/// behind or away (``Database/init(replicaOf:target:maximumLag:)``).
final class ReadReplicas: Sendable {
    let databases: [Database]
    private let next = Atomic<Int>(0)

    init(_ databases: [Database]) {
        self.databases = databases
    }

    /// The next replica, in turn, that is usable now; nil when none is.
    func pick() -> Database? {
        guard !databases.isEmpty else { return nil }
        let start = next.wrappingAdd(1, ordering: .relaxed).oldValue
        for offset in 0..<databases.count {
            let database = databases[(start &+ offset) % databases.count]
            if database.isUsableForReads { return database }
        }
        return nil
    }
}
