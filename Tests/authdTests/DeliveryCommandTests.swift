import AuthPostgres
import AuthTestSupport
import ContractTestSupport
import Foundation
import ProcessKit
import Testing

/// `authd serve --delivery-url`: the outbox as an operator runs it.
@Suite struct DeliveryCommandTests {
    static let password = "correct horse battery staple"

    /// authd is killed (SIGKILL) while it posts a reset message the receiver has not yet
    /// answered: the committed message is not lost. The next authd on the database sends
    /// it once the dead sender's lease (three times --delivery-timeout) runs out, and its
    /// token sets the password.
    @Test func aMessageSurvivesAuthdBeingKilledBeforeItWasDelivered() async throws {
        let database = try await TestCluster.newMigratedDatabase()
        let mailbox = TestMailbox()
        mailbox.hang(true)
        try await EphemeralServer.withRunning(mailbox.router()) { base in
            let url = ["--database-url", database.url]
            let light = ["--argon2-memory", "1024", "--argon2-iterations", "1"]
            let serve = url + light + ["--delivery-url", "\(base)/deliveries", "--delivery-timeout", "1"]
            let environment = AuthdBinary.environment(["AUTHD_DELIVERY_SECRET": "a shared secret of the mailer"])
            #expect(try await AuthdBinary.run(["user", "add", "kim", "--password-stdin"] + url + light, input: Self.password).status == 0)

            let (first, firstBase) = try await AuthdBinary.serve(serve, environment: environment)
            let (status, _) = try await AuthdBinary.post(firstBase, "password/reset", ["username": "kim"])
            #expect(status == 202)
            let deadline = ContinuousClock.now + .seconds(60)
            while mailbox.attempts == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
            // It has posted (and, with --delivery-timeout 1, perhaps posted again): never answered.
            #expect(mailbox.attempts >= 1, "authd did not start posting the message")
            first.send(SIGKILL)
            #expect(await first.waitForExit() == 128 + SIGKILL)
            mailbox.hang(false)
            #expect(mailbox.messages.isEmpty)

            let (second, secondBase) = try await AuthdBinary.serve(serve, environment: environment)
            defer { second.send(SIGKILL) }
            let message = try await mailbox.next(within: .seconds(60))
            #expect(message.json["username"] as? String == "kim")
            let token = try #require(message.json["token"] as? String)
            let (confirmed, _) = try await AuthdBinary.post(
                secondBase, "password/reset/confirm", ["token": token, "new_password": "a whole new passphrase"])
            #expect(confirmed == 204)
            #expect(try await AuthdBinary.login(secondBase, "kim", "a whole new passphrase").0 == 200)
            for output in [first.standardOutput, first.standardError, second.standardOutput, second.standardError] {
                #expect(!output.contains(token))
                #expect(!output.contains("a shared secret"))
            }
        }
    }

    /// A delivery URL without a secret, or with a short one, stops authd before it listens.
    @Test func aDeliveryURLNeedsASecret() async throws {
        let database = try await TestCluster.newMigratedDatabase()
        let without = try await AuthdBinary.run([
            "serve", "--database-url", database.url, "--delivery-url", "http://127.0.0.1:9/deliveries",
        ])
        #expect(without.status != 0)
        #expect(without.stderr.contains("needs a signing secret"))
        let short = try await AuthdBinary.run(
            ["serve", "--database-url", database.url, "--delivery-url", "http://127.0.0.1:9/deliveries"],
            environment: AuthdBinary.environment(["AUTHD_DELIVERY_SECRET": "short"])
        )
        #expect(short.status != 0)
        #expect(short.stderr.contains("at least 16 bytes"))
        #expect(!short.stderr.contains("short\n"))
    }
}
