import ContractKit
import ContractRecording
import ContractRunner
import ContractStub
import Foundation
import JOSE
import ProcessKit
import Synchronization
import Testing

/// What `contract record` writes is judged the way its user would: the files load, they
/// verify unedited against the traffic they came from, the stub built from them answers the
/// same requests, and each value the traffic varied in is a matcher, not a copy.
@Suite struct RecordedSessionTests {
    static let user = "0b6c5a3e-2f1d-4a49-9c55-0f8e3c2d1a7b"
    static let note = "9e4f1a22-8a3b-4c1d-9e0f-1a2b3c4d5e6f"
    static let access = CompactJWS.serialize(
        header: Data(#"{"alg":"EdDSA","typ":"JWT"}"#.utf8), payload: Data(#"{"sub":"\#(user)","exp":4102444800}"#.utf8)
    ) { _ in Data(repeating: 7, count: 64) }
    static let refresh = "k3P9xQ2mZ7vB1nL5tR8wY4cF6hJ0dS2a"
    static let rotated = "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4"

    static func exchange(
        _ method: String, _ target: String, headers: [(name: String, value: String)] = [], json: String? = nil,
        status: Int, response: String? = nil, responseHeaders: [(name: String, value: String)] = []
    ) -> RecordedExchange {
        var requestHeaders = headers + [("User-Agent", "LoginClient/1.0"), ("Accept", "*/*")]
        if json != nil { requestHeaders.append(("Content-Type", "application/json")) }
        return RecordedExchange(
            request: ContractRequest(method: method, target: target, headers: requestHeaders, body: json.map { Data($0.utf8) }),
            response: ContractResponse(
                status: status,
                headers: [("Content-Type", "application/json"), ("Date", "Mon, 23 Nov 2026 10:00:00 GMT"), ("Content-Length", "99")]
                    + responseHeaders,
                body: Data((response ?? "").utf8)
            )
        )
    }

    /// A client's session: log in, read its account, write and read a note with the token,
    /// rotate the refresh token, log out; and a health check that shares nothing with it.
    static let traffic: [RecordedExchange] = [
        exchange("GET", "/health", status: 200, response: #"{"status":"ok"}"#),
        exchange(
            "POST", "/login", json: #"{"username":"alice","password":"correct horse"}"#, status: 200,
            response: #"{"access_token":"\#(access)","token_type":"Bearer","expires_in":900,"refresh_token":"\#(refresh)"}"#,
            responseHeaders: [("Cache-Control", "no-store")]
        ),
        exchange(
            "GET", "/me", headers: [("Authorization", "Bearer \(access)")], status: 200,
            response: #"{"user_id":"\#(user)","username":"alice","created_at":"2026-11-23T09:59:58Z"}"#
        ),
        exchange(
            "POST", "/notes", headers: [("Authorization", "Bearer \(access)")], json: #"{"title":"Groceries"}"#, status: 201,
            response: #"{"id":"\#(note)","title":"Groceries","owner":"\#(user)"}"#
        ),
        exchange(
            "GET", "/notes/\(note)", headers: [("Authorization", "Bearer \(access)")], status: 200,
            response: #"{"id":"\#(note)","title":"Groceries","owner":"\#(user)"}"#),
        exchange(
            "POST", "/token/refresh", json: #"{"refresh_token":"\#(refresh)"}"#, status: 200,
            response: #"{"access_token":"\#(access)","token_type":"Bearer","expires_in":900,"refresh_token":"\#(rotated)"}"#
        ),
        exchange("POST", "/logout", json: #"{"refresh_token":"\#(rotated)"}"#, status: 204),
    ]

    /// Answers each request with the recorded response of the first unused exchange whose
    /// method, target, body and recorded credentials it repeats exactly; anything else is a
    /// 599 saying what was sent, so a contract that changed a request fails to verify.
    final class Transcript: ContractTransport, Sendable {
        private let remaining: Mutex<[RecordedExchange]>

        init(_ exchanges: [RecordedExchange]) {
            remaining = Mutex(exchanges)
        }

        func send(_ request: ContractRequest) async throws -> ContractResponse {
            let found = remaining.withLock { remaining -> RecordedExchange? in
                guard let index = remaining.firstIndex(where: { Self.repeats(request, $0.request) }) else { return nil }
                return remaining.remove(at: index)
            }
            return found?.response
                ?? ContractResponse(
                    status: 599, headers: [],
                    body: Data("not recorded: \(request.method) \(request.target) \(request.header("Authorization") ?? "")".utf8))
        }

        static func repeats(_ sent: ContractRequest, _ recorded: ContractRequest) -> Bool {
            guard sent.method == recorded.method, sent.target == recorded.target,
                sent.header("Authorization") == recorded.header("Authorization")
            else { return false }
            switch (sent.body, recorded.body) {
            case (nil, nil): return true
            case (let a?, let b?): return (try? JSONValue(parsing: a)) == (try? JSONValue(parsing: b))
            default: return false
            }
        }
    }

    func recorded(keepSecrets: Bool = false) throws -> (output: ContractRecorder.Output, suite: ContractSuite, folder: TemporaryFolder) {
        let output = ContractRecorder.record(Self.traffic, keepSecrets: keepSecrets)
        let folder = try TemporaryFolder("recorded", files: Dictionary(uniqueKeysWithValues: output.files.map { ($0.name, $0.yaml) }))
        return (output, ContractLoader.load(directory: folder.path), folder)
    }

    @Test func theFilesVerifyUneditedAgainstTheTrafficAndTheStubAgrees() async throws {
        let (output, suite, folder) = try recorded()
        defer { folder.remove() }
        #expect(suite.diagnostics.isEmpty, "\(suite.diagnostics)")
        #expect(output.secrets.map(\.variable) == ["LOGIN_PASSWORD"])
        #expect(output.secrets.map(\.usedFor) == ["POST /login json password"])

        let verifier = ContractVerifier(
            live: Transcript(Self.traffic), stub: try ContractStub(contracts: suite.contracts), states: nil,
            environment: ["LOGIN_PASSWORD": "correct horse"]
        )
        let report = await verifier.verify(suite.contracts)
        #expect(report.results.count == Self.traffic.count)
        for result in report.results where !result.passed {
            Issue.record("\(result.interaction.name): \(result.checks.map { "\($0.name) \(String(describing: $0.result))" })")
        }
        // The secret is read from the environment, so without it the login cannot be sent.
        let withoutSecret = await ContractVerifier(live: Transcript(Self.traffic), states: nil, environment: [:]).verify(suite.contracts)
        #expect(withoutSecret.results.first { $0.interaction.request.path.text == "/login" }?.passed == false)
    }

    @Test func valuesThatVaryAreMatchersAndValuesSentBackAreSaved() throws {
        let (output, suite, folder) = try recorded()
        defer { folder.remove() }
        // The session is one file (its exchanges share saved values), named after its first
        // exchange; the health check shares nothing and is a file of its own.
        #expect(output.files.map(\.name) == ["health.yaml", "login.yaml"])
        #expect(output.files.map(\.interactions) == [1, 6])
        let session = try #require(suite.contracts.first { $0.name == "login (recorded)" })
        let (login, me, create, read, refresh, logout) = (
            session.interactions[0], session.interactions[1], session.interactions[2], session.interactions[3], session.interactions[4],
            session.interactions[5]
        )

        // Nothing recorded that changes from run to run is written down as a literal.
        for file in output.files {
            for value in [Self.access, Self.refresh, Self.rotated, "correct horse", "LoginClient/1.0", "Mon, 23 Nov 2026"] {
                #expect(!file.yaml.contains(value), "\(file.name) holds \(value)")
            }
        }
        guard case .json(let loginBody) = login.response.body, case .object(let tokens) = loginBody.kind else {
            Issue.record("the login's response has no JSON object")
            return
        }
        #expect(tokens["access_token"]?.kind == .jwt(claims: [:]))
        #expect(tokens["refresh_token"]?.kind == .string(minLength: Self.refresh.count, maxLength: nil))
        #expect(tokens["token_type"]?.kind == .literal("Bearer"))
        #expect(tokens["expires_in"] == Matcher(.integer(min: nil, max: nil), example: 900))
        #expect(
            login.response.headers.mapValues(\.kind).map { "\($0.key.lowercased()): \($0.value)" } == [
                "cache-control: \(Matcher.Kind.literal("no-store"))"
            ])

        // What later requests send back is saved where it came from and used by name.
        #expect(Set(login.save.keys) == ["access_token", "refresh_token"])
        #expect(me.request.headers.map(\.name) == ["Authorization"])
        #expect(me.request.headers.first?.value.kind == .literal("Bearer {{access_token}}"))
        guard case .json(let meBody) = me.response.body, case .object(let account) = meBody.kind else {
            Issue.record("/me has no JSON object")
            return
        }
        #expect(account["user_id"]?.kind == .uuid)
        #expect(account["created_at"]?.kind == .datetime)
        #expect(create.save.keys.contains("id"))
        #expect(read.request.path.text == "/notes/{{id}}")
        #expect(refresh.save.keys.contains { $0.hasPrefix("refresh_token") })
        guard case .json(let logoutBody) = logout.request.body, case .object(let sent) = logoutBody.kind else {
            Issue.record("the logout sends no JSON object")
            return
        }
        #expect(sent["refresh_token"]?.kind == .literal(.string("{{\(refresh.save.keys.first { $0.hasPrefix("refresh_token") } ?? "")}}")))
        #expect(logout.response.status == 204)
    }

    @Test func keptSecretsAreWrittenAsRecordedAndNoVariableIsAsked() throws {
        let (output, suite, folder) = try recorded(keepSecrets: true)
        defer { folder.remove() }
        #expect(output.secrets.isEmpty)
        let login = try #require(suite.contracts.first { $0.name == "login (recorded)" }?.interactions.first)
        guard case .json(let body) = login.request.body, case .object(let fields) = body.kind else {
            Issue.record("the login sends no JSON object")
            return
        }
        #expect(fields["password"]?.kind == .literal("correct horse"))
    }
}
