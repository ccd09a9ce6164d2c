import ContractInterop
import ContractKit
import Foundation
import Testing

/// `contract import pact`: each Pact matching rule, the spec versions' shapes, and the notes.
@Suite struct PactImporterTests {
    /// Imports one Pact file and reads the written YAML back as a contract.
    func imported(_ json: String, file: String = "pact.json") throws -> (contract: Contract, notes: [String]) {
        let result = PactImporter.importFiles([(file, Data(json.utf8))])
        #expect(result.errors.isEmpty, "\(result.errors)")
        let written = try #require(result.files.first)
        let (contract, diagnostics) = ContractLoader.parse(yaml: written.yaml, file: written.name)
        #expect(diagnostics.isEmpty, "\(diagnostics)\n\(written.yaml)")
        return (try #require(contract), result.notes.map(\.description))
    }

    static func v3(body: String, rules: String, extra: String = "") -> String {
        """
        {"consumer": {"name": "app"}, "provider": {"name": "api"}, "metadata": {"pactSpecification": {"version": "3.0.0"}},
         "interactions": [{"description": "one", "request": {"method": "get", "path": "/x"},
           "response": {"status": 200, "body": \(body), "matchingRules": {"body": \(rules)} \(extra)}}]}
        """
    }

    func responseMatcher(_ json: String) throws -> Matcher {
        let contract = try imported(json).contract
        guard case .json(let matcher)? = contract.interactions.first?.response.body else { throw Failure("no JSON body") }
        return matcher
    }

    @Test func scalarRulesMapToMatchers() throws {
        let matcher = try responseMatcher(
            Self.v3(
                body:
                    #"{"s": "a", "i": 1, "d": 1.5, "n": 2, "b": true, "z": null, "r": "AB12", "day": "2024-02-29", "at": "2024-02-29T10:00:00Z", "inc": "the quick fox", "eq": "x"}"#,
                rules: #"""
                    {"$.s": {"matchers": [{"match": "type"}]}, "$.i": {"matchers": [{"match": "integer"}]}, "$.d": {"matchers": [{"match": "decimal"}]},
                     "$.n": {"matchers": [{"match": "number"}]}, "$.b": {"matchers": [{"match": "boolean"}]}, "$.z": {"matchers": [{"match": "null"}]},
                     "$.r": {"matchers": [{"match": "regex", "regex": "[A-Z]+[0-9]+"}]}, "$.day": {"matchers": [{"match": "date", "format": "yyyy-MM-dd"}]},
                     "$.at": {"matchers": [{"match": "timestamp", "format": "yyyy-MM-dd'T'HH:mm:ssXXX"}]},
                     "$.inc": {"matchers": [{"match": "include", "value": "quick"}]}, "$.eq": {"matchers": [{"match": "equality"}]}}
                    """#
            ))
        guard case .object(let members) = matcher.kind else { throw Failure("not an object") }
        #expect(members["s"] == Matcher(.string(minLength: nil, maxLength: nil), example: "a"))
        #expect(members["i"] == Matcher(.integer(min: nil, max: nil), example: 1))
        #expect(members["d"] == Matcher(.number(min: nil, max: nil), example: .number(1.5)))
        #expect(members["n"] == Matcher(.number(min: nil, max: nil), example: 2))
        #expect(members["b"] == Matcher(.boolean, example: true))
        #expect(members["z"] == Matcher(.null))
        #expect(members["r"] == Matcher(.regex("[A-Z]+[0-9]+"), example: "AB12"))
        #expect(members["day"] == Matcher(.regex(#"\d{4}-\d{2}-\d{2}"#), example: "2024-02-29"))
        #expect(members["at"] == Matcher(.datetime, example: "2024-02-29T10:00:00Z"))
        #expect(members["inc"]?.mismatches(in: "a quick one") == [])
        #expect(members["inc"]?.mismatches(in: "slow").isEmpty == false)
        #expect(members["eq"] == Matcher(.literal("x")))
    }

    @Test func typeCascadesAndArraysWithBoundsBecomeEach() throws {
        let matcher = try responseMatcher(
            Self.v3(
                body: #"{"user": {"id": 7, "name": "ann"}, "items": [{"sku": "a1", "qty": 2}], "fixed": [1, 2]}"#,
                rules: #"""
                    {"$.user": {"matchers": [{"match": "type"}]}, "$.items": {"matchers": [{"match": "type", "min": 1, "max": 5}]},
                     "$.items[*].sku": {"matchers": [{"match": "regex", "regex": "[a-z][0-9]"}]}}
                    """#
            ))
        guard case .object(let members) = matcher.kind else { throw Failure("not an object") }
        #expect(
            members["user"]
                == Matcher(
                    .object([
                        "id": Matcher(.integer(min: nil, max: nil), example: 7),
                        "name": Matcher(.string(minLength: nil, maxLength: nil), example: "ann"),
                    ])))
        let element = Matcher(
            .object(["sku": Matcher(.regex("[a-z][0-9]"), example: "a1"), "qty": Matcher(.integer(min: nil, max: nil), example: 2)]))
        #expect(members["items"] == Matcher(.each(of: element, min: 1, max: 5), example: [["sku": "a1", "qty": 2]]))
        // Without a rule, an array is exactly its elements.
        #expect(members["fixed"] == Matcher(.array([Matcher(.literal(1)), Matcher(.literal(2))])))
    }

    @Test func v2RulesStatesAndQueryStringsAreRead() throws {
        let (contract, _) = try imported(
            #"""
            {"consumer": {"name": "old"}, "provider": {"name": "api"}, "metadata": {"pactSpecification": {"version": "2.0.0"}},
             "interactions": [{"description": "a page", "providerState": "there are notes",
               "request": {"method": "GET", "path": "/notes/42", "query": "page=2&sort=name",
                           "headers": {"Accept": "application/json"}},
               "response": {"status": 200, "body": {"total": 9},
                            "matchingRules": {"$.body.total": {"match": "type"}}},
               "matchingRules": {}}]}
            """#)
        let interaction = try #require(contract.interactions.first)
        #expect(interaction.given == [ProviderStateUse(state: "there are notes", params: [:])])
        #expect(interaction.request.query.map(\.name) == ["page", "sort"])
        #expect(interaction.request.query.first?.value == Matcher(.literal("2")))
        #expect(interaction.request.headers.first?.name == "Accept")
        #expect(interaction.response.body == .json(Matcher(.object(["total": Matcher(.integer(min: nil, max: nil), example: 9)]))))
    }

    @Test func v4BodiesHeadersStatesAndPathRegexesAreRead() throws {
        let (contract, notes) = try imported(
            #"""
            {"consumer": {"name": "new"}, "provider": {"name": "api"}, "metadata": {"pactSpecification": {"version": "4.0"}},
             "interactions": [{"type": "Synchronous/HTTP", "description": "a note",
               "providerStates": [{"name": "a note exists", "params": {"id": 42}}],
               "request": {"method": "PUT", "path": "/notes/42", "headers": {"Content-Type": ["application/json"]},
                           "body": {"contentType": "application/json", "encoded": false, "content": {"title": "t"}},
                           "matchingRules": {"path": {"matchers": [{"match": "regex", "regex": "/notes/[0-9]+"}]},
                                             "body": {"$.title": {"matchers": [{"match": "type"}]}}},
                           "generators": {"path": {"type": "ProviderState", "expression": "/notes/${id}"}}},
               "response": {"status": 204, "headers": {"X-Trace": ["a", "b"]}}},
              {"type": "Synchronous/Messages", "description": "a sync message"}]}
            """#, file: "new.json")
        let interaction = try #require(contract.interactions.first)
        #expect(interaction.given == [ProviderStateUse(state: "a note exists", params: ["id": 42])])
        #expect(interaction.request.path.text == "/notes/{notes_id}")
        #expect(interaction.request.path.params["notes_id"] == Matcher(.regex("[0-9]+"), example: "42"))
        #expect(
            interaction.request.body == .json(Matcher(.object(["title": Matcher(.string(minLength: nil, maxLength: nil), example: "t")]))))
        #expect(interaction.response.headers["x-trace"] == Matcher(.literal("a, b")))
        #expect(notes.contains { $0.hasPrefix("new.json:a note: ProviderState generator at request path (/notes/${id}) dropped") })
        #expect(notes.contains("new.json:a sync message: a Synchronous/Messages interaction is not a synchronous HTTP one: not imported"))
    }

    @Test func rulesWithoutAnEquivalentAreReportedPerInteraction() throws {
        let (_, notes) = try imported(
            Self.v3(
                body: #"{"tags": ["a"], "v": "1.2.3"}"#,
                rules:
                    #"{"$.tags": {"matchers": [{"match": "arrayContains", "variants": []}]}, "$.v": {"combine": "OR", "matchers": [{"match": "semver"}, {"match": "type"}]}}"#
            ))
        #expect(notes.contains("pact.json:one: the 'arrayContains' rule at $.tags has no equivalent: the value is matched literally"))
        #expect(notes.contains("pact.json:one: rules at $.v are combined with OR: only the first is kept"))
        #expect(notes.contains("pact.json:one: the 'semver' rule at $.v has no equivalent: the value is matched literally"))
    }

    @Test func consumersAreKeptApart() {
        let first = Self.v3(body: "{}", rules: "{}")
        let second = first.replacingOccurrences(of: #""name": "app""#, with: #""name": "other app""#)
        let result = PactImporter.importFiles([("a.json", Data(first.utf8)), ("b.json", Data(second.utf8)), ("c.json", Data(first.utf8))])
        #expect(result.files.map(\.name) == ["app.yaml", "other-app.yaml", "app-2.yaml"])
        #expect(result.files.map(\.consumer) == ["app", "other app", "app"])
    }

    @Test func datesFormatsBecomeRegexes() {
        #expect(PactImporter.dateRegex("yyyy-MM-dd'T'HH:mm:ss.SSS") == #"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}"#)
        #expect(PactImporter.dateRegex("HH:mm") == #"\d{2}:\d{2}"#)
        #expect(PactImporter.dateRegex("QQQ") == nil)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
