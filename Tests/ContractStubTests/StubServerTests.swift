import ContractKit
import ContractStub
import ContractStubServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct StubServerTests {
    func login(_ base: URL, password: String) async throws -> (Int, JSONValue) {
        var request = URLRequest(url: base.appendingPathComponent("login"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: ["username": "alice", "password": password])
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, try JSONValue(parsing: data))
    }

    @Test func servesTheStubOnAnEphemeralPort() async throws {
        let stub = try ContractStub(contracts: [try loadContract(ContractStubTests.toy)])
        try await ContractStubServer.withRunning(stub) { base in
            #expect(base.host == "127.0.0.1")
            #expect(base.port != 0)
            let (status, body) = try await login(base, password: "secret")
            #expect(status == 200)
            #expect(body["token_type"] == .string("Bearer"))
            let (wrong, _) = try await login(base, password: "wrong")
            #expect(wrong == 401)
            let (unmatched, error) = try await login(base, password: "other")
            #expect(unmatched == 501)
            #expect(error["error"] == .string("not_stubbed"))
        }
        #expect(stub.requests.count == 3)
        #expect(stub.unmatched.count == 1)
    }

    /// An OpenID provider's discovery document names the address it was reached at: the
    /// `Host` a client sent is the request's, for a contract to match and save.
    @Test func theHostSentIsAHeaderOfTheRequest() async throws {
        let contract = """
            name: Discovery
            interactions:
              - name: the issuer is where the stub was reached
                request:
                  method: GET
                  path: /.well-known/openid-configuration
                  headers: { Host: { match: string, min_length: 1, example: "127.0.0.1:8080" } }
                response:
                  status: 200
                  json: { issuer: "http://{{host}}" }
                save:
                  host: request.headers.Host
            """
        let stub = try ContractStub(contracts: [try loadContract(contract)])
        try await ContractStubServer.withRunning(stub) { base in
            let (data, _) = try await URLSession.shared.data(from: base.appendingPathComponent(".well-known/openid-configuration"))
            let issuer = try JSONValue(parsing: data)["issuer"]
            #expect(issuer == .string("http://127.0.0.1:\(base.port ?? 0)"))
        }
    }

    @Test func twoServersRunSideBySide() async throws {
        let first = try ContractStub(contracts: [try loadContract(ContractStubTests.toy)])
        let second = try ContractStub(contracts: [try loadContract(ContractStubTests.toy)])
        try await ContractStubServer.withRunning(first) { firstURL in
            try await ContractStubServer.withRunning(second) { secondURL in
                #expect(firstURL != secondURL)
                _ = try await login(firstURL, password: "secret")
                _ = try await login(secondURL, password: "wrong")
                _ = try await login(secondURL, password: "wrong")
            }
        }
        #expect(first.requests.count == 1)
        #expect(second.requests.count == 2)
    }
}

/// A server stopped while connections arrive: those accepted but not yet taken up are
/// served or closed, not dropped with their writers unfinished (which NIO traps on, ending
/// the test process).
@Suite struct StubServerShutdownTests {
    @Test func aServerStoppedWhileConnectionsArriveEndsCleanly() async throws {
        let stub = try ContractStub(contracts: [try loadContract(ContractStubTests.toy)])
        for _ in 0..<40 {
            let sockets = try await ContractStubServer.withRunning(stub) { base in
                let port = try #require(base.port)
                return (0..<30).compactMap { _ in Self.connect(port: port) }
            }
            #expect(!sockets.isEmpty)
            for socket in sockets { close(socket) }
        }
    }

    /// A TCP connection to 127.0.0.1:`port`, open until closed.
    static func connect(port: Int) -> Int32? {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(socket)
            return nil
        }
        return socket
    }
}
