import ContractEvolution
import ContractKit
import Testing

/// `{ match: one_of, of: [...] }` and `optional: true` on a key: reading, matching, sampling,
/// writing back, breadth and what `contract diff` calls them.
@Suite struct OneOfOptionalTests {
    static func matcher(_ json: String) throws -> Matcher {
        let yaml =
            "name: M\ninteractions:\n  - name: m\n    request: { method: GET, path: /m }\n    response: { status: 200, json: \(json) }\n"
        let (contract, problems) = ContractLoader.parse(yaml: yaml, file: "m.yaml")
        #expect(problems == [])
        guard case .json(let matcher)? = contract?.interactions.first?.response.body else { throw ContractDiagnosticError() }
        return matcher
    }

    struct ContractDiagnosticError: Error {}

    static func problems(_ json: String) -> [String] {
        let yaml =
            "name: M\ninteractions:\n  - name: m\n    request: { method: GET, path: /m }\n    response: { status: 200, json: \(json) }\n"
        return ContractLoader.parse(yaml: yaml, file: "m.yaml").1.map(\.message)
    }

    @Test func oneOfTakesAnyAlternativeAndNamesTheClosestWhenNoneFits() throws {
        let matcher = try Self.matcher("{ nickname: { match: one_of, of: [{ match: string, min_length: 2 }, null] } }")
        #expect(matcher.mismatches(in: ["nickname": "al"]).isEmpty)
        #expect(matcher.mismatches(in: ["nickname": .null]).isEmpty)
        // One alternative of the value's type: its own reason.
        #expect(
            matcher.mismatches(in: ["nickname": "a"]).map(\.description) == [
                #"$.nickname: expected a string of at least 2 characters, got string "a""#
            ])
        // None of its type: the list.
        #expect(
            matcher.mismatches(in: ["nickname": 5]).map(\.description) == [
                "$.nickname: expected one of: a string of at least 2 characters | null, got integer 5"
            ])
    }

    @Test func anOptionalKeyMayBeAbsentAndMustMatchWhenThere() throws {
        let matcher = try Self.matcher(
            "{ id: { match: uuid }, email: { match: regex, pattern: \".+@.+\", example: a@example.com, optional: true } }")
        let id = JSONValue.string("3f2504e0-4f89-41d3-9a0c-0305e82c3301")
        #expect(matcher.mismatches(in: ["id": id]).isEmpty)
        #expect(matcher.mismatches(in: ["id": id, "email": "a@example.com"]).isEmpty)
        #expect(matcher.mismatches(in: ["id": id, "email": "nope"]).map(\.path) == ["$.email"])
        #expect(matcher.mismatches(in: ["email": "a@example.com"]).map(\.path) == ["$.id"])
    }

    @Test func misplacedOrEmptyOnesAreDiagnosed() {
        #expect(Self.problems("{ match: string, optional: true }").first?.contains("optional: true belongs on a key of an object") == true)
        #expect(Self.problems("{ a: { match: one_of, of: [] } }").first?.contains("matcher 'one_of' needs 'of'") == true)
        #expect(Self.problems("{ a: { match: one_of } }").first?.contains("matcher 'one_of' needs 'of'") == true)
        #expect(Self.problems("{ a: { match: one_of, of: [1, 2], example: 3 } }").first?.contains("example does not match") == true)
        #expect(Self.problems("{ a: { match: integer, optional: maybe } }").isEmpty == false)
    }

    @Test func aSampleIsTheExampleOrTheFirstAlternativeAndOptionalKeysAreThere() throws {
        let matcher = try Self.matcher(
            "{ kind: { match: one_of, of: [password, passkey] }, note: { match: string, min_length: 1, example: hi, optional: true } }")
        #expect(try matcher.sampleValue() == ["kind": "password", "note": "hi"])
        let withExample = try Self.matcher("{ kind: { match: one_of, of: [password, passkey], example: passkey } }")
        #expect(try withExample.sampleValue() == ["kind": "passkey"])
    }

    @Test func theyAreWrittenBackAsTheyRead() throws {
        let written =
            "{ kind: { match: one_of, of: [password, { match: integer, min: 1 }] }, note: { match: string, optional: true }, extra: { match: one_of, of: [{ a: 1 }], optional: true } }"
        let matcher = try Self.matcher(written)
        let interaction = Interaction(
            name: "m", location: SourceLocation(file: "m.yaml", line: 3), given: [],
            request: RequestSpec(method: "GET", path: try RequestPath("/m")),
            response: ResponseSpec(status: 200, headers: [:], body: .json(matcher), strict: false), save: [:]
        )
        let yaml = try ContractYAML.contract(name: "M", interactions: [interaction])
        let (again, problems) = ContractLoader.parse(yaml: yaml, file: "m.yaml")
        #expect(problems == [])
        #expect(again?.interactions.first?.response.body == .json(matcher))
        // An optional literal is written as a one_of of it, which reads back.
        let literal = Matcher(.object(["a": Matcher(.literal(1), optional: true)]))
        let body = Interaction(
            name: "m", location: SourceLocation(file: "m.yaml", line: 3), given: [],
            request: RequestSpec(method: "GET", path: try RequestPath("/m")),
            response: ResponseSpec(status: 200, headers: [:], body: .json(literal), strict: false), save: [:]
        )
        let text = try ContractYAML.contract(name: "M", interactions: [body])
        #expect(text.contains("match: one_of"))
        #expect(ContractLoader.parse(yaml: text, file: "m.yaml").1 == [])
    }

    @Test(arguments: [
        // (old, new, breadth)
        ("{ match: one_of, of: [a, b] }", "{ match: one_of, of: [a] }", MatcherBreadth.narrower),
        ("{ match: one_of, of: [a] }", "{ match: one_of, of: [a, b] }", .wider),
        ("a", "{ match: one_of, of: [a, null] }", .wider),
        ("{ match: one_of, of: [a, null] }", "a", .narrower),
        ("{ match: one_of, of: [{ match: uuid }, null] }", "{ match: one_of, of: [{ match: string }, null] }", .wider),
        ("{ match: one_of, of: [a, b] }", "{ match: one_of, of: [b, a] }", .same),
        ("{ match: one_of, of: [a, b] }", "{ match: one_of, of: [a, c] }", .different),
        ("{ k: 1 }", "{ k: { match: integer, optional: true } }", .wider),
        ("{ k: { match: integer, optional: true } }", "{ k: { match: integer } }", .narrower),
        ("{ k: 1 }", "{ k: 1, extra: { match: string, optional: true } }", .same),
    ])
    func breadth(old: String, new: String, expected: MatcherBreadth) throws {
        #expect(MatcherBreadth(old: try Self.matcher("{ v: \(old) }"), new: try Self.matcher("{ v: \(new) }")) == expected)
    }

    static func changes(request old: String, _ new: String) throws -> [String] {
        try changes(
            "{ method: POST, path: /a, json: \(old) }", "{ status: 200 }", "{ method: POST, path: /a, json: \(new) }", "{ status: 200 }")
    }

    static func changes(response old: String, _ new: String) throws -> [String] {
        try changes(
            "{ method: GET, path: /a }", "{ status: 200, json: \(old) }", "{ method: GET, path: /a }", "{ status: 200, json: \(new) }")
    }

    static func changes(_ oldRequest: String, _ oldResponse: String, _ newRequest: String, _ newResponse: String) throws -> [String] {
        func contract(_ request: String, _ response: String) throws -> Contract {
            let (contract, problems) = ContractLoader.parse(
                yaml: "name: A\ninteractions:\n  - name: a\n    request: \(request)\n    response: \(response)\n", file: "a.yaml")
            #expect(problems == [])
            return try #require(contract)
        }
        return ContractDiff.changes(old: [try contract(oldRequest, oldResponse)], new: [try contract(newRequest, newResponse)])
            .map { "\($0.path): \($0.impact.rawValue)" }
    }

    @Test func optionalityChangesAreClassifiedPerSide() throws {
        let required = "{ n: { match: string } }"
        let optional = "{ n: { match: string, optional: true } }"
        #expect(try Self.changes(request: required, optional) == ["request $.n: safe"])
        #expect(try Self.changes(request: optional, required) == ["request $.n: breaking"])
        #expect(try Self.changes(response: required, optional) == ["response $.n: breaking"])
        #expect(try Self.changes(response: optional, required) == ["response $.n: safe"])
        #expect(try Self.changes(request: "{ a: 1 }", "{ a: 1, n: { match: string, optional: true } }") == ["request $.n: safe"])
        #expect(try Self.changes(request: "{ a: 1 }", "{ a: 1, n: { match: string } }") == ["request $.n: breaking"])
        #expect(try Self.changes(response: "{ a: 1, n: { match: string, optional: true } }", "{ a: 1 }") == ["response $.n: safe"])
    }

    @Test func alternativesChangedAreClassifiedPerSide() throws {
        let two = "{ k: { match: one_of, of: [a, b] } }"
        let one = "{ k: { match: one_of, of: [a] } }"
        // A request that takes fewer breaks old clients; more is safe.
        #expect(try Self.changes(request: two, one) == ["request $.k: breaking"])
        #expect(try Self.changes(request: one, two) == ["request $.k: safe"])
        // A response that may answer more breaks clients; fewer breaks too (when unsure, breaking).
        #expect(try Self.changes(response: one, two) == ["response $.k: breaking"])
    }
}

@Suite struct VariantCoverageTests {
    static let matcher = Matcher(
        .object([
            "kind": Matcher(.oneOf([Matcher(.literal("password")), Matcher(.literal("passkey"))])),
            "email": Matcher(.string(minLength: nil, maxLength: nil), optional: true),
            "factors": Matcher(
                .each(of: Matcher(.object(["label": Matcher(.string(minLength: nil, maxLength: nil), optional: true)])), min: nil, max: nil)
            ),
        ]))

    static let here = SourceLocation(file: "me.yaml", line: 3)
    static let there = SourceLocation(file: "me.yaml", line: 20)

    @Test func everyVariantNeverSeenIsReportedPerPlace() {
        var coverage = VariantCoverage()
        coverage.observe(
            Self.matcher, in: ["kind": "password", "email": "a@b", "factors": [["label": "x"]]], site: "GET /me 200", location: Self.here)
        #expect(
            coverage.unseen.map(\.description) == [
                "GET /me 200 $.email: never absent (me.yaml:3)",
                "GET /me 200 $.factors[*].label: never absent (me.yaml:3)",
                "GET /me 200 $.kind: never one_of alternative 2: \"passkey\" (me.yaml:3)",
            ])
        // Another interaction of the same place shows the rest.
        coverage.observe(
            Self.matcher, in: ["kind": "passkey", "factors": [["label": "y"], [:]]], site: "GET /me 200", location: Self.there)
        #expect(coverage.unseen.isEmpty)
    }

    @Test func aPlaceWithoutAnswerIsRegisteredUnseen() {
        var coverage = VariantCoverage()
        coverage.observe(Self.matcher, in: nil, site: "GET /me 200", location: Self.here)
        #expect(coverage.unseen.count == 6)
        // Another place is counted apart.
        coverage.observe(Self.matcher, in: ["kind": "password", "factors": []], site: "GET /you 200", location: Self.there)
        // No element: nothing is known of the elements' keys.
        #expect(
            coverage.unseen.filter { $0.place.hasPrefix("GET /you") }.map(\.variant) == [
                "never present", "never present", "never absent", "never one_of alternative 2: \"passkey\"",
            ])
    }
}
