import ContractKit
import Foundation
import Testing

/// Paths into JWTs, `claims:` on the jwt matcher, and saved values in expected responses.
@Suite struct SavedValueTests {
    /// {"alg":"EdDSA","kid":"k1"} . {"sub":"u1","exp":4102444800}
    static let jwt = "eyJhbGciOiJFZERTQSIsImtpZCI6ImsxIn0.eyJzdWIiOiJ1MSIsImV4cCI6NDEwMjQ0NDgwMH0.c2lnbmF0dXJl"

    @Test func aPathContinuesIntoAJWTsClaims() throws {
        let body = JSONValue.object(["access_token": .string(Self.jwt), "plain": .string("not-a-jwt")])
        #expect(try JSONPath("$.access_token.sub").value(in: body) == .string("u1"))
        #expect(try JSONPath("$.access_token.exp").value(in: body) == .integer(4_102_444_800))
        #expect(try JSONPath("$.access_token.missing").value(in: body) == nil)
        #expect(try JSONPath("$.plain.sub").value(in: body) == nil)
    }

    @Test func claimsAreCheckedWithTheirPaths() throws {
        let (contract, diagnostics) = Self.parseToken(claims: "{ sub: { match: uuid }, exp: { match: integer } }")
        #expect(diagnostics == [])
        guard case .json(let matcher)? = try #require(contract).interactions.first.map(\.response.body) else {
            Issue.record("no JSON matcher")
            return
        }
        let problems = matcher.mismatches(in: .object(["token": .string(Self.jwt)]))
        #expect(problems.map(\.path) == ["$.token.sub"])
        #expect(problems.first?.expected == "a UUID string")
    }

    @Test func unknownClaimOptionsAreReportedWithTheirLine() {
        let (_, diagnostics) = Self.parseToken(claims: "{ sub: { match: nonsense } }")
        #expect(diagnostics.count == 1)
        #expect(diagnostics.first?.line == 8)
        #expect(diagnostics.first?.message.contains("unknown matcher 'nonsense'") == true)
    }

    @Test func savedValuesInResponsesKeepTheirTypeOrRenderAsText() {
        let spec = ResponseSpec(
            status: 200,
            headers: ["Location": Matcher.literal(.string("/users/{{id}}"))],
            body: .json(
                Matcher.literal(.object(["user_id": .string("{{id}}"), "count": .string("{{n}}"), "other": .string("{{unsaved}}")])))
        )
        let (resolved, undefined) = spec.resolved(with: ["id": .string("u1"), "n": .integer(3)])
        #expect(undefined == ["unsaved"])
        #expect(resolved.headers["Location"] == Matcher.literal(.string("/users/u1")))
        guard case .json(let matcher) = resolved.body else {
            Issue.record("no JSON matcher")
            return
        }
        #expect(matcher.mismatches(in: .object(["user_id": .string("u1"), "count": .integer(3), "other": .string("{{unsaved}}")])) == [])
        #expect(
            matcher.mismatches(in: .object(["user_id": .string("u2"), "count": .integer(3), "other": .string("{{unsaved}}")])).map(\.path)
                == ["$.user_id"])
    }

    /// A contract whose one response is `token: { match: jwt, claims: CLAIMS }`, on line 8.
    static func parseToken(claims: String) -> (Contract?, [ContractDiagnostic]) {
        ContractLoader.parse(
            yaml: """
                name: Claims
                interactions:
                  - name: a token
                    request: { method: GET, path: /t }
                    response:
                      status: 200
                      json:
                        token: { match: jwt, claims: \(claims) }
                """,
            file: "claims.yaml"
        )
    }
}
