import ArgumentParser
import AuthPostgres

/// `serve --database-read-url`: streaming replicas for the reads that may be a moment old.
struct ReadReplicaOptions: ParsableArguments {
    @Option(
        name: .customLong("database-read-url"),
        help: ArgumentHelp(
            "A PostgreSQL streaming replica for reads that may be a moment old (GET /me, GET /sessions, /userinfo, access-token introspection); repeat for several, taken in turn. Writes, and reads that decide one, stay on --database-url.",
            valueName: "url")
    )
    var urls: [String] = []

    @Option(
        name: .customLong("database-read-max-lag"),
        help: ArgumentHelp(
            "Seconds a replica may be behind its primary and still answer; past it, the primary answers.", valueName: "seconds")
    )
    var maximumLag = 1.0

    func validate() throws {
        guard maximumLag >= 0, maximumLag.isFinite else { throw ValidationError("--database-read-max-lag must not be negative.") }
        for url in urls {
            do {
                _ = try DatabaseURL.parse(url)
            } catch let error as DatabaseURL.Invalid {
                throw ValidationError("--database-read-url: \(error.description)")
            }
        }
    }

    /// The replicas' targets, each pool kept full as the primary's is.
    func targets() throws -> [DatabaseTarget] {
        try urls.map { try DatabaseURL.parse($0).withFixedPool }
    }

    /// ``maximumLag`` as a duration.
    var lag: Duration { .milliseconds(Int64((maximumLag * 1000).rounded())) }
}
