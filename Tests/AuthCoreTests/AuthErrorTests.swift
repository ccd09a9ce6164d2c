import AuthCore
import Crypto
import Foundation
import Testing

@Suite struct AuthErrorTests {
    @Test(arguments: [
        (AuthError.invalidRequest("x"), AuthError.Code.invalidRequest, "invalid_request"),
        (AuthError.invalidCredentials, .invalidCredentials, "invalid_credentials"),
        (AuthError.accountDisabled, .accountDisabled, "account_disabled"),
        (AuthError.invalidToken, .invalidToken, "invalid_token"),
        (AuthError.tooManyAttempts(retryAfter: 3), .tooManyAttempts, "too_many_attempts"),
        (AuthError.serviceUnavailable(), .serviceUnavailable, "service_unavailable"),
        (AuthError.internalError, .internalError, "server_error"),
    ])
    func codesCompareAsValuesAndSpellTheWireCode(error: AuthError, code: AuthError.Code, wire: String) {
        #expect(error.code == code)
        #expect(error.code.rawValue == wire)
    }

    @Test func codesDoNotDependOnTheDescription() {
        #expect(AuthError.invalidRequest("a").code == AuthError.invalidRequest("b").code)
        #expect(AuthError.invalidRequest("a") != AuthError.invalidRequest("b"))
        #expect(AuthError.invalidCredentials.code != AuthError.accountDisabled.code)
    }

    @Test func retryAfterIsAtLeastOneSecond() {
        #expect(AuthError.tooManyAttempts(retryAfter: 0).retryAfter == 1)
        #expect(AuthError.tooManyAttempts(retryAfter: 42).retryAfter == 42)
    }

    @Test func throttleKeysNeverHoldTheSubjectInClear() {
        let keys = ThrottlePolicy(accountLimit: 3, addressLimit: 9, window: 60).keys(usernameKey: "hunter2", address: "192.0.2.1")
        #expect(keys.all.map(\.scope) == [.account, .pair, .address])
        #expect(keys.account.subjectDigest == "f52fbd32b2b3b86ff88ef6c490628285f482af15ddcb29541f94bcf526a3f6c7")
        #expect(!keys.all.contains { $0.subjectDigest.contains("hunter2") })
        #expect(ThrottlePolicy().keys(usernameKey: "a", address: nil).all.count == 1)
    }

    /// Under a digest key, a subject's digest is an HMAC: not the SHA-256 a reader of the
    /// counters could compute for a guess, and different under another key.
    @Test func throttleKeysUnderADigestKeyCannotBeTestedWithoutIt() {
        var policy = ThrottlePolicy()
        policy.digestKey = SymmetricKey(size: .bits256)
        let keyed = policy.keys(usernameKey: "hunter2", address: "192.0.2.1")
        #expect(keyed.account.subjectDigest.count == 64)
        #expect(keyed.account.subjectDigest != SHA256.hexDigest(of: "hunter2"))
        #expect(keyed.account.subjectDigest == policy.keys(usernameKey: "hunter2", address: nil).account.subjectDigest)
        policy.digestKey = SymmetricKey(size: .bits256)
        #expect(policy.keys(usernameKey: "hunter2", address: nil).account.subjectDigest != keyed.account.subjectDigest)
    }
}
