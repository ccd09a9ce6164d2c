import AuthCore
import AuthPostgres
import AuthTestSupport
import Foundation
import Testing

/// The second factors' and login challenges' tables: what one step each, under races, and
/// retention.
@Suite struct SecondFactorRepositoryTests {
    /// Twenty requests racing with one step of one code: one accepts it. So do twenty with one
    /// recovery code, and twenty using one challenge, whose attempts hold under the race too.
    @Test func aStepARecoveryCodeAndAChallengeAreEachTakenOnceUnderARace() async throws {
        try await TestCluster.withMigratedDatabase { database, _ in
            let user = try await PostgresUserRepository(database: database).create(
                username: try Username("alice"), passwordHash: "h", at: Date())
            let factors = PostgresSecondFactorRepository(database: database)
            let challenges = PostgresLoginChallengeRepository(database: database)
            let now = Date()
            #expect(try await factors.beginTOTP(userID: user.id, sealedSecret: Data([1, 2, 3]), now: now))
            #expect(try await factors.confirmTOTP(userID: user.id, step: 100, recoveryCodeHashes: ["a", "b"], now: now))
            #expect(try await !factors.beginTOTP(userID: user.id, sealedSecret: Data([4]), now: now), "TOTP is on: no new enrolment")
            try await challenges.store(
                LoginChallenge(
                    tokenHash: "t", kind: .secondFactor, userID: user.id, passwordHash: "h", createdAt: now,
                    expiresAt: now.addingTimeInterval(300), attemptsLeft: 5
                ))

            func race(_ attempt: @escaping @Sendable () async throws -> Bool) async throws -> Int {
                try await withThrowingTaskGroup(of: Bool.self) { group in
                    for _ in 0..<20 { group.addTask { try await attempt() } }
                    return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                }
            }
            #expect(try await race { try await factors.useTOTPStep(userID: user.id, step: 101) } == 1)
            #expect(try await race { try await factors.useRecoveryCode(userID: user.id, codeHash: "a", now: now) } == 1)
            // Twenty answers at once on a token with five attempts: five are let through to
            // be checked; the last of them can still take it.
            #expect(try await race { try await challenges.reserveAttempt(tokenHash: "t", kind: .secondFactor, now: now) != nil } == 5)
            #expect(try await race { try await challenges.take(tokenHash: "t", kind: .secondFactor, now: now) != nil } == 1)
            // An earlier step, the same step, or a used code: refused; a later step: taken.
            #expect(try await !factors.useTOTPStep(userID: user.id, step: 100))
            #expect(try await !factors.useTOTPStep(userID: user.id, step: 101))
            #expect(try await factors.useTOTPStep(userID: user.id, step: 102))
            #expect(try await factors.recoveryCodesLeft(userID: user.id) == 1)
            // Proved against a password the account no longer has: nothing removed.
            #expect(try await !factors.deleteTOTP(userID: user.id, whileUnchanged: CheckedAccount(userID: user.id, passwordHash: "stale")))
            #expect(try await factors.recoveryCodesLeft(userID: user.id) == 1)
            #expect(try await factors.deleteTOTP(userID: user.id, whileUnchanged: CheckedAccount(user)))
            #expect(try await factors.recoveryCodesLeft(userID: user.id) == 0)
            #expect(try await factors.totpFactor(userID: user.id) == nil)
        }
    }

    /// A challenge stops working when it expires, is used, or runs out of attempts; the
    /// ended ones are deleted by retention, the live one stays.
    @Test func challengesEndAndEndedOnesAreDeleted() async throws {
        try await TestCluster.withMigratedDatabase { database, _ in
            let user = try await PostgresUserRepository(database: database).create(
                username: try Username("bob"), passwordHash: "h", at: Date())
            let challenges = PostgresLoginChallengeRepository(database: database)
            let now = Date()
            for (hash, expiresIn) in [("old", -3_600.0), ("used", 300), ("worn", 300), ("live", 300)] {
                try await challenges.store(
                    LoginChallenge(
                        tokenHash: hash, kind: .passkeyAuthentication, userID: hash == "live" ? nil : user.id, passwordHash: nil,
                        createdAt: now, expiresAt: now.addingTimeInterval(expiresIn), attemptsLeft: 1
                    ))
            }
            #expect(try await challenges.challenge(tokenHash: "old", kind: .passkeyAuthentication, now: now) == nil)
            #expect(try await challenges.challenge(tokenHash: "live", kind: .secondFactor, now: now) == nil, "another kind")
            #expect(
                try await challenges.take(tokenHash: "used", kind: .passkeyAuthentication, now: now.addingTimeInterval(-7_200))?.tokenHash
                    == "used")
            #expect(try await challenges.reserveAttempt(tokenHash: "worn", kind: .passkeyAuthentication, now: now)?.attemptsLeft == 0)
            #expect(try await challenges.challenge(tokenHash: "worn", kind: .passkeyAuthentication, now: now) == nil)
            #expect(try await challenges.reserveAttempt(tokenHash: "worn", kind: .passkeyAuthentication, now: now) == nil)
            #expect(try await challenges.challenge(tokenHash: "live", kind: .passkeyAuthentication, now: now)?.userID == nil)
            // Ended before an hour ago: the expired one and the one used two hours ago.
            #expect(try await challenges.deleteEnded(before: now.addingTimeInterval(-60), limit: 10) == 2)
            #expect(try await challenges.challenge(tokenHash: "live", kind: .passkeyAuthentication, now: now) != nil)
        }
    }
}
