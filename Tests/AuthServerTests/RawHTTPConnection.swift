import Foundation
import ProcessKit

#if canImport(Glibc)
    import Glibc
#endif

extension RawHTTP {
    /// A request written in parts over one socket to 127.0.0.1, for bodies that take their
    /// time: the head and a first part, then, after whatever the test does meanwhile, the
    /// rest, byte by byte if asked. Blocking I/O runs on threads of its own.
    ///
    /// ```swift
    /// let connection = try await RawHTTP.Connection.open(port: port)
    /// try await connection.send(head + Array(body.prefix(10)))
    /// // … change the account …
    /// try await connection.send(Array(body.dropFirst(10)))
    /// let answer = try await connection.answer()
    /// ```
    final class Connection: Sendable {
        let fd: Int32

        private init(fd: Int32) {
            self.fd = fd
        }

        deinit { close(fd) }

        static func open(port: Int) async throws -> Connection {
            try await OwnThread.run {
                #if canImport(Glibc)
                    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                #else
                    let fd = socket(AF_INET, SOCK_STREAM, 0)
                #endif
                guard fd >= 0 else { throw SocketError() }
                var timeout = timeval(tv_sec: 30, tv_usec: 0)
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = in_port_t(UInt16(port).bigEndian)
                address.sin_addr.s_addr = inet_addr("127.0.0.1")
                let connected = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
                guard connected == 0 else {
                    close(fd)
                    throw SocketError(step: "connect", code: errno)
                }
                return Connection(fd: fd)
            }
        }

        /// Writes `bytes`; false once the server has closed the connection.
        @discardableResult
        func send(_ bytes: [UInt8]) async throws -> Bool {
            let fd = fd
            return await OwnThread.run {
                bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
            }
        }

        /// Writes `bytes` one at a time, `interval` apart, until all are sent or an answer
        /// has arrived (or the server closed); returns how many were sent.
        func trickle(_ bytes: [UInt8], interval: Duration) async throws -> Int {
            for (index, byte) in bytes.enumerated() {
                if try await hasAnswer() { return index }
                guard try await send([byte]) else { return index }
                try await Task.sleep(for: interval)
            }
            return bytes.count
        }

        /// Whether the server has written something (or closed) without waiting.
        private func hasAnswer() async throws -> Bool {
            let fd = fd
            return await OwnThread.run {
                var byte: UInt8 = 0
                return recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) >= 0
            }
        }

        /// The answer, read until it is whole or the server closes.
        func answer() async throws -> String {
            let fd = fd
            return try await OwnThread.run {
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
        }

        /// Whether the server has closed its side (a read finds the end) within `within`; what
        /// it wrote before closing is read and dropped (its end may come in a later segment).
        func isClosed(within: Duration) async throws -> Bool {
            let fd = fd
            let deadline = ContinuousClock.now + within
            return await OwnThread.run {
                var buffer = [UInt8](repeating: 0, count: 4_096)
                while true {
                    let left = deadline - ContinuousClock.now
                    guard left > .zero else { return false }
                    var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                    let milliseconds = Int32(left.components.seconds * 1_000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
                    guard poll(&poller, 1, milliseconds) > 0 else { continue }
                    let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                    if count == 0 { return true }
                    if count < 0, errno == ECONNRESET { return true }
                    if count < 0, errno != EAGAIN, errno != EWOULDBLOCK, errno != EINTR { return false }
                }
            }
        }
    }

    /// A request's head with its body's length, and the body, as bytes.
    static func request(_ method: String, _ path: String, bearer: String?, json: String) -> (head: [UInt8], body: [UInt8]) {
        let body = Array(json.utf8)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n"
        if let bearer { head += "Authorization: Bearer \(bearer)\r\n" }
        return (Array((head + "\r\n").utf8), body)
    }
}
