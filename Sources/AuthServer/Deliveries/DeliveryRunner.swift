import AsyncHTTPClient
import AuthCore
import Logging
import ServiceLifecycle

/// The sender of one instance, as a service: a pass of ``AuthCore/DeliveryService`` each
/// time a message is queued here (``AuthCore/DeliveryWake``) or every poll interval (for
/// messages other instances queued and retries that came due), and again at once after a
/// full batch. It starts once the application has migrated the database (``started``); a
/// pass that fails (the database is away) is logged and tried at the next poll.
struct DeliveryRunner<Storage: AuthStorage>: Service {
    let sender: DeliveryService<Storage>
    /// The sender's HTTP client, shut down when the runner stops.
    let client: HTTPClient
    let wake: DeliveryWake
    /// Signalled when the server starts, after migrations.
    let started: DeliveryWake
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            // Waits for the schema (a minute at most: then passes fail, are logged, and retry).
            await started.wait(atMost: .seconds(60))
            while !Task.isCancelled {
                let full = await pass()
                if !full {
                    await wake.wait(atMost: sender.policy.pollInterval)
                }
            }
        }
        try? await client.shutdown()
    }

    /// One pass; whether it took a whole batch.
    func pass() async -> Bool {
        do {
            let pass = try await sender.runOnce()
            if pass.failed > 0 || pass.abandoned > 0 {
                logger.warning(
                    "some messages were not delivered",
                    metadata: ["delivered": "\(pass.delivered)", "failed": "\(pass.failed)", "abandoned": "\(pass.abandoned)"]
                )
            }
            return pass.claimed >= sender.policy.batchSize
        } catch is CancellationError {
            return false
        } catch {
            logger.warning("delivery pass failed", metadata: ["reason": "\(type(of: error))"])
            return false
        }
    }
}
