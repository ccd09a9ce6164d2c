import AuthCore
import ServiceLifecycle

/// Runs a storage's background work for as long as the application runs.
struct StorageService<Storage: AuthStorage>: Service {
    let storage: Storage

    func run() async throws {
        await cancelWhenGracefulShutdown { await storage.run() }
        // Storage with nothing to run stays up until the application shuts down.
        try? await gracefulShutdown()
    }
}
