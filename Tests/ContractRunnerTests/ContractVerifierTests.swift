import ContractKit
import ContractRunner
import ContractStub
import ContractTestSupport
import Foundation
import Hummingbird
import NIOCore
import ProcessKit
import Synchronization
import Testing

@Suite struct ContractVerifierTests {
    static let contract = ToyProvider.contract

    func contract(_ yaml: String = contract) throws -> Contract {
        try loadContract(yaml)
    }

    @Test func passesWhenTheProviderKeepsTheContract() async throws {
        let contract = try contract()
        let report = try await ToyProvider.withRunning { url in
            await ContractVerifier(live: HTTPTransport(baseURL: url), states: nil).verify([contract])
        }
        #expect(report.results.map(\.outcome) == [.passed, .passed, .passed])
        #expect(report.succeeded)
        #expect(TextReport.render(report, color: false).hasSuffix("3 passed, 0 failed"))
    }

    @Test func reportsEachDifferenceWhenTheProviderChanges() async throws {
        let contract = try contract()
        let report = try await ToyProvider.withRunning(tokenType: "bearer") { url in
            await ContractVerifier(live: HTTPTransport(baseURL: url), states: nil).verify([contract])
        }
        #expect(report.results[0].outcome == .failed([Mismatch(path: "$.token_type", expected: #""Bearer""#, actual: #"string "bearer""#)]))
        #expect(report.results[1].outcome == .passed)
        #expect(!report.succeeded)
        let text = TextReport.render(report, color: false)
        #expect(text.contains("✗ login gives a token  [live ✗]  (toy.yaml:3)"))
        #expect(text.contains("  ✓ the token opens /me  [live ✓]\n"))
        #expect(text.contains("\n3 interactions: live 2/3, stub not run, agreement not run\n2 passed, 1 failed"))
        #expect(text.contains("- expected: \"Bearer\""))
        #expect(text.contains("+ actual:   string \"bearer\""))
        #expect(text.hasSuffix("2 passed, 1 failed"))
        #expect(!text.contains("\u{1B}["))
        #expect(TextReport.render(report, color: true).contains("\u{1B}[31m"))

        let junit = JUnitReport.render(report)
        #expect(junit.contains(#"<testsuites name="contract verify" tests="3" failures="1""#))
        #expect(junit.contains(#"<failure message="$.token_type: expected &quot;Bearer&quot;, got string &quot;bearer&quot;">"#))
        #expect(junit.contains(#"<property name="live" value="failed"/>"#))
        #expect(junit.contains(#"<property name="checks" value="3 interactions: live 2/3, stub not run, agreement not run"/>"#))
        let json = try JSONValue(parsing: Data(JSONReport.render(report).utf8))
        #expect(json["passed"] == .integer(2))
        #expect(json["failed"] == .integer(1))
        #expect(json["checks"] == .object(["live": .object(["held": .integer(2), "of": .integer(3)])]))
        guard case .array(let results)? = json["results"] else {
            Issue.record("no results in the JSON report")
            return
        }
        #expect(results[0]["live"] == .string("failed"))
        #expect(results[0]["stub"] == .null)
    }

    @Test func statusHeaderAndMissingSaveAreAllReported() async throws {
        let yaml = """
            name: Wrong
            interactions:
              - name: expects too much
                request: { method: POST, path: /login, json: { password: nope } }
                response:
                  status: 200
                  headers: { X-Missing: yes }
                  json: { access_token: { match: string } }
                save: { token: $.access_token }
            """
        let contract = try contract(yaml)
        let report = try await ToyProvider.withRunning { url in
            await ContractVerifier(live: HTTPTransport(baseURL: url), states: nil).verify([contract])
        }
        guard case .failed(let mismatches) = report.results[0].outcome else {
            Issue.record("expected a failure")
            return
        }
        #expect(mismatches.map(\.path) == ["status", "header x-missing", "$.access_token", "$.access_token"])
    }

    @Test func anUnreachableProviderIsAnErrorNotACrash() async throws {
        let contract = try contract()
        let report = await ContractVerifier(live: HTTPTransport(baseURL: "http://127.0.0.1:9"), states: nil).verify([contract])
        let messages = report.results.map { result -> String in
            if case .error(let message) = result.outcome { return message }
            return "not an error"
        }
        #expect(messages.count == 3)
        #expect(messages[0].hasPrefix("the provider did not answer"))
        // Nothing was saved, so the next request cannot be made.
        #expect(messages[1] == "undefined variable 'token': an earlier interaction did not save it")
        #expect(messages[2].hasPrefix("the provider did not answer"))
    }

    @Test func filtersByName() async throws {
        let contract = try contract()
        let report = try await ToyProvider.withRunning { url in
            await ContractVerifier(live: HTTPTransport(baseURL: url), states: nil).verify([contract], filter: "WRONG PASSWORD")
        }
        #expect(report.results.map(\.interaction.name) == ["a wrong password is refused"])
    }

    @Test func filtersByProviderState() async throws {
        let contract = try loadContract(
            """
            name: States
            interactions:
              - name: as alice
                given: [{ state: user exists, params: { username: alice } }]
                request: { method: GET, path: /a }
                response: { status: 200 }
              - name: as nobody
                request: { method: GET, path: /b }
                response: { status: 404 }
              - name: disabled
                given: [user is disabled]
                request: { method: GET, path: /c }
                response: { status: 401 }
            """)
        let verifier = ContractVerifier(live: nil, stub: try ContractStub(contracts: [contract]), states: nil, concurrency: 1)
        #expect(await verifier.verify([contract], state: "USER EXISTS").results.map(\.interaction.name) == ["as alice"])
        #expect(await verifier.verify([contract], state: "user is disabled").results.map(\.interaction.name) == ["disabled"])
        #expect(await verifier.verify([contract], filter: "as", state: "user exists").results.map(\.interaction.name) == ["as alice"])
        #expect(await verifier.verify([contract], state: "no such state").results.isEmpty)
    }

    @Test func setsUpStatesWithShellQuotedParameters() async throws {
        let temporary = try TemporaryFolder("states")
        defer { temporary.remove() }
        let folder = temporary.url
        let states = ProviderStates(
            setups: [
                "user exists": .command(
                    Template("printf %s {{username}} > \(folder.path)/name; cat > \(folder.path)/stdin"), stdin: Template("{{password}}"))
            ],
            variables: [:]
        )
        try await states.setUp(
            ProviderStateUse(state: "user exists", params: ["username": .string("o'brien; rm -rf /"), "password": .string("p w")]))
        #expect(try String(contentsOfFile: folder.path + "/name", encoding: .utf8) == "o'brien; rm -rf /")
        #expect(try String(contentsOfFile: folder.path + "/stdin", encoding: .utf8) == "p w")

        let failing = ProviderStates(setups: ["broken": .command(Template("echo nope >&2; exit 3"), stdin: nil)], variables: [:])
        await #expect {
            try await failing.setUp(ProviderStateUse(state: "broken", params: [:]))
        } throws: { error in
            "\(error)".contains("exit 3") && "\(error)".contains("nope")
        }
    }
}

@Suite struct AgreementTests {
    /// Lenient on purpose: says nothing of access_token and expires_in, which the toy sends.
    static let lenient = """
        name: Lenient
        interactions:
          - name: login gives a bearer token
            request:
              method: POST
              path: /login
              json: { username: alice, password: secret }
            response:
              status: 200
              json: { token_type: Bearer }
        """

    func contract(_ yaml: String) throws -> Contract {
        try loadContract(yaml, file: "agreement.yaml")
    }

    @Test func aFieldTheContractLeavesOutIsCaughtByFullAgreement() async throws {
        let contract = try contract(Self.lenient)
        let stub = try ContractStub(contracts: [contract])
        let (full, declared) = try await ToyProvider.withRunning { url in
            let full = await ContractVerifier(live: HTTPTransport(baseURL: url), stub: stub, states: nil).verify([contract])
            let declared = await ContractVerifier(live: HTTPTransport(baseURL: url), stub: stub, states: nil, agreement: .declared).verify([
                contract
            ])
            return (full, declared)
        }
        // Both sides keep the contract, but they do not look alike.
        #expect(
            full.results[0].outcome
                == .failed([
                    Mismatch(path: "agreement $.access_token", expected: "present (live)", actual: "missing (stub)"),
                    Mismatch(path: "agreement $.expires_in", expected: "present (live)", actual: "missing (stub)"),
                ]))
        #expect(full.results[0].stubResponse?.status == 200)
        #expect(declared.succeeded)
        let text = TextReport.render(full, color: false)
        #expect(text.contains("agreement $.access_token\n        - expected: present (live)\n        + actual:   missing (stub)"))
    }

    @Test func typesMustAgreeToo() {
        let spec = ResponseSpec(status: 200)
        let live = ContractResponse(status: 200, headers: [], body: Data(#"{"n": 1, "list": [{"a": "x"}], "obj": {"k": true}}"#.utf8))
        let stub = ContractResponse(
            status: 201, headers: [], body: Data(#"{"n": 1.5, "list": [{"a": 2}], "obj": {"k": true, "extra": null}}"#.utf8))
        #expect(
            Agreement.compare(live: live, stub: stub, spec: spec, mode: .full).map(\.description) == [
                "status: expected 200 (live), got 201 (stub)",
                "$.list[0].a: expected string (live), got number (stub)",
                "$.obj.extra: expected missing (live), got present (stub)",
            ])
        #expect(Agreement.compare(live: live, stub: stub, spec: spec, mode: .declared).map(\.path) == ["status"])
    }

    @Test func stubOnlyChecksTheStubAgainstItsContracts() async throws {
        let contract = try contract(ContractVerifierTests.contract)
        let report = await ContractVerifier(live: nil, stub: try ContractStub(contracts: [contract]), states: nil).verify([contract])
        #expect(report.results.map(\.outcome) == [.passed, .passed, .passed])
    }

    @Test func liveAndStubAgreeOnAStrictContract() async throws {
        let contract = try contract(ContractVerifierTests.contract)
        let stub = try ContractStub(contracts: [contract])
        let report = try await ToyProvider.withRunning { url in
            await ContractVerifier(live: HTTPTransport(baseURL: url), stub: stub, states: nil).verify([contract])
        }
        #expect(report.results.map(\.outcome) == [.passed, .passed, .passed])
        #expect(stub.requests.count == 3)
    }
}

/// The verifier with request matchers, against a provider and its stub at once.
@Suite struct RequestMatcherVerificationTests {
    @Test func examplesAndGeneratedValuesVerifyLiveAndStubAlike() async throws {
        let contract = try loadContract(NotesProvider.contract, file: "notes.yaml")
        let report = try await NotesProvider.withRunning { url in
            await ContractVerifier(live: HTTPTransport(baseURL: url), stub: try ContractStub(contracts: [contract]), states: nil).verify([
                contract
            ])
        }
        #expect(report.succeeded, "\(TextReport.render(report, color: false))")
        #expect(report.results.count == 6)
        // The title was the matcher's example; the unknown note's id a generated UUID.
        #expect(report.results[1].request?.body.flatMap { try? JSONValue(parsing: $0) } == .object(["title": .string("Groceries")]))
        let unknown = try #require(report.results[3].request?.target)
        #expect(UUID(uuidString: String(unknown.dropFirst("/notes/".count))) != nil)
    }

    @Test func anEnvironmentValueFillsARequestAndItsAbsenceIsNamed() async throws {
        let yaml = """
            name: Env
            interactions:
              - name: login with a password from the environment
                request: { method: POST, path: /login, json: { username: alice, password: "{{env.NOTES_PASSWORD}}" } }
                response: { status: 200 }
            """
        let contract = try loadContract(yaml, file: "env.yaml")
        let (set, unset) = try await NotesProvider.withRunning { url in
            (
                await ContractVerifier(live: HTTPTransport(baseURL: url), states: nil, environment: ["NOTES_PASSWORD": "secret"]).verify([
                    contract
                ]),
                await ContractVerifier(live: HTTPTransport(baseURL: url), states: nil, environment: [:]).verify([contract])
            )
        }
        #expect(set.succeeded)
        guard case .error(let error)? = unset.results.first?.live else {
            Issue.record("expected an error without the variable")
            return
        }
        #expect(error.description == "undefined variable 'env.NOTES_PASSWORD': set NOTES_PASSWORD in the environment")
    }
}
