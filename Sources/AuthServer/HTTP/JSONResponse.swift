import Foundation
import Hummingbird

/// Builds JSON responses: one encoder, `Content-Type: application/json`, and
/// `Cache-Control: no-store` unless the caller sets another.
///
/// ```swift
/// JSONResponse.make(status: .ok, body: ["status": "ok"])
/// ```
public enum JSONResponse {
    /// 204 with no body and `Cache-Control: no-store`: what an account or session change
    /// answers.
    ///
    /// ```swift
    /// return JSONResponse.noContent()
    /// ```
    public static func noContent() -> Response {
        Response(status: .noContent, headers: [.cacheControl: "no-store"])
    }

    /// A response whose body is `body` encoded as JSON.
    public static func make(status: HTTPResponse.Status, body: some Encodable, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        if headers[.cacheControl] == nil {
            headers[.cacheControl] = "no-store"
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding our own plain value types cannot fail; an empty object is the safe fallback.
        let data = (try? encoder.encode(body)) ?? Data("{}".utf8)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
