import AuthCore
import Foundation
import Hummingbird

/// `GET /test/clock` and `POST /test/clock` `{"advance": seconds}`: authd's time, and a step
/// forward, for tests. Routed only with `serve --test-clock`; anywhere else these paths are
/// 404.
///
/// ```swift
/// router.addRoutes(TestClockController(clock: SteppedClock(), maxBodySize: 64 * 1024).routes)
/// ```
public struct TestClockController: Sendable {
    /// The clock authd runs on.
    public let clock: SteppedClock
    /// Largest accepted request body, bytes.
    public let maxBodySize: Int

    /// The longest one step: ten years.
    public static let maximumStep: Double = 315_360_000

    /// Creates the controller.
    public init(clock: SteppedClock, maxBodySize: Int) {
        self.clock = clock
        self.maxBodySize = maxBodySize
    }

    /// The routes of this feature.
    public var routes: RouteCollection<AuthRequestContext> {
        let routes = RouteCollection(context: AuthRequestContext.self)
        routes.get("/test/clock", use: read)
        routes.post("/test/clock", use: step)
        return routes
    }

    @Sendable func read(_ request: Request, context: AuthRequestContext) async throws -> Response {
        JSONResponse.make(status: .ok, body: ClockTime(clock))
    }

    @Sendable func step(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let body = try await JSONRequestBody.decode(ClockStep.self, from: request, limit: maxBodySize)
        guard body.advance.isFinite, body.advance > 0, body.advance <= Self.maximumStep else {
            throw AuthError.invalidRequest("advance must be a number of seconds above 0 and at most \(Int(Self.maximumStep))")
        }
        clock.advance(by: body.advance)
        return JSONResponse.make(status: .ok, body: ClockTime(clock))
    }
}

/// The body of `POST /test/clock`: `{"advance": seconds}`.
///
/// ```swift
/// let step = try JSONRequestBody.decode(ClockStep.self, from: Data(#"{"advance":901}"#.utf8))
/// ```
public struct ClockStep: RequestBody {
    /// Seconds to move forward.
    public let advance: Double

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case advance
    }
}

/// What `/test/clock` answers: `{"now": RFC 3339, "stepped": seconds}`.
struct ClockTime: Encodable {
    let now: String
    let stepped: Double

    init(_ clock: SteppedClock) {
        now = clock.now.formatted(.iso8601)
        stepped = clock.stepped
    }
}
