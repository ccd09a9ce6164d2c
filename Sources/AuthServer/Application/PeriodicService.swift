import ServiceLifecycle

/// Runs `work` every `interval` for as long as the application runs, the first time one
/// interval after start: what the key reload and retention share.
///
/// ```swift
/// PeriodicService(interval: .seconds(60)) { await retention.runOnce() }
/// ```
struct PeriodicService: Service {
    let interval: Duration
    let work: @Sendable () async -> Void

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: interval)
                } catch {
                    return
                }
                await work()
            }
        }
    }
}
