/// A host and port to listen on, written `HOST:PORT` (`[::1]:9090` for IPv6).
///
/// ```swift
/// let address = try ListenAddress(parsing: "127.0.0.1:9090")   // host "127.0.0.1", port 9090
/// ```
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    /// `HOST:PORT` could not be read.
    public struct ParseError: Error, CustomStringConvertible {
        /// What is wrong.
        public let description: String
    }

    /// The host or address.
    public var host: String
    /// The port; 0 picks a free one.
    public var port: Int

    /// Creates an address.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Reads `HOST:PORT` or `[IPv6]:PORT`.
    public init(parsing text: String) throws {
        guard let colon = text.lastIndex(of: ":") else {
            throw ParseError(description: "'\(text)' is not HOST:PORT")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            throw ParseError(description: "'\(text)' is not HOST:PORT with a port between 0 and 65535")
        }
        self.init(host: host, port: port)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
