import ContractKit
import Foundation
import Testing

@Suite struct MatcherTests {
    static let jwt = "eyJhbGciOiJFZERTQSIsImtpZCI6ImsxIn0.eyJzdWIiOiJ1MSJ9.c2lnbmF0dXJl"

    static func jwks(x: String) -> JSONValue {
        .object(["keys": .array([.object(["kty": .string("OKP"), "crv": .string("Ed25519"), "kid": .string("k1"), "x": .string(x)])])])
    }

    @Test(
        arguments: [
            // (matcher, passing value, failing value)
            (Matcher(.string(minLength: nil, maxLength: nil)), JSONValue.string("x"), JSONValue.integer(1)),
            (Matcher(.string(minLength: 3, maxLength: 5)), .string("abcd"), .string("ab")),
            (Matcher(.string(minLength: 3, maxLength: 5)), .string("abc"), .string("abcdef")),
            (Matcher(.integer(min: 1, max: 10)), .integer(10), .integer(11)),
            (Matcher(.integer(min: 1, max: nil)), .integer(1), .number(1.5)),
            (Matcher(.integer(min: 1, max: nil)), .integer(900), .string("900")),
            (Matcher(.number(min: 0, max: 1)), .number(0.5), .number(1.5)),
            (Matcher(.number(min: nil, max: nil)), .integer(3), .bool(true)),
            (Matcher(.boolean), .bool(false), .string("false")),
            (Matcher(.null), .null, .string("")),
            (Matcher(.any), .array([]), nil),
            (Matcher(.regex("[a-z]+-[0-9]{2}")), .string("abc-12"), .string("abc-123")),
            (Matcher(.regex("b")), .string("b"), .string("abc")),
            (Matcher(.uuid), .string("ce7af357-a101-4d35-9de7-b83dd4157e0f"), .string("ce7af357")),
            (Matcher(.datetime), .string("2026-11-22T07:32:36Z"), .string("2026-11-22 07:32")),
            (Matcher(.datetime), .string("2026-11-22T07:32:36.123+01:00"), .integer(1)),
            (Matcher(.jwt(claims: [:])), .string(jwt), .string("a.b.c")),
            (Matcher(.jwt(claims: [:])), .string(jwt), .string("only.two")),
            (
                Matcher(.jwt(claims: ["sub": .literal(.string("u1"))])), .string(jwt),
                .string("eyJhbGciOiJFZERTQSIsImtpZCI6ImsxIn0.eyJzdWIiOiJ1MiJ9.c2lnbmF0dXJl")
            ),
            (Matcher(.jwks(min: 1, max: 2)), jwks(x: String(repeating: "A", count: 43)), jwks(x: "short")),
            (Matcher(.jwks(min: 1, max: 2)), jwks(x: String(repeating: "A", count: 43)), .object(["keys": .array([])])),
            (
                Matcher(.jwks(min: nil, max: nil)), jwks(x: String(repeating: "A", count: 43)),
                .object(["keys": .array([.object(["kty": .string("RSA")])])])
            ),
            (
                Matcher(.jwks(min: nil, max: nil)), .object(["keys": .array([.object(["kty": .string("RSA"), "kid": .string("r1")])])]),
                .array([])
            ),
            (Matcher(.each(of: Matcher(.integer(min: nil, max: nil)), min: 1, max: 3)), .array([.integer(1), .integer(2)]), .array([])),
            (
                Matcher(.each(of: Matcher(.integer(min: nil, max: nil)), min: nil, max: nil)), .array([.integer(1)]),
                .array([.integer(1), .string("2")])
            ),
            (Matcher(.each(of: Matcher(.any), min: nil, max: 1)), .array([.null]), .array([.null, .null])),
            (Matcher.literal(.string("Bearer")), .string("Bearer"), .string("bearer")),
            (Matcher.literal(.integer(900)), .number(900), .integer(901)),
            (Matcher.literal(.array([.integer(1), .integer(2)])), .array([.integer(1), .integer(2)]), .array([.integer(1)])),
        ] as [(Matcher, JSONValue, JSONValue?)])
    func matchersAcceptAndReject(matcher: Matcher, good: JSONValue, bad: JSONValue?) {
        #expect(matcher.mismatches(in: good) == [])
        if let bad {
            let problems = matcher.mismatches(in: bad)
            #expect(problems.count == 1)
            #expect(problems.first?.path.hasPrefix("$") == true)
        }
    }

    @Test func objectsAreLenientUnlessStrictAndReportEveryPath() {
        let matcher = Matcher.literal(.object(["token_type": .string("Bearer"), "nested": .object(["a": .integer(1)])]))
        let actual = JSONValue.object([
            "token_type": .string("Bearer"), "nested": .object(["a": .integer(1), "extra": .bool(true)]), "more": .null,
        ])
        #expect(matcher.mismatches(in: actual) == [])
        let strict = matcher.mismatches(in: actual, strict: true).map(\.path)
        #expect(strict == ["$.nested.extra", "$.more"] || strict == ["$.more", "$.nested.extra"])

        let wrong = JSONValue.object(["token_type": .string("bearer"), "nested": .object([:])])
        let problems = matcher.mismatches(in: wrong)
        #expect(
            problems.map(\.description) == [
                #"$.nested.a: expected 1, got nothing (key missing)"#,
                #"$.token_type: expected "Bearer", got string "bearer""#,
            ])
    }

    @Test func oddKeysGetBracketPaths() {
        let matcher = Matcher.literal(.object(["odd key": .integer(1)]))
        #expect(matcher.mismatches(in: .object([:])).first?.path == #"$["odd key"]"#)
    }
}

@Suite struct JSONPathAndTemplateTests {
    @Test func pathsReachIntoObjectsAndArrays() throws {
        let body = try JSONValue(parsing: Data(#"{"a": {"b": [10, {"c": "x"}]}, "odd key": true}"#.utf8))
        #expect(try JSONPath("$.a.b[0]").value(in: body) == .integer(10))
        #expect(try JSONPath("$.a.b[1].c").value(in: body) == .string("x"))
        #expect(try JSONPath(#"$["odd key"]"#).value(in: body) == .bool(true))
        #expect(try JSONPath("$").value(in: body) == body)
        #expect(try JSONPath("$.a.missing").value(in: body) == nil)
        #expect(try JSONPath("$.a.b[5]").value(in: body) == nil)
    }

    @Test(arguments: ["a.b", "$.", "$.a[", "$[x]", "$a"])
    func malformedPathsAreRejected(text: String) {
        #expect(throws: JSONPath.Invalid.self) { try JSONPath(text) }
    }

    @Test func templatesSubstituteAndKeepTypes() throws {
        let values: [String: JSONValue] = ["token": .string("abc"), "count": .integer(3)]
        #expect(try Template("Bearer {{token}}").render(values) == "Bearer abc")
        #expect(try Template("n={{ count }}").render(values) == "n=3")
        #expect(Template("{{a}} and {{b}}").variables == ["a", "b"])
        #expect(throws: Template.UndefinedVariable.self) { try Template("{{missing}}").render(values) }
        let json = JSONValue.object(["refresh_token": .string("{{token}}"), "n": .string("{{count}}"), "s": .string("#{{count}}")])
        #expect(try json.rendered(values) == .object(["refresh_token": .string("abc"), "n": .integer(3), "s": .string("#3")]))
    }
}
