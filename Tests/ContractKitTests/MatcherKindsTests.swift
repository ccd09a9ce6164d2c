import ContractKit
import ContractTestSupport
import Foundation
import Testing

/// Each kind of matcher is one unit: read, written back, sampled and checked the same way,
/// and a kind written outside the list works wherever a matcher goes.
@Suite struct MatcherKindsTests {
    /// One request that sends every kind, each with options other than its defaults.
    static let everyKind = """
        name: Every kind
        interactions:
          - name: options
            request: { method: POST, path: /setup }
            response: { status: 200, json: { secret: { match: string } } }
            save: { totp_secret: $.secret, creation: $.creation, request: $.request }
          - name: send
            request:
              method: POST
              path: /all
              json:
                string: { match: string, min_length: 2, max_length: 40 }
                integer: { match: integer, min: 1, max: 9, example: 3 }
                number: { match: number, min: 0.5 }
                boolean: { match: boolean }
                "null": { match: "null" }
                any: { match: any, optional: true }
                regex: { match: regex, pattern: "[0-9]+", example: "42" }
                uuid: { match: uuid }
                datetime: { match: datetime }
                jwt: { match: jwt, claims: { sub: { match: string } }, example: "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.c2ln" }
                jwks: { match: jwks, min: 1, example: { keys: [{ kty: RSA, kid: k1 }] } }
                each: { match: each, of: { match: integer }, min: 1, max: 3 }
                one_of: { match: one_of, of: [ok, { match: integer }] }
                totp: { match: totp, secret: "{{totp_secret}}", digits: 8 }
                registration: { match: webauthn_registration, options: "{{creation}}", origin: "https://example.com", authenticator: a, algorithm: EdDSA }
                assertion: { match: webauthn_assertion, options: "{{request}}", origin: "https://example.com", authenticator: a, user_verified: false }
                basic: { match: basic_auth, username: client, password: { match: string, min_length: 8 } }
                pkce: { match: pkce_s256, verifier: dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk }
                at_hash: { match: at_hash, example: Ro0ayxtUo87-ieV6NK0VMA }
                form_post: { match: form_post, action: "https://app.example/cb", fields: { code: { match: string, min_length: 2 }, iss: authd } }
            response: { status: 204 }
        """

    @Test func theNamesAreOneListAndEachNameIsReadAndWrittenBack() throws {
        #expect(Set(MatcherKinds.names).count == MatcherKinds.names.count)
        #expect(Matcher.names == MatcherKinds.names)
        let contract = try loadContract(Self.everyKind)
        let text = try ContractYAML.contract(name: contract.name, interactions: contract.interactions)
        // A kind added to the list and not to this contract fails here.
        for name in MatcherKinds.names {
            #expect(text.contains("match: \(name)") || text.contains("match: \"\(name)\""), "\(name) is not written")
        }
        let again = try loadContract(text)
        #expect(again.interactions.map(\.request) == contract.interactions.map(\.request))
    }

    @Test func eachKindsSamplesAndPactExamplesSatisfyIt() throws {
        let contract = try loadContract(Self.everyKind)
        guard case .json(let body) = contract.interactions[1].request.body, case .object(let members) = body.kind else {
            Issue.record("no body")
            return
        }
        // A code or a credential needs the values saved before it, and a run.
        for (name, matcher) in members where !["totp", "registration", "assertion"].contains(name) {
            let sample = try matcher.sampleValue()
            #expect(matcher.mismatches(in: sample).isEmpty, "\(name): \(sample)")
            #expect(matcher.mismatches(in: matcher.pactExample).isEmpty, "\(name): \(matcher.pactExample)")
            guard case .typed(let kind) = matcher.kind else { continue }
            #expect(kind.jsonSchema { _ in [:] }.isEmpty == (name == "any"), "\(name) has no schema")
        }
    }

    /// A kind outside the list: everything but reading it from YAML works.
    struct EvenMatcher: MatcherKind {
        static let names = ["even"]
        static func read(_ name: String, from arguments: inout some MatcherArguments) -> Self? { Self() }

        func mismatches(in actual: JSONValue, at path: String, strict: Bool) -> [Mismatch] {
            guard case .integer(let value) = actual else { return check(false, actual, at: path) }
            return check(value % 2 == 0, actual, at: path)
        }

        var summary: String { "an even integer" }
        var jsonType: String? { "integer" }
        func sample(at path: String, example: JSONValue?, with context: SampleContext) throws -> JSONValue { example ?? 2 }
        func jsonSchema(child: (Matcher) -> [String: JSONValue]) -> [String: JSONValue] { ["type": "integer", "multipleOf": 2] }

        func pact(_ pact: inout some PactRendering, at path: String, example: JSONValue?) -> JSONValue? {
            pact.addRules([PactMatchingRule.named("integer")], at: path)
            pact.note("\(path): Pact cannot check that it is even")
            return example ?? 2
        }
    }

    @Test func aKindOfItsOwnWorksWhereverAMatcherGoes() throws {
        let even = Matcher(.object(["n": Matcher(.typed(EvenMatcher()))]))
        #expect(even.mismatches(in: ["n": 4]).isEmpty)
        #expect(even.mismatches(in: ["n": 3]).map(\.description) == [#"$.n: expected an even integer, got integer 3"#])
        #expect(try even.sampleValue() == ["n": 2])
        #expect(even.specificity == 3)
        #expect(Matcher(.typed(EvenMatcher())).mismatches(inText: "8", at: "query n").count == 1)
        #expect(Matcher(.typed(EvenMatcher())) == Matcher(.typed(EvenMatcher())))
        #expect(Matcher(.typed(EvenMatcher())) != Matcher(.integer(min: nil, max: nil)))
        // Reading takes its line in the list.
        let (_, diagnostics) = ContractLoader.parse(
            yaml:
                "name: T\ninteractions:\n  - { name: a, request: { method: POST, path: /, json: { n: { match: even } } }, response: { status: 200 } }\n",
            file: "t.yaml")
        #expect(diagnostics.first?.message.hasPrefix("unknown matcher 'even' (expected one of: string, integer") == true, "\(diagnostics)")
    }
}
