import ContractKit
import ContractRunner
import ContractTestSupport
import Foundation
import Testing

/// What a contract for any provider needs (the conformance pack's): a path that is a saved
/// URL (an endpoint a discovery document named), a status a standard leaves open, and the
/// values a state's set-up answers (a code from the provider's own sign-in).
@Suite struct ProviderAgnosticTests {
    static let contract = """
        name: Any provider
        interactions:
          - name: the set-up answers where to go and who signs in
            given:
              - state: the provider is found
                params: { base: "{{env.TOY_URL}}" }
                saves: [login, me, username]
            request:
              method: POST
              path: "{{login}}"
              json: { username: "{{username}}", password: secret }
            response:
              status: 200
              json: { access_token: { match: string } }
            save: { token: $.access_token }
          - name: a status of the ones a standard allows
            request: { method: GET, path: "{{me}}" }
            response: { status: [403, 401] }
          - name: the token is taken at the saved URL
            request:
              method: GET
              path: "{{me}}"
              headers: { Authorization: "Bearer {{token}}" }
            response:
              status: 200
              json: { username: alice }
        """

    static let states = ProviderStates(
        setups: [
            "the provider is found": .command(
                Template(#"printf '{"login": "%s/login", "me": "%s/me", "username": "alice", "unused": 1}' {{base}} {{base}}"#), stdin: nil)
        ],
        variables: [:]
    )

    @Test func theSavedURLsStatusesAndSetUpValuesAreUsedLive() async throws {
        let contract = try loadContract(Self.contract)
        let report = try await ToyProvider.withRunning { url in
            await ContractVerifier(live: HTTPTransport(baseURL: "http://127.0.0.1:9"), states: Self.states, environment: ["TOY_URL": url])
                .verify([contract])
        }
        // The live base URL is a closed port: every request went to the URLs the set-up gave.
        #expect(report.results.map(\.outcome) == [.passed, .passed, .passed], "\(TextReport.render(report, color: false))")
        #expect(report.results[1].response?.status == 401)
        #expect(report.results[0].request?.target.hasSuffix("/login") == true)
    }

    @Test func aStatusOutsideTheListFailsNamingThem() throws {
        let contract = try loadContract(Self.contract)
        let mismatches = contract.interactions[1].response.mismatches(in: ContractResponse(status: 200, headers: [], body: Data()))
        #expect(mismatches == [Mismatch(path: "status", expected: "403 or 401", actual: "200")])
    }

    @Test func aSetUpWithoutAValueItSavesFailsSayingWhich() async throws {
        let states = ProviderStates(
            setups: ["the provider is found": .command(Template(#"echo '{"login": "x"}'"#), stdin: nil)], variables: [:])
        await #expect {
            try await states.setUp(ProviderStateUse(state: "the provider is found", params: [:], saves: ["login", "me"]))
        } throws: { "\($0)".contains("its answer has no 'me'") }
        let noisy = ProviderStates(setups: ["the provider is found": .command(Template("echo signed in"), stdin: nil)], variables: [:])
        await #expect {
            try await noisy.setUp(ProviderStateUse(state: "the provider is found", params: [:], saves: ["login"]))
        } throws: { "\($0)".contains("not a JSON object of login") }
    }

    @Test func aSavedValueWrittenWithAMatcherIsChecked() async throws {
        let yaml = """
            name: T
            interactions:
              - name: a redirect back carries the issuer
                given:
                  - state: the provider is found
                    saves: { login: { match: regex, pattern: "https?://.+" }, username: "{{env.WHO}}" }
                request: { method: GET, path: "{{login}}" }
                response: { status: 200 }
            """
        let contract = try loadContract(yaml)
        let use = try #require(contract.interactions[0].given.first)
        #expect(use.saves == ["login", "username"])
        // Written back as a mapping, read again the same.
        let written = try ContractYAML.contract(name: contract.name, interactions: contract.interactions)
        #expect(try loadContract(written).interactions[0].given == [use])
        let states = ProviderStates(
            setups: ["the provider is found": .command(Template(#"echo '{"login": "http://a/login", "username": "alice"}'"#), stdin: nil)],
            variables: [:])
        let saved = try await states.setUp(use.resolved(with: ["env.WHO": "alice"]))
        #expect(saved == ["login": "http://a/login", "username": "alice"])
        await #expect {
            try await states.setUp(use.resolved(with: ["env.WHO": "bob"]))
        } throws: { "\($0)".contains(#"its answer's username: expected "bob", got string "alice""#) }
        // A name it checks is still one the interaction may use, and a variable it uses must be known.
        let (_, diagnostics) = ContractLoader.parse(
            yaml: yaml.replacingOccurrences(of: "{{env.WHO}}", with: "{{nobody}}"), file: "t.yaml")
        #expect(diagnostics.map(\.message) == ["undefined variable 'nobody' (no variable is saved before this interaction)"])
    }

    @Test func theFormatReadsAndWritesThemBack() throws {
        let contract = try loadContract(Self.contract)
        #expect(contract.interactions[0].given.first?.saves == ["login", "me", "username"])
        #expect(contract.interactions[1].response.statuses == [403, 401])
        #expect(contract.interactions[0].request.path.savedURL == "login")
        let written = try ContractYAML.contract(name: contract.name, interactions: contract.interactions)
        let again = try loadContract(written).interactions
        #expect(again.map(\.request) == contract.interactions.map(\.request))
        #expect(again.map(\.response) == contract.interactions.map(\.response))
        #expect(again.map(\.given) == contract.interactions.map(\.given))
        // A path is a '/' path or one saved URL; a status list holds codes.
        for (yaml, message) in [
            ("path: login", "path must start with '/', or be one saved URL"),
            ("path: \"{{a}}/x\"", "path must start with '/', or be one saved URL"),
        ] {
            let (_, diagnostics) = ContractLoader.parse(
                yaml: "name: T\ninteractions:\n  - { name: a, request: { method: GET, \(yaml) }, response: { status: 200 } }\n",
                file: "t.yaml")
            #expect(diagnostics.first?.message.hasPrefix(message) == true, "\(diagnostics)")
        }
        let (_, diagnostics) = ContractLoader.parse(
            yaml: "name: T\ninteractions:\n  - { name: a, request: { method: GET, path: / }, response: { status: [303, 99] } }\n",
            file: "t.yaml")
        #expect(diagnostics.map(\.message) == ["status must be from 100 to 599"])
    }
}
