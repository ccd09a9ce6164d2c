import AuthServer
import Testing

@Suite struct TrustedProxiesTests {
    @Test func onlyTrustedPeersAreBelieved() throws {
        let proxies = try TrustedProxies(["10.0.0.0/8", "fd00::/8", "192.0.2.1"])
        #expect(proxies.clientAddress(peer: "10.1.2.3", forwardedFor: "203.0.113.9") == "203.0.113.9")
        #expect(proxies.clientAddress(peer: "198.51.100.4", forwardedFor: "203.0.113.9") == "198.51.100.4")
        #expect(proxies.clientAddress(peer: "192.0.2.1", forwardedFor: "203.0.113.9") == "203.0.113.9")
        #expect(proxies.clientAddress(peer: "192.0.2.2", forwardedFor: "203.0.113.9") == "192.0.2.2")
        #expect(proxies.clientAddress(peer: "fd12::1", forwardedFor: "2001:db8::7") == "2001:db8::7")
        #expect(proxies.clientAddress(peer: "::ffff:10.0.0.1", forwardedFor: "203.0.113.9") == "203.0.113.9")
        #expect(proxies.clientAddress(peer: "10.0.0.1", forwardedFor: nil) == "10.0.0.1")
    }

    @Test func theHeaderIsReadRightToLeftPastTrustedHops() throws {
        let proxies = try TrustedProxies(["10.0.0.0/8"])
        // A client can write anything on the left; the first untrusted hop from the right counts.
        #expect(proxies.clientAddress(peer: "10.0.0.2", forwardedFor: "1.1.1.1, 203.0.113.9, 10.0.0.7") == "203.0.113.9")
        #expect(proxies.clientAddress(peer: "10.0.0.2", forwardedFor: "10.0.0.8, 10.0.0.7") == "10.0.0.8")
        #expect(proxies.clientAddress(peer: "10.0.0.2", forwardedFor: "garbage") == "10.0.0.2")
        #expect(proxies.clientAddress(peer: "10.0.0.2", forwardedFor: "203.0.113.9, garbage") == "10.0.0.2")
    }

    @Test(arguments: ["10.0.0.0/33", "fd00::/129", "not-an-ip", "10.0.0.0/x", "", "10.0.0/8"])
    func badNetworksAreRefused(text: String) {
        #expect(throws: TrustedProxies.InvalidCIDR.self) { try TrustedProxies([text]) }
    }

    @Test func noneTrustsNobody() {
        #expect(TrustedProxies.none.clientAddress(peer: "127.0.0.1", forwardedFor: "203.0.113.9") == "127.0.0.1")
    }
}
