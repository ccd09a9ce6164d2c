import ContractKit
import ContractRunner
import ContractStub
import Foundation
import Testing

/// The stub and `totp` request matchers: a code of the saved key, within a step of the
/// stub's clock, once.
@Suite struct TOTPStubTests {
    static let contract = """
        name: TOTP
        interactions:
          - name: enrol
            request: { method: POST, path: /mfa/totp }
            response: { status: 200, json: { secret: { match: regex, pattern: "[A-Z2-7]{16}", example: JBSWY3DPEHPK3PXP } } }
            save: { totp_secret: $.secret }
          - name: a valid code logs in
            request: { method: POST, path: /login/mfa, json: { code: { match: totp, secret: "{{totp_secret}}" } } }
            response: { status: 200, json: { by: totp } }
            save: { used: request.json.code }
          - name: the code just used is refused
            request: { method: POST, path: /login/mfa, json: { code: "{{used}}" } }
            response: { status: 401, json: { error: replayed } }
          - name: a wrong code is refused
            request: { method: POST, path: /login/mfa, json: { code: { match: regex, pattern: "[0-9]{6}", example: "000000" } } }
            response: { status: 401, json: { error: invalid_code } }
        """
    /// 10 s into a time step.
    static let now = Date(timeIntervalSince1970: 1_700_000_010)
    static let totp: TOTP = {
        do { return try TOTP(secret: "JBSWY3DPEHPK3PXP") } catch { fatalError("\(error)") }
    }()
    static let step = totp.step(at: now)

    /// A stub on the fixed clock that has answered the enrolment.
    func enrolledStub(_ yaml: String = contract) throws -> ContractStub {
        let stub = try ContractStub(contracts: [try loadContract(yaml)], now: { Self.now })
        let enrolment = stub.respond(to: ContractRequest(method: "POST", target: "/mfa/totp"))
        #expect(enrolment.json?["secret"] == .string("JBSWY3DPEHPK3PXP"))
        return stub
    }

    /// `STATUS by` or `STATUS error`: what answered a code.
    func send(_ code: String, to stub: ContractStub) -> String {
        let response = stub.respond(to: post("/login/mfa", JSONValue.object(["code": .string(code)]).description))
        if case .string(let by)? = response.json?["by"] { return "\(response.status) \(by)" }
        if case .string(let error)? = response.json?["error"] { return "\(response.status) \(error)" }
        return "\(response.status)"
    }

    /// A code of `totp` that is not valid near ``now``.
    static func wrongCode(of totp: TOTP) -> String {
        var candidate = 0
        while true {
            let code = String(format: "%06d", candidate)
            if totp.step(of: code, near: now) == nil { return code }
            candidate += 1
        }
    }

    @Test func aValidCodeIsTakenOnceAndAWrongOneIsRefused() throws {
        let stub = try enrolledStub()
        let code = Self.totp.code(step: Self.step)
        // A valid code beats the regex of the wrong-code interaction (a literal's 4 to its 3).
        #expect(send(code, to: stub) == "200 totp")
        // The same code again is the saved one: the replay's interaction answers.
        #expect(send(code, to: stub) == "401 replayed")
        #expect(send(Self.wrongCode(of: Self.totp), to: stub) == "401 invalid_code")
        // A code of another key is no code of this one.
        let other = try TOTP(secret: "MZXW6YTBOIAAAAAA")
        let otherCode = other.code(step: Self.step)
        if Self.totp.step(of: otherCode, near: Self.now) == nil { #expect(send(otherCode, to: stub) == "401 invalid_code") }
        #expect(stub.unmatched.isEmpty)
    }

    @Test func aStepAtOrBeforeTheLastOneTakenIsAReplay() throws {
        let stub = try enrolledStub()
        #expect(send(Self.totp.code(step: Self.step + 1), to: stub) == "200 totp")
        // An earlier step's code, valid by the clock, is refused: not the saved code, so the
        // wrong-code interaction answers.
        #expect(send(Self.totp.code(step: Self.step), to: stub) == "401 invalid_code")
        #expect(send(Self.totp.code(step: Self.step - 1), to: stub) == "401 invalid_code")
    }

    @Test(arguments: [(Int64(-1), true), (0, true), (1, true), (-2, false), (2, false)])
    func codesWithinOneStepOfTheClockAreTaken(offset: Int64, taken: Bool) throws {
        let stub = try enrolledStub()
        let code = Self.totp.code(step: Self.step + offset)
        let expected = taken || Self.totp.step(of: code, near: Self.now) != nil ? 200 : 401
        #expect(send(code, to: stub).hasPrefix("\(expected)"))
    }

    @Test func withoutTheWrongCodeInteractionARefusalNamesWhy() throws {
        let yaml = String(Self.contract[..<(Self.contract.range(of: "  - name: the code just used")?.lowerBound ?? Self.contract.endIndex)])
        let stub = try enrolledStub(yaml)
        let code = Self.totp.code(step: Self.step)
        #expect(send(code, to: stub) == "200 totp")
        #expect(send(code, to: stub).hasPrefix("501"))
        #expect(
            stub.unmatched.last?.difference.contains("is of a step at or before one already used (a replay)") == true, "\(stub.unmatched)")
        #expect(send(Self.wrongCode(of: Self.totp), to: stub).hasPrefix("501"))
        #expect(
            stub.unmatched.last?.difference.contains("expected a 6-digit TOTP code of {{totp_secret}} valid now") == true,
            "\(stub.unmatched)")
    }

    @Test func beforeTheEnrolmentTheKeyIsUnknownAndAnyValueFitsAsAPlaceholder() throws {
        let stub = try ContractStub(contracts: [try loadContract(Self.contract)], now: { Self.now })
        // An unknown placeholder scores 1: the regex (3) answers a code-shaped value, and the
        // totp interaction anything else.
        #expect(send("123456", to: stub) == "401 invalid_code")
        #expect(send("not a code", to: stub) == "200 totp")
    }

    @Test func headersAndQueryParametersTakeCodesToo() throws {
        let yaml = """
            name: Places
            interactions:
              - name: enrol
                request: { method: POST, path: /mfa/totp }
                response: { status: 200, json: { secret: JBSWY3DPEHPK3PXP } }
                save: { totp_secret: $.secret }
              - name: a header
                request: { method: GET, path: /secure, headers: { X-OTP: { match: totp, secret: "{{totp_secret}}", digits: 8 } } }
                response: { status: 200 }
              - name: a query parameter
                request: { method: GET, path: /secure, query: { otp: { match: totp, secret: "{{totp_secret}}", algorithm: SHA512 } } }
                response: { status: 204 }
            """
        let stub = try enrolledStub(yaml)
        let eight = try TOTP(secret: "JBSWY3DPEHPK3PXP", digits: 8)
        let sha512 = try TOTP(secret: "JBSWY3DPEHPK3PXP", algorithm: .sha512)
        #expect(
            stub.respond(to: ContractRequest(method: "GET", target: "/secure", headers: [("X-OTP", eight.code(at: Self.now))])).status
                == 200)
        #expect(
            stub.respond(to: ContractRequest(method: "GET", target: "/secure", headers: [("X-OTP", eight.code(at: Self.now))])).status
                == 501)
        // What the verifier sends from the stub's own secret is what the stub takes.
        let codes = TOTPCodeGenerator(now: { Self.now })
        let sent = try loadContract(yaml).interactions[2].request.render(with: ["totp_secret": "JBSWY3DPEHPK3PXP"], codes: codes)
        #expect(stub.respond(to: sent).status == 204, "\(stub.unmatched)")
        #expect(stub.respond(to: ContractRequest(method: "GET", target: "/secure?otp=\(sha512.code(step: Self.step + 1))")).status == 204)
        #expect(stub.respond(to: ContractRequest(method: "GET", target: "/secure?otp=\(Self.wrongCode(of: sha512))")).status == 501)
    }

    @Test func resetForgetsTheStepsTaken() throws {
        let stub = try enrolledStub()
        let code = Self.totp.code(step: Self.step)
        #expect(send(code, to: stub) == "200 totp")
        stub.reset()
        _ = stub.respond(to: ContractRequest(method: "POST", target: "/mfa/totp"))
        #expect(send(code, to: stub) == "200 totp")
    }
}
