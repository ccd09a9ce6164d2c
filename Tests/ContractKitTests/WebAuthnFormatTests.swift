import ContractKit
import ContractTestSupport
import Foundation
import Testing
import WebAuthn

/// `{ match: webauthn_registration | webauthn_assertion, options: "{{…}}", origin, authenticator }`:
/// saving the options whole, loading, what lint says, writing back.
@Suite struct WebAuthnFormatTests {
    static let ceremonies = PasskeyContracts.ceremonies

    @Test func aWholeBodyIsSavedWithDollarAndKeepsItsType() throws {
        let contract = try loadContract(Self.ceremonies)
        let body: JSONValue = ["challenge": "abc", "rp": ["id": "example.com", "name": "Example"]]
        let response = ContractResponse(status: 200, headers: [], body: Data(body.description.utf8))
        #expect(contract.interactions[0].save["creation"] == .responseBody(try JSONPath("$")))
        #expect(contract.interactions[0].captures(request: nil, response: response).values["creation"] == body)
        // A sole placeholder sends the saved object as it is.
        let replay = RequestSpec(method: "POST", path: try RequestPath("/again"), body: .json(.literal(["options": "{{creation}}"])))
        #expect(try replay.render(with: ["creation": body]).body.map { try JSONValue(parsing: $0) } == ["options": body])
    }

    @Test func loadsBothMatchersWithTheirOptions() throws {
        let contract = try loadContract(Self.ceremonies)
        var registration = WebAuthnSpec(.registration, options: "{{creation}}", origin: "https://example.com", authenticator: "mia-phone")
        registration.algorithm = .edDSA
        registration.attestation = .packedSelf
        registration.userVerified = false
        let assertion = WebAuthnSpec(.assertion, options: "{{request}}", origin: "https://example.com", authenticator: "mia-phone")
        #expect(
            contract.interactions[1].request.body
                == .json(Matcher(.object(["credential": Matcher(.webauthn(registration)), "name": .literal("phone")]))))
        #expect(contract.interactions[3].request.body == .json(Matcher(.object(["credential": Matcher(.webauthn(assertion))]))))
        #expect(contract.interactions[1].request.variables == ["creation"])
        #expect(Matcher(.webauthn(assertion)).specificity == 4)
        #expect(!Matcher(.webauthn(assertion)).appliesToText)
        #expect(Matcher.names.contains("webauthn_registration") && Matcher.names.contains("webauthn_assertion"))
    }

    @Test func beforeItsOptionsAreSavedAMatcherSendsAFixedExampleOfItsShape() throws {
        let assertion = WebAuthnSpec(.assertion, options: "{{request}}", origin: "https://example.com", authenticator: "a")
        let registration = WebAuthnSpec(.registration, options: "{{creation}}", origin: "https://example.com", authenticator: "a")
        let sent = try Matcher(.webauthn(registration)).sampleValue()
        #expect(sent == registration.exampleCredential)
        #expect(sent == registration.exampleCredential, "the same every time")
        let decoded = try WebAuthnJSON.decode(RegistrationResponseJSON.self, from: Data(sent.description.utf8))
        #expect(decoded.type == "public-key")
        #expect(
            try WebAuthnJSON.decode(AuthenticationResponseJSON.self, from: Data(assertion.exampleCredential.description.utf8)).response
                .signature.count == 64)
        // The matcher checks the shape.
        #expect(Matcher(.webauthn(registration)).mismatches(in: sent) == [])
        #expect(Matcher(.webauthn(assertion)).mismatches(in: sent).count == 1)
        #expect(Matcher(.webauthn(assertion)).mismatches(in: "a string").count == 1)
        // No relying party accepts it: its challenge is no one's.
        let relyingParty = WebAuthnRelyingParty(id: "example.com", name: "Example", origins: ["https://example.com"])
        #expect(throws: WebAuthnError.self) {
            try relyingParty.verifyRegistration(decoded, expectedChallenge: Data(repeating: 1, count: 32))
        }
    }

    @Test func writesBackWhatItRead() throws {
        let contract = try loadContract(Self.ceremonies)
        let text = try ContractYAML.contract(name: contract.name, interactions: contract.interactions)
        #expect(
            text.contains("match: webauthn_registration") && text.contains("algorithm: EdDSA") && text.contains("attestation: packed"),
            "\(text)")
        #expect(text.contains("user_verified: false") && !text.contains("user_verified: true"), "\(text)")
        let again = try loadContract(text)
        #expect(again.interactions.map(\.request) == contract.interactions.map(\.request))
    }

    /// A contract whose second interaction sends `credential: MATCHER` on line 12.
    static func sending(_ matcher: String) -> String {
        """
        name: T
        interactions:
          - name: options
            request: { method: POST, path: /webauthn/register/options }
            response: { status: 200, json: { challenge: { match: string } } }
            save: { creation: $ }
          - name: register
            request:
              method: POST
              path: /webauthn/register
              json:
                credential: \(matcher)
            response: { status: 201 }
        """
    }

    static let base = #"match: webauthn_registration, options: "{{creation}}", origin: "https://example.com", authenticator: mia-phone"#

    @Test(arguments: [
        (
            #"{ match: webauthn_registration, origin: "https://example.com", authenticator: a }"#,
            #"12: matcher 'webauthn_registration' needs 'options' (the options an earlier interaction answered and saved whole, such as "{{creation}}" from save: { creation: $ })"#
        ),
        (
            #"{ match: webauthn_assertion, options: "{{creation}}", authenticator: a }"#,
            #"12: matcher 'webauthn_assertion' needs 'origin' (the origin the client is at, such as "https://example.com")"#
        ),
        (
            #"{ match: webauthn_registration, options: "{{creation}}", origin: "https://example.com" }"#,
            "12: matcher 'webauthn_registration' needs 'authenticator' (a name for the authenticator, such as mia-phone: its registration's key signs its assertions)"
        ),
        (
            #"{ match: webauthn_registration, options: creation, origin: "https://example.com", authenticator: a }"#,
            #"12: options must be a saved value such as "{{creation}}" (the whole options an earlier interaction answered), not 'creation'"#
        ),
        (
            #"{ match: webauthn_registration, options: "{{nope}}", origin: "https://example.com", authenticator: a }"#,
            "12: undefined variable 'nope' (saved so far: creation)"
        ),
        (
            #"{ match: webauthn_registration, options: "{{creation}}", origin: "https://example.com/login", authenticator: a }"#,
            "12: origin must be an origin such as https://example.com (a scheme, a host and perhaps a port; no path), not 'https://example.com/login'"
        ),
        (
            #"{ match: webauthn_registration, options: "{{creation}}", origin: "https://example.com", authenticator: " " }"#,
            "12: authenticator must name the authenticator, such as mia-phone"
        ),
        ("{ \(base), algorithm: RS256 }", "12: unknown algorithm 'RS256' (expected one of: ES256, EdDSA)"),
        ("{ \(base), attestation: direct }", "12: unknown attestation 'direct' (expected one of: none, packed)"),
        ("{ \(base), user_verified: maybe }", "12: user_verified must be true or false, not text"),
        (
            "{ \(base), example: {} }",
            "12: unknown key 'example' in matcher 'webauthn_registration' (allowed: match, options, origin, authenticator, algorithm, attestation, user_verified, optional)"
        ),
        (
            #"{ match: webauthn_assertion, options: "{{creation}}", origin: "https://example.com", authenticator: a, algorithm: ES256 }"#,
            "12: unknown key 'algorithm' in matcher 'webauthn_assertion' (allowed: match, options, origin, authenticator, user_verified, optional)"
        ),
    ])
    func lintNamesEachBrokenMatcherWithItsLine(matcher: String, expected: String) {
        let (contract, diagnostics) = ContractLoader.parse(yaml: Self.sending(matcher), file: "passkeys.yaml")
        #expect(contract == nil)
        #expect(diagnostics.map { "\($0.line): \($0.message)" } == [expected])
        #expect(diagnostics.first?.description.hasPrefix("passkeys.yaml:12:") == true)
    }

    @Test func aCredentialIsNeitherAResponseNorADeliveryNorText() {
        let yaml = """
            name: T
            interactions:
              - name: options
                request: { method: POST, path: /webauthn/register/options, headers: { X-Credential: { \(Self.base) } } }
                response:
                  status: 200
                  json: { credential: { match: webauthn_assertion, options: "{{creation}}", origin: "https://example.com", authenticator: a } }
                delivers:
                  - path: /deliveries
                    json: { credential: { \(Self.base) } }
            """
        let (contract, diagnostics) = ContractLoader.parse(yaml: yaml, file: "passkeys.yaml")
        #expect(contract == nil)
        let lines = diagnostics.map { "\($0.line): \($0.message)" }
        #expect(
            lines.contains { $0.hasPrefix("4: header 'X-Credential' must be text or a matcher of text, not a WebAuthn registration") },
            "\(lines)")
        #expect(
            lines.contains(
                "7: a webauthn_assertion matcher belongs in a request (a credential the verifier's authenticator makes), not in a response or a delivery"
            ),
            "\(lines)"
        )
        #expect(
            lines.contains(
                "10: a webauthn_registration matcher belongs in a request (a credential the verifier's authenticator makes), not in a response or a delivery"
            ),
            "\(lines)"
        )
    }

    @Test(arguments: [
        ("https://example.com", true), ("http://localhost:8080", true), ("android:apk-key-hash:abc", true),
        ("https://example.com/", false), ("example.com", false), ("https://", false), ("https://example.com?x=1", false),
    ])
    func originsAreSchemeHostAndPort(origin: String, valid: Bool) {
        #expect(WebAuthnSpec.isOrigin(origin) == valid)
    }
}
