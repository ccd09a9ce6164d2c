/// Something `GET /health/ready` asks: it returns when the dependency works and throws
/// (``AuthError/serviceUnavailable(_:retryAfter:)``) when it does not.
///
/// ```swift
/// struct AlwaysReady: ReadinessProbe { func check() async throws {} }
/// ```
public protocol ReadinessProbe: Sendable {
    /// Throws when the dependency is not usable now.
    func check() async throws
}
