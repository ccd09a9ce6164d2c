import ContractKit
import ContractTestSupport
import Foundation
import Testing

/// `{ match: totp, secret: "{{totp_secret}}" }`: loading, what lint says, what verify sends.
@Suite struct TOTPFormatTests {
    static let everywhere = """
        name: Codes
        interactions:
          - name: enrol
            request: { method: POST, path: /mfa/totp }
            response: { status: 200, json: { secret: { match: string } } }
            save: { totp_secret: $.secret }
          - name: everywhere
            request:
              method: POST
              path: /login/mfa
              query: { otp: { match: totp, secret: "{{totp_secret}}", digits: 8 } }
              headers: { X-OTP: { match: totp, secret: "{{totp_secret}}", period: 60, algorithm: sha256 } }
              json: { factor: { code: { match: totp, secret: "{{totp_secret}}" } } }
            response: { status: 200 }
            save: { used: request.json.factor.code }
        """

    @Test func loadsInEveryPositionWithItsOptions() throws {
        let contract = try loadContract(Self.everywhere)
        let request = contract.interactions[1].request
        #expect(request.query.first?.value == Matcher(.totp(TOTPSpec(secret: "{{totp_secret}}", digits: 8))))
        #expect(request.headers.first?.value == Matcher(.totp(TOTPSpec(secret: "{{totp_secret}}", period: 60, algorithm: .sha256))))
        #expect(
            request.body
                == .json(Matcher(.object(["factor": Matcher(.object(["code": Matcher(.totp(TOTPSpec(secret: "{{totp_secret}}")))]))]))))
        #expect(request.variables == ["totp_secret", "totp_secret", "totp_secret"])
    }

    @Test func verifySendsCodesOfTheSavedSecretAndCanSaveThem() throws {
        let contract = try loadContract(Self.everywhere)
        let interaction = contract.interactions[1]
        let secret = "JBSWY3DPEHPK3PXP"
        let request = try interaction.request.render(with: ["totp_secret": .string(secret)])
        let now = Date()

        let query = request.pathAndQuery.query.first { $0.name == "otp" }?.value ?? ""
        #expect(query.count == 8)
        #expect(try TOTP(secret: secret, digits: 8).step(of: query, near: now) != nil)
        let header = request.header("X-OTP") ?? ""
        #expect(try TOTP(secret: secret, period: 60, algorithm: .sha256).step(of: header, near: now) != nil)
        guard case .string(let code)? = try JSONValue(parsing: request.body ?? Data())["factor"]?["code"] else {
            Issue.record("no code in \(request)")
            return
        }
        #expect(try TOTP(secret: secret).step(of: code, near: now) != nil)

        // `save: { used: request.json.factor.code }` keeps what was sent, for a replay.
        #expect(interaction.captures(request: request, response: nil).values["used"] == .string(code))
        // Without the saved secret there is nothing to compute.
        #expect(throws: Template.UndefinedVariable.self) { try interaction.request.render(with: [:]) }
        // A saved value that is not base32 is named.
        #expect(throws: MatcherSampleError.self) { try interaction.request.render(with: ["totp_secret": "not base32!"]) }
    }

    @Test func theMatcherChecksTheShapeAndAWrittenKeysCode() throws {
        let saved = Matcher(.totp(TOTPSpec(secret: "{{totp_secret}}")))
        #expect(saved.mismatches(in: "123456") == [])
        #expect(saved.mismatches(in: "12345").first?.expected == "a 6-digit TOTP code of {{totp_secret}}")
        #expect(saved.mismatches(in: .integer(123_456)).count == 1)
        #expect(try saved.sampleValue() == .string("123456"))
        #expect(saved.specificity == 4)
        #expect(saved.templateVariables == ["totp_secret"])

        let written = Matcher(.totp(TOTPSpec(secret: "JBSWY3DPEHPK3PXP", digits: 7)))
        let totp = try TOTP(secret: "JBSWY3DPEHPK3PXP", digits: 7)
        #expect(written.mismatches(in: .string(totp.code(at: Date()))) == [])
        let wrong = String(totp.code(at: Date()).reversed())
        if totp.step(of: wrong, near: Date()) == nil { #expect(written.mismatches(in: .string(wrong)).count == 1) }
        #expect(Matcher.names.contains("totp"))
    }

    @Test func writesBackWhatItRead() throws {
        let contract = try loadContract(Self.everywhere)
        let text = try ContractYAML.contract(name: contract.name, interactions: contract.interactions)
        #expect(
            text.contains("match: totp") && text.contains("period: 60") && text.contains("algorithm: SHA256")
                && !text.contains("digits: 6"), "\(text)")
        let again = try loadContract(text)
        #expect(again.interactions.map(\.request) == contract.interactions.map(\.request))
    }

    /// A contract whose second interaction sends `code: MATCHER` on line 12.
    static func sending(_ matcher: String) -> String {
        """
        name: T
        interactions:
          - name: enrol
            request: { method: POST, path: /mfa/totp }
            response: { status: 200, json: { secret: { match: string } } }
            save: { totp_secret: $.secret }
          - name: code
            request:
              method: POST
              path: /login/mfa
              json:
                code: \(matcher)
            response: { status: 200 }
        """
    }

    @Test(arguments: [
        ("{ match: totp }", #"12: matcher 'totp' needs 'secret' (the key in base32, usually a saved value such as "{{totp_secret}}")"#),
        (#"{ match: totp, secret: "{{totp_secret}}", digits: 9 }"#, "12: digits must be from 6 to 8"),
        (#"{ match: totp, secret: "{{totp_secret}}", digits: 5 }"#, "12: digits must be from 6 to 8"),
        (#"{ match: totp, secret: "{{totp_secret}}", digits: six }"#, "12: digits must be an integer, not text"),
        (#"{ match: totp, secret: "{{totp_secret}}", period: 0 }"#, "12: period must be at least 1 (seconds)"),
        (
            #"{ match: totp, secret: "{{totp_secret}}", algorithm: MD5 }"#,
            "12: unknown algorithm 'MD5' (expected one of: SHA1, SHA256, SHA512)"
        ),
        (
            #"{ match: totp, secret: "{{totp_secret}}", example: "123456" }"#,
            "12: unknown key 'example' in matcher 'totp' (allowed: match, secret, digits, period, algorithm, optional)"
        ),
        (
            #"{ match: totp, secret: "not base32!" }"#,
            #"12: secret must be base32 (letters A–Z and digits 2–7) or a saved value such as "{{totp_secret}}", not 'not base32!'"#
        ),
        (#"{ match: totp, secret: "{{nope}}" }"#, "12: undefined variable 'nope' (saved so far: totp_secret)"),
    ])
    func lintNamesEachBrokenMatcherWithItsLine(matcher: String, expected: String) {
        let (contract, diagnostics) = ContractLoader.parse(yaml: Self.sending(matcher), file: "totp.yaml")
        #expect(contract == nil)
        #expect(diagnostics.map { "\($0.line): \($0.message)" } == [expected])
        #expect(diagnostics.first?.description.hasPrefix("totp.yaml:12:") == true)
    }

    @Test func aCodeIsNeitherAResponseNorADelivery() {
        let yaml = """
            name: T
            interactions:
              - name: enrol
                request: { method: POST, path: /mfa/totp }
                response:
                  status: 200
                  json: { code: { match: totp, secret: JBSWY3DPEHPK3PXP } }
                delivers:
                  - path: /deliveries
                    json: { code: { match: totp, secret: JBSWY3DPEHPK3PXP } }
            """
        let (contract, diagnostics) = ContractLoader.parse(yaml: yaml, file: "totp.yaml")
        #expect(contract == nil)
        let message = "a totp matcher belongs in a request (a code the verifier computes), not in a response or a delivery"
        #expect(diagnostics.map { "\($0.line): \($0.message)" } == ["7: \(message)", "10: \(message)"])
    }
}
