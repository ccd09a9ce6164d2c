import AuthCore
import Logging
import ServiceLifecycle

/// Runs ``RetentionService`` every `interval` for as long as the application runs, the
/// first time one interval after start. A failed run (the database is away) is logged
/// and tried again next time.
struct RetentionRunner<Storage: AuthStorage>: Service {
    let retention: RetentionService<Storage>
    let interval: Duration
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: interval)
                } catch {
                    return
                }
                await runOnce()
            }
        }
    }

    private func runOnce() async {
        do {
            let deleted = try await retention.run()
            guard !deleted.isEmpty else { return }
            logger.info(
                "retention deleted old rows",
                metadata: [
                    "audit_events": "\(deleted.auditEvents)", "login_failures": "\(deleted.loginCounters)",
                    "sessions": "\(deleted.sessionRows)",
                ]
            )
        } catch {
            logger.warning("retention run failed", metadata: ["reason": "\(type(of: error))"])
        }
    }
}
