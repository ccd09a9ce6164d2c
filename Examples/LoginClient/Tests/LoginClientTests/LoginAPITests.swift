import ContractStub
import ContractStubServer
import Foundation
import LoginClient
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// authd's contracts, which CI proves authd keeps.
let authdContracts = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("contracts").path


/// Through URLProtocol: no sockets at all.
@Suite struct LoginAPIURLProtocolTests {
    let stub: ContractStub
    let api: LoginAPI

    init() throws {
        stub = try ContractStub(directory: authdContracts)
        // Any host: the stub's session never leaves the process.
        api = LoginAPI(baseURL: try #require(URL(string: "https://auth.example")), session: stub.urlSession)
    }

    @Test func logsIn() async throws {
        let session = try await api.login(username: "alice", password: "correct horse battery staple")
        #expect(session.expiresIn == 900)
        #expect(session.accessToken.split(separator: ".").count == 3)
        #expect(stub.unmatched.isEmpty)
        #expect(stub.requests.first?.target == "/login")
    }

    @Test func reportsAWrongPassword() async throws {
        await #expect(throws: LoginError.invalidCredentials) {
            try await api.login(username: "alice", password: "wrong password")
        }
    }

    @Test func reportsADisabledAccount() async throws {
        await #expect(throws: LoginError.accountDisabled) {
            try await api.login(username: "bob", password: "correct horse battery staple")
        }
    }

    @Test func aRequestNoContractCoversIsAFailureTheTestCanSee() async throws {
        await #expect(throws: LoginError.unexpectedStatus(501)) {
            try await api.login(username: "carol", password: "never written in a contract")
        }
        #expect(stub.unmatched.count == 1)
    }

    @Test func copesWithAMalformedServerAnswer() async throws {
        let fixtures = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        let malformed = try ContractStub(directory: fixtures.appendingPathComponent("malformed").path)
        let api = LoginAPI(baseURL: try #require(URL(string: "https://auth.example")), session: malformed.urlSession)
        await #expect(throws: LoginError.malformedResponse) {
            try await api.login(username: "alice", password: "correct horse battery staple")
        }
    }
}

/// Through a local HTTP server on an ephemeral port, for clients that do not use URLSession
/// (here the same client, to show both ways).
@Suite struct LoginAPILocalServerTests {
    @Test func logsInAndFailsLikeAuthd() async throws {
        let stub = try ContractStub(directory: authdContracts)
        try await ContractStubServer.withRunning(stub) { url in
            let api = LoginAPI(baseURL: url)
            let session = try await api.login(username: "alice", password: "correct horse battery staple")
            #expect(session.refreshToken.count == 43)
            await #expect(throws: LoginError.invalidCredentials) {
                try await api.login(username: "alice", password: "wrong password")
            }
        }
        #expect(stub.requests.count == 2)
    }

    @Test func copesWithAMalformedServerAnswer() async throws {
        let fixtures = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        let stub = try ContractStub(directory: fixtures.appendingPathComponent("malformed").path)
        try await ContractStubServer.withRunning(stub) { url in
            await #expect(throws: LoginError.malformedResponse) {
                try await LoginAPI(baseURL: url).login(username: "alice", password: "correct horse battery staple")
            }
        }
    }
}
