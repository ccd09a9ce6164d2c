import ContractKit
import ContractRunner
import Foundation
import Synchronization
import Testing

/// The jar a sequence keeps (RFC 6265 §5.3, with 6265bis's prefixes and secure contexts).
@Suite struct CookieJarTests {
    func answer(_ cookies: String...) -> ContractResponse {
        ContractResponse(status: 200, headers: cookies.map { (name: "Set-Cookie", value: $0) }, body: Data())
    }

    let site = URL(string: "http://127.0.0.1:8080/authorize")!

    @Test func aCookieGoesBackToItsHostAndPath() {
        var jar = CookieJar()
        jar.store(from: answer("a=1; Path=/", "b=2; Path=/authorize", "c=3"), for: site)
        // Longer paths first; `c` has the default path of /authorize: "/".
        #expect(jar.header(for: URL(string: "http://127.0.0.1:8080/authorize/sign-in")!) == "b=2; a=1; c=3")
        #expect(jar.header(for: URL(string: "http://127.0.0.1:8080/other")!) == "a=1; c=3")
        #expect(jar.header(for: URL(string: "http://127.0.0.1:8080/authorizeX")!) == "a=1; c=3")
        // Host-only: another host gets none.
        #expect(jar.header(for: URL(string: "http://localhost:8080/authorize")!) == nil)
        // The same name, domain and path replaces.
        jar.store(from: answer("a=9; Path=/"), for: site)
        #expect(jar.header(for: URL(string: "http://127.0.0.1:8080/x")!) == "a=9; c=3")
    }

    @Test func prefixesAndSecureContextsAreKept() {
        var jar = CookieJar()
        let plain = URL(string: "http://auth.example/")!
        jar.store(from: answer("__Host-a=1; Path=/; Secure", "__Host-b=1; Path=/x; Secure", "__Host-c=1; Path=/"), for: site)
        jar.store(from: answer("__Host-d=1; Path=/; Secure; Domain=127.0.0.1", "__Secure-e=1", "__Secure-f=1; Secure"), for: site)
        #expect(jar.names == ["__Host-a", "__Secure-f"])
        // A Secure cookie is not set from, nor sent to, plain http on a host that is not loopback.
        var other = CookieJar()
        other.store(from: answer("s=1; Secure", "t=1"), for: plain)
        #expect(other.names == ["t"])
        jar.store(from: answer("g=1; Path=/"), for: site)
        #expect(jar.header(for: URL(string: "https://127.0.0.1:8080/")!) == "__Host-a=1; __Secure-f=1; g=1")
    }

    @Test func maxAgeAndExpiresEndACookie() {
        let now = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        var jar = CookieJar(now: { now.withLock { $0 } })
        jar.store(from: answer("a=1; Max-Age=60", "b=1; Expires=Sun, 06 Nov 1994 08:49:37 GMT", "c=1"), for: site)
        #expect(jar.names == ["a", "c"])
        now.withLock { $0 += 61 }
        #expect(jar.names == ["c"])
        jar.store(from: answer("c=; Max-Age=0"), for: site)
        #expect(jar.names.isEmpty && jar.header(for: site) == nil)
    }

    @Test func aDomainCookieGoesToSubdomainsOfItsOwnDomainOnly() {
        var jar = CookieJar()
        jar.store(from: answer("a=1; Domain=example.com", "b=1; Domain=other.com"), for: URL(string: "https://auth.example.com/")!)
        #expect(jar.names == ["a"])
        #expect(jar.header(for: URL(string: "https://app.example.com/")!) == "a=1")
        #expect(jar.header(for: URL(string: "https://example.com.evil/")!) == nil)
    }
}
