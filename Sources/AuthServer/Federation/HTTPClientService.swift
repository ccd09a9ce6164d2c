import AsyncHTTPClient
import ServiceLifecycle

/// Keeps an HTTP client for as long as the application runs, and shuts it down after.
struct HTTPClientService: Service {
    let client: HTTPClient

    func run() async throws {
        try? await gracefulShutdown()
        try? await client.shutdown()
    }
}
