import AuthCore
import Testing

/// What a client may register as a redirect URI, and what `/authorize` then accepts.
@Suite struct RedirectURITests {
    @Test(arguments: [
        "https://app.example.com/callback", "https://app.example.com:8443/cb?tenant=1", "http://127.0.0.1/callback",
        "http://127.0.0.1:8080/callback", "http://[::1]/callback", "http://localhost:3000/callback", "com.example.app:/callback",
        "com.example.app:/oauth2redirect/example-provider",
    ])
    func registers(_ text: String) throws {
        #expect(try RedirectURI(registering: text).text == text)
    }

    @Test(arguments: [
        ("", "1 to 2048"), ("callback", "absolute"), ("https://app.example.com/cb#x", "fragment"),
        ("https://user:pw@app.example.com/cb", "user name"), ("http://app.example.com/cb", "loopback"),
        ("http://10.0.0.1/cb", "loopback"), ("javascript:alert(1)", "reverse-domain"), ("myapp:/cb", "reverse-domain"),
        ("data:text/html,x", "reverse-domain"), ("file:///etc/passwd", "reverse-domain"), ("https:///cb", "needs a host"),
    ])
    func refuses(_ text: String, _ reason: String) {
        #expect {
            try RedirectURI(registering: text)
        } throws: { error in
            "\(error)".contains(reason)
        }
    }

    @Test func refusesALongOne() {
        #expect(throws: AuthError.self) { try RedirectURI(registering: "https://app.example.com/" + String(repeating: "a", count: 2030)) }
    }

    @Test func matchesExactlyExceptALoopbackAddressesPort() throws {
        let web = try RedirectURI(registering: "https://app.example.com/callback")
        #expect(web.accepts("https://app.example.com/callback"))
        for other in [
            "https://app.example.com/callback/", "https://app.example.com/callback?x=1", "https://app.example.com:443/callback",
            "https://APP.example.com/callback", "https://app.example.com/Callback", "https://app.example.com.evil.example/callback",
            "https://app.example.com/callback#frag",
        ] {
            #expect(!web.accepts(other), "\(other)")
        }
        let loopback = try RedirectURI(registering: "http://127.0.0.1/callback")
        #expect(loopback.accepts("http://127.0.0.1:51004/callback"))
        #expect(loopback.accepts("http://127.0.0.1/callback"))
        for other in [
            "http://127.0.0.1:51004/callback/x", "http://127.0.0.2:51004/callback", "https://127.0.0.1:51004/callback",
            "http://127.0.0.1:51004/callback?x=1", "http://user@127.0.0.1:51004/callback", "http://127.0.0.1:51004/callback#x",
        ] {
            #expect(!loopback.accepts(other), "\(other)")
        }
        #expect(try RedirectURI(registering: "http://[::1]/cb").accepts("http://[::1]:9000/cb"))
        // A name is not an address: its port is part of the exact string.
        let named = try RedirectURI(registering: "http://localhost:3000/callback")
        #expect(named.accepts("http://localhost:3000/callback"))
        #expect(!named.accepts("http://localhost:3001/callback"))
    }
}
