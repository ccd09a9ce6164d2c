import AuthCore
import AuthServer
import AuthTestSupport
import Foundation
import HummingbirdTesting
import ProcessKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Requests the HTTP parser rejects never reach the router; they must still get the one
/// JSON error shape, over a real socket.
@Suite struct HostileRequestTests {
    static let cases: [(name: String, request: [UInt8], status: Int, code: String)] = [
        ("a 200 KB header", Array("GET /health/live HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 200_000))\r\n\r\n".utf8), 431, "request_header_fields_too_large"),
        ("10,000 headers", Array(("GET /health/live HTTP/1.1\r\nHost: x\r\n" + (0..<10_000).map { "X-H\($0): v\r\n" }.joined() + "\r\n").utf8), 431, "request_header_fields_too_large"),
        ("a 100 KB path", Array("GET /\(String(repeating: "p", count: 100_000)) HTTP/1.1\r\nHost: x\r\n\r\n".utf8), 431, "request_header_fields_too_large"),
        ("a NUL in the method", Array("G\u{0}T /health/live HTTP/1.1\r\nHost: x\r\n\r\n".utf8), 400, "invalid_request"),
    ]

    @Test(arguments: 0..<cases.count)
    func parserRejectionsGetTheErrorShape(index: Int) async throws {
        let hostile = Self.cases[index]
        var configuration = AppConfiguration()
        configuration.port = 0
        configuration.hashParameters = .testLight
        configuration.logger = TestCluster.logger
        let app = try await buildApplication(configuration: configuration, storage: InMemoryStorage(), keyEncryptionKey: .generate())
        try await app.test(.live) { client async throws in
            let port = try #require(client.port)
            let answer = try await RawHTTP.exchangeOffPool(hostile.request, port: port)
            let (head, body) = try #require(RawHTTP.split(answer), "\(hostile.name): no answer")
            #expect(head.hasPrefix("HTTP/1.1 \(hostile.status) "), "\(hostile.name): \(head)")
            #expect(head.lowercased().contains("content-type: application/json"))
            #expect(head.lowercased().contains("cache-control: no-store"))
            let json = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: String], "\(hostile.name): \(body)")
            #expect(json["error"] == hostile.code)
            #expect(json["error_description"]?.isEmpty == false)
            // The service still answers normally afterwards.
            #expect(try await client.execute(uri: "/health/live", method: .get).status == .ok)
        }
    }
}

/// One request written as raw bytes to 127.0.0.1, the answer read until the server closes.
enum RawHTTP {
    struct SocketError: Error {
        var step = "socket"
        var code: Int32 = 0
    }

    /// ``exchange(_:port:)`` on a thread of its own (``ProcessKit/OwnThread``): blocking I/O
    /// on the Swift concurrency pool would starve the server it talks to (two threads on two cores).
    static func exchangeOffPool(_ request: [UInt8], port: Int) async throws -> String {
        try await OwnThread.run { try exchange(request, port: port) }
    }

    static func exchange(_ request: [UInt8], port: Int) throws -> String {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw SocketError() }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw SocketError(step: "connect", code: errno) }
        // The server may answer and stop reading before it has read everything: a short write is fine.
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 { throw SocketError(step: "recv", code: errno) }
            if count == 0 { break }
            answer += buffer[0..<count]
            if let text = String(bytes: answer, encoding: .utf8), let (head, body) = split(text),
                let length = head.lowercased().components(separatedBy: "\r\n").first(where: { $0.hasPrefix("content-length: ") })
                    .flatMap({ Int($0.dropFirst("content-length: ".count)) }), body.utf8.count >= length
            {
                break
            }
        }
        return String(decoding: answer, as: UTF8.self)
    }

    /// The head (status line and headers) and the body.
    static func split(_ answer: String) -> (head: String, body: String)? {
        guard let range = answer.range(of: "\r\n\r\n") else { return nil }
        return (String(answer[..<range.lowerBound]), String(answer[range.upperBound...]))
    }
}
