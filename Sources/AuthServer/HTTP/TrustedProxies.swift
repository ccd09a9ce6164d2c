import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The proxies whose `X-Forwarded-For` is believed (`authd serve --trusted-proxy CIDR`).
///
/// A request from any other peer has the socket peer as its client address. From a trusted
/// peer, the header is read right to left and the first address that is not itself a
/// trusted proxy is the client (the leftmost one when every hop is trusted).
///
/// ```swift
/// let proxies = try TrustedProxies(["10.0.0.0/8", "::1/128"])
/// proxies.clientAddress(peer: "10.0.0.2", forwardedFor: "203.0.113.9, 10.0.0.7")   // "203.0.113.9"
/// proxies.clientAddress(peer: "198.51.100.4", forwardedFor: "203.0.113.9")          // "198.51.100.4"
/// ```
public struct TrustedProxies: Sendable, Equatable {
    /// One network: address bytes (4 or 16) and prefix length.
    struct Network: Sendable, Equatable {
        let bytes: [UInt8]
        let prefix: Int

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var remaining = prefix
            for (a, b) in zip(address, bytes) where remaining > 0 {
                let bits = min(8, remaining)
                let mask: UInt8 = bits == 8 ? 0xFF : ~(0xFF >> UInt8(bits))
                if a & mask != b & mask { return false }
                remaining -= bits
            }
            return true
        }
    }

    /// A CIDR that does not parse.
    public struct InvalidCIDR: Error, CustomStringConvertible {
        /// The text given.
        public let text: String
        /// Why it was refused.
        public var description: String { "'\(text)' is not an IP address or CIDR network (e.g. 10.0.0.0/8, fd00::/8)" }
    }

    let networks: [Network]

    /// No trusted proxy: the socket peer is always the client.
    public static let none = TrustedProxies(networks: [])

    private init(networks: [Network]) {
        self.networks = networks
    }

    /// Parses CIDRs (`10.0.0.0/8`, `fd00::/8`) or single addresses (`127.0.0.1`).
    /// - Throws: ``InvalidCIDR``.
    public init(_ cidrs: [String]) throws {
        networks = try cidrs.map { text in
            let parts = text.split(separator: "/", maxSplits: 1).map(String.init)
            guard let first = parts.first, let bytes = Self.parse(first) else { throw InvalidCIDR(text: text) }
            let width = bytes.count * 8
            let prefix = parts.count == 2 ? Int(parts[1]) : width
            guard let prefix, (0...width).contains(prefix) else { throw InvalidCIDR(text: text) }
            return Network(bytes: bytes, prefix: prefix)
        }
    }

    /// Whether `address` belongs to a trusted proxy.
    public func contains(_ address: String) -> Bool {
        guard let bytes = Self.parse(address) else { return false }
        return networks.contains { $0.contains(bytes) }
    }

    /// The client's address for a request from `peer` carrying `forwardedFor`.
    public func clientAddress(peer: String?, forwardedFor: String?) -> String? {
        guard let peer, contains(peer), let forwardedFor else { return peer }
        let hops = forwardedFor.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        var client: String?
        for hop in hops.reversed() {
            guard Self.parse(hop) != nil else { break }
            client = hop
            if !contains(hop) { break }
        }
        return client ?? peer
    }

    /// The 4 or 16 bytes of an IP address; an IPv4-mapped IPv6 address gives its 4 bytes.
    static func parse(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            let bytes = withUnsafeBytes(of: &v6) { Array($0) }
            if bytes.prefix(12) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] { return Array(bytes.suffix(4)) }
            return bytes
        }
        return nil
    }
}
