import AuthCore
import Logging

/// One run of ``RetentionService`` (every `retentionInterval`, through
/// ``PeriodicService``), logged; a failed run (the database is away) is logged and tried
/// again next time.
struct RetentionRunner<Storage: AuthStorage>: Sendable {
    let retention: RetentionService<Storage>
    let logger: Logger

    func runOnce() async {
        do {
            let deleted = try await retention.run()
            guard !deleted.isEmpty else { return }
            logger.info(
                "retention deleted old rows",
                metadata: [
                    "audit_events": "\(deleted.auditEvents)", "login_failures": "\(deleted.loginCounters)",
                    "sessions": "\(deleted.sessionRows)", "recovery": "\(deleted.recoveryRows)",
                ]
            )
        } catch {
            logger.warning("retention run failed", metadata: ["reason": "\(type(of: error))"])
        }
    }
}
