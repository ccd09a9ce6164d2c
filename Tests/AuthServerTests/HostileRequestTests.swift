import AuthCore
import AuthServer
import AuthTestSupport
import Foundation
import HummingbirdTesting
import Testing

/// Requests the HTTP parser rejects never reach the router; they must still get the one
/// JSON error shape, over a real socket.
@Suite struct HostileRequestTests {
    static let cases: [(name: String, request: [UInt8], status: Int, code: String)] = [
        (
            "a 200 KB header",
            Array("GET /health/live HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 200_000))\r\n\r\n".utf8), 431,
            "request_header_fields_too_large"
        ),
        (
            "10,000 headers",
            Array(("GET /health/live HTTP/1.1\r\nHost: x\r\n" + (0..<10_000).map { "X-H\($0): v\r\n" }.joined() + "\r\n").utf8), 431,
            "request_header_fields_too_large"
        ),
        (
            "a 100 KB path", Array("GET /\(String(repeating: "p", count: 100_000)) HTTP/1.1\r\nHost: x\r\n\r\n".utf8), 431,
            "request_header_fields_too_large"
        ),
        ("a NUL in the method", Array("G\u{0}T /health/live HTTP/1.1\r\nHost: x\r\n\r\n".utf8), 400, "invalid_request"),
    ]

    @Test(arguments: 0..<cases.count)
    func parserRejectionsGetTheErrorShape(index: Int) async throws {
        let hostile = Self.cases[index]
        var fixture = try await ServerFixture()
        fixture.configuration.port = 0
        let app = try await fixture.application()
        try await app.test(.live) { client async throws in
            let port = try #require(client.port)
            let answer = try await RawHTTP.exchangeOffPool(hostile.request, port: port)
            let (head, body) = try #require(RawHTTP.split(answer), "\(hostile.name): no answer")
            #expect(head.hasPrefix("HTTP/1.1 \(hostile.status) "), "\(hostile.name): \(head)")
            #expect(head.lowercased().contains("content-type: application/json"))
            #expect(head.lowercased().contains("cache-control: no-store"))
            let json = try #require(
                try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: String], "\(hostile.name): \(body)")
            #expect(json["error"] == hostile.code)
            #expect(json["error_description"]?.isEmpty == false)
            // The service still answers normally afterwards.
            #expect(try await client.execute(uri: "/health/live", method: .get).status == .ok)
        }
    }
}

/// One request written as raw bytes to 127.0.0.1, the answer read until it is whole or the
/// server closes; ``Connection`` writes one in parts.
enum RawHTTP {
    struct SocketError: Error {
        var step = "socket"
        var code: Int32 = 0
    }

    /// Writes `request` at once and reads the answer, on threads of their own
    /// (``ProcessKit/OwnThread``): blocking I/O on the Swift concurrency pool would starve
    /// the server it talks to (two threads on two cores). The server may answer and stop
    /// reading before it has read everything: a short write is fine.
    static func exchangeOffPool(_ request: [UInt8], port: Int) async throws -> String {
        let connection = try await Connection.open(port: port)
        try await connection.send(request)
        return try await connection.answer()
    }

    /// The head (status line and headers) and the body.
    static func split(_ answer: String) -> (head: String, body: String)? {
        guard let range = answer.range(of: "\r\n\r\n") else { return nil }
        return (String(answer[..<range.lowerBound]), String(answer[range.upperBound...]))
    }
}
