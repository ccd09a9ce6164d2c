import ContractKit
import ContractTestSupport
import Foundation
import JOSE
import Testing

/// `{ match: at_hash }`: checked against the access token beside the ID token and the ID
/// token's own `alg`, or by its form alone where there is no access token.
@Suite struct AtHashMatcherTests {
    static let contract = """
        name: Tokens
        interactions:
          - name: a code is exchanged
            request: { method: POST, path: /token }
            response:
              status: 200
              json:
                access_token: { match: string }
                id_token: { match: jwt, claims: { at_hash: { match: at_hash } } }
        """

    /// A token response whose ID token, signed with `alg`, says `atHash`.
    static func answer(accessToken: String, alg: String, atHash: String) -> ContractResponse {
        func part(_ json: String) -> String { Base64URL.encode(Data(json.utf8)) }
        let idToken = "\(part(#"{"alg":"\#(alg)","typ":"JWT"}"#)).\(part(#"{"at_hash":"\#(atHash)"}"#)).c2lnbmF0dXJl"
        let body = #"{"access_token":"\#(accessToken)","id_token":"\#(idToken)"}"#
        return ContractResponse(status: 200, headers: [("Content-Type", "application/json")], body: Data(body.utf8))
    }

    @Test func itIsTheHashOfTheAccessTokenBesideItWithTheIDTokensAlgorithm() throws {
        let expected = try loadContract(Self.contract).interactions[0].response
        for alg in ["RS256", "ES384", "EdDSA"] {
            let right = Self.answer(accessToken: "the-access-token", alg: alg, atHash: TokenHash.of("the-access-token", algorithm: alg))
            #expect(expected.mismatches(in: right).isEmpty, "\(alg)")
        }
        let another = Self.answer(accessToken: "the-access-token", alg: "RS256", atHash: TokenHash.of("another-token", algorithm: "RS256"))
        #expect(expected.mismatches(in: another).map(\.path) == ["$.id_token.at_hash"])
        // The hash of another algorithm than the ID token's (RS256 takes SHA-256, not SHA-512).
        let otherHash = Self.answer(
            accessToken: "the-access-token", alg: "RS256", atHash: TokenHash.of("the-access-token", algorithm: "EdDSA"))
        #expect(expected.mismatches(in: otherHash).map(\.path) == ["$.id_token.at_hash"])
    }

    @Test func withoutAnAccessTokenBesideItOnlyItsFormIsChecked() {
        let matcher = Matcher(.atHash)
        #expect(matcher.mismatches(in: .string("Ro0ayxtUo87-ieV6NK0VMA")).isEmpty)
        #expect(matcher.mismatches(in: .string("not a hash")).count == 1)
        #expect(matcher.mismatches(in: .integer(1)).count == 1)
        #expect(throws: MatcherSampleError.self) { try matcher.sampleValue() }
    }

    @Test func boundItsSampleIsTheHash() throws {
        let body = Matcher(
            .object(["access_token": Matcher(.literal("t")), "id_token": Matcher(.jwt(claims: ["at_hash": Matcher(.atHash)]))]))
        let bound = body.bindingAccessTokenHashes(accessToken: "t") { _ in "ES256" }
        guard case .object(let members) = bound.kind, let claim = members["id_token"]?.kind.as(JWTMatcher.self)?.claims["at_hash"] else {
            Issue.record("not bound")
            return
        }
        #expect(try claim.sampleValue() == .string(TokenHash.of("t", algorithm: "ES256")))
    }
}
