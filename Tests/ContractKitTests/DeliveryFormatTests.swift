import ContractKit
import Foundation
import Testing

/// `delivers:` on an interaction: parsing, diagnostics, saved names, matching a received delivery.
@Suite struct DeliveryFormatTests {
    static func parse(_ delivers: String, next: String = "") -> (Contract?, [ContractDiagnostic]) {
        ContractLoader.parse(
            yaml: """
                name: Reset
                interactions:
                  - name: a reset is requested
                    request: { method: POST, path: /password/reset, json: { username: alice } }
                    response: { status: 202 }
                    save: { sent: request.json.username }
                    delivers:
                \(delivers)
                \(next)
                """,
            file: "reset.yaml"
        )
    }

    static let valid = """
              - path: /deliveries
                headers: { Authd-Signature: { match: regex, pattern: "t=[0-9]+,v1=[0-9a-f]{64}", example: "t=1,v1=0000000000000000000000000000000000000000000000000000000000000000" } }
                json: { kind: password_reset, token: { match: string, min_length: 32 }, username: "{{sent}}" }
                within: 2.5
                save: { reset: $.token }
        """

    static let confirm = """
          - name: the delivered token resets the password
            request: { method: POST, path: /password/reset/confirm, json: { token: "{{reset}}", new_password: a new passphrase } }
            response: { status: 204 }
        """

    @Test func aDeliveryIsReadWithItsDefaults() throws {
        let (contract, diagnostics) = Self.parse(Self.valid, next: Self.confirm)
        #expect(diagnostics == [])
        let delivery = try #require(contract?.interactions.first?.delivers.first)
        #expect(delivery.method == "POST")
        #expect(delivery.path.text == "/deliveries")
        #expect(delivery.within == 2.5)
        #expect(delivery.save == ["reset": try JSONPath("$.token")])
        #expect(delivery.headers["authd-signature"] != nil)
        #expect(delivery.location == SourceLocation(file: "reset.yaml", line: 8))
        #expect(contract?.savedMatchers["reset"] == Matcher(.string(minLength: 32, maxLength: nil)))

        let (minimal, problems) = Self.parse("      - path: /hook")
        #expect(problems == [])
        let plain = try #require(minimal?.interactions.first?.delivers.first)
        #expect(plain.method == "POST")
        #expect(plain.within == Delivery.defaultWithin)
        #expect(plain.body == nil)
    }

    @Test func aNameSavedFromADeliveryIsDefinedForLaterInteractionsOnly() {
        #expect(Self.parse(Self.valid, next: Self.confirm).1 == [])
        // Without the delivery's save, the next interaction uses an undefined name.
        let (_, diagnostics) = Self.parse("      - path: /deliveries", next: Self.confirm)
        #expect(diagnostics.map(\.message) == ["undefined variable 'reset' (saved so far: sent)"])
        #expect(diagnostics.first?.line == 10)
        // Nor can the delivery itself use a name nothing saved.
        let (_, own) = Self.parse("      - { path: /deliveries, json: { user: \"{{nobody}}\" } }")
        #expect(own.map(\.message) == ["undefined variable 'nobody' (saved so far: sent)"])
    }

    @Test func brokenDeliveriesAreReportedWithFileLineAndReason() {
        let cases: [(String, String)] = [
            (
                "      - { path: /deliveries, retries: 3 }",
                "unknown key 'retries' in a delivery (allowed: method, path, headers, json, within, save)"
            ),
            ("      - { method: POST }", "a delivery needs 'path'"),
            ("      - { path: /deliveries, within: 0 }", "within must be a positive number of seconds, not 0"),
            ("      - { path: /deliveries, within: -2 }", "within must be a positive number of seconds, not -2"),
            ("      - { path: /deliveries, json: { token: x }, save: { t: token } }", "a delivery saves from its JSON body"),
            ("      - { path: /deliveries, json: { token: x }, save: { t: \"$.\" } }", "invalid source for 't'"),
            ("      - { path: /deliveries, save: { t: $.token } }", "saving $.token needs the delivery's json"),
            ("      - { path: deliveries }", "a delivery's path must start with '/'"),
            ("    delivers: nope", "delivers must be a list of deliveries, not text"),
        ]
        for (yaml, reason) in cases {
            let (contract, diagnostics) =
                yaml.hasPrefix("    delivers:")
                ? ContractLoader.parse(
                    yaml:
                        "name: R\ninteractions:\n  - name: x\n    request: { method: POST, path: /r }\n    response: { status: 202 }\n\(yaml)\n",
                    file: "r.yaml"
                )
                : Self.parse(yaml)
            #expect(contract == nil, "\(yaml)")
            #expect(diagnostics.count == 1, "\(yaml): \(diagnostics)")
            #expect(diagnostics.first?.message.contains(reason) == true, "\(yaml): \(diagnostics)")
            #expect(diagnostics.first?.file.hasSuffix(".yaml") == true)
            #expect((diagnostics.first?.line ?? 0) >= 6, "\(yaml): \(diagnostics)")
        }
    }

    @Test func aReceivedDeliveryIsMatchedLikeAResponseAndSavedFrom() throws {
        let (contract, _) = Self.parse(Self.valid)
        let delivery = try #require(contract?.interactions.first?.delivers.first)
        let (expected, undefined) = delivery.resolved(with: ["sent": .string("alice")])
        #expect(undefined == [])
        let token = String(repeating: "t", count: 40)
        let signature = "t=1,v1=" + String(repeating: "a", count: 64)
        let good = ContractRequest(
            method: "POST", target: "/deliveries", headers: [("authd-signature", signature)],
            body: Data(#"{"kind":"password_reset","token":"\#(token)","username":"alice","extra":1}"#.utf8)
        )
        #expect(expected.mismatches(in: good) == [])
        #expect(expected.captures(from: good).values == ["reset": .string(token)])

        let bad = ContractRequest(
            method: "PUT", target: "/elsewhere", body: Data(#"{"kind":"password_reset","token":"short","username":"bob"}"#.utf8))
        #expect(
            expected.mismatches(in: bad).map(\.path) == ["method", "path", "header authd-signature", "$.token", "$.username"]
        )
        #expect(delivery.resolved(with: [:]).undefined == ["sent"])
    }
}
