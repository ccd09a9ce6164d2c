import ContractKit
import ContractRunner
import Foundation
import Synchronization
import Testing

/// The codes `contract verify` sends: never one step twice for a key.
@Suite struct TOTPCodeGeneratorTests {
    /// A clock that moves only when the generator sleeps.
    final class TestClock: Sendable {
        let time: Mutex<Date>
        let slept = Mutex<[Duration]>([])

        init(_ start: Date) { time = Mutex(start) }

        var now: @Sendable () -> Date { { self.time.withLock { $0 } } }
        var sleep: @Sendable (Duration) async throws -> Void {
            { duration in
                self.slept.withLock { $0.append(duration) }
                let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
                self.time.withLock { $0 += seconds }
            }
        }
    }

    @Test func theNextStepComesWhenTheCurrentOneIsUsedThenItWaits() async throws {
        // 10 s into a step.
        let clock = TestClock(Date(timeIntervalSince1970: 1_700_000_010))
        let codes = TOTPCodeGenerator(now: clock.now, sleep: clock.sleep)
        let totp = try TOTP(secret: "JBSWY3DPEHPK3PXP")
        let step = totp.step(at: clock.now())

        #expect(try codes.code(for: totp) == totp.code(step: step))
        #expect(try codes.code(for: totp) == totp.code(step: step + 1))
        #expect(throws: TOTPCodeGenerator.StepsUsed.self) { try codes.code(for: totp) }
        // Another key has steps of its own.
        let other = try TOTP(secret: "MZXW6YTBOI")
        #expect(try codes.code(for: other) == other.code(step: step))

        // Rendering waits for the next step (20 s here), then sends the step after it.
        let withCode = RequestSpec(
            method: "POST", path: try RequestPath("/login/mfa"),
            body: .json(Matcher(.object(["code": Matcher(.totp(TOTPSpec(secret: "{{totp_secret}}")))])))
        )
        let request = try await withCode.render(with: ["totp_secret": "JBSWY3DPEHPK3PXP"], waitingFor: codes)
        #expect(clock.slept.withLock { $0.count } == 1)
        #expect(totp.step(at: clock.now()) == step + 1)
        #expect(try JSONValue(parsing: request.body ?? Data())["code"] == .string(totp.code(step: step + 2)))
    }

    @Test func aRunNeverSendsOneStepTwice() async throws {
        let clock = TestClock(Date(timeIntervalSince1970: 1_700_000_029))
        let codes = TOTPCodeGenerator(now: clock.now, sleep: clock.sleep)
        let totp = try TOTP(secret: "JBSWY3DPEHPK3PXP", period: 30)
        let spec = RequestSpec(
            method: "POST", path: try RequestPath("/login/mfa"),
            body: .json(Matcher(.object(["code": Matcher(.totp(TOTPSpec(secret: "JBSWY3DPEHPK3PXP")))])))
        )
        var steps: [Int64] = []
        for _ in 0..<8 {
            let request = try await spec.render(with: [:], waitingFor: codes)
            guard case .string(let code)? = try JSONValue(parsing: request.body ?? Data())["code"],
                let step = totp.step(of: code, near: clock.now())
            else {
                Issue.record("no code valid within a step of the clock")
                return
            }
            steps.append(step)
            // The provider's window: within one step of its clock when sent.
            #expect(abs(step - totp.step(at: clock.now())) <= 1)
        }
        #expect(steps == steps.sorted() && Set(steps).count == steps.count, "\(steps)")
    }
}
