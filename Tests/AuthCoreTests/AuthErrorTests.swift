import AuthCore
import Foundation
import Testing

@Suite struct AuthErrorTests {
    @Test(arguments: [
        (AuthError.invalidRequest("x"), "invalid_request", 400),
        (AuthError.invalidCredentials, "invalid_credentials", 401),
        (AuthError.accountDisabled, "account_disabled", 401),
        (AuthError.invalidToken, "invalid_token", 401),
        (AuthError.notFound, "not_found", 404),
        (AuthError.methodNotAllowed(allow: ["GET"]), "method_not_allowed", 405),
        (AuthError.requestTooLarge(limit: 10), "request_too_large", 413),
        (AuthError.unsupportedMediaType, "unsupported_media_type", 415),
        (AuthError.tooManyAttempts(retryAfter: 3), "too_many_attempts", 429),
        (AuthError.serviceUnavailable(), "service_unavailable", 503),
    ])
    func codesAndStatuses(error: AuthError, code: String, status: Int) {
        #expect(error.code == code)
        #expect(error.status == status)
    }

    @Test func retryAfterIsAtLeastOneSecond() {
        #expect(AuthError.tooManyAttempts(retryAfter: 0).retryAfter == 1)
        #expect(AuthError.tooManyAttempts(retryAfter: 42).retryAfter == 42)
    }

    @Test func throttleKeysNeverHoldTheSubjectInClear() {
        let keys = ThrottlePolicy(accountLimit: 3, addressLimit: 9, window: 60).keys(usernameKey: "hunter2", address: "192.0.2.1")
        #expect(keys.all.count == 2)
        #expect(keys.account.subjectDigest == "f52fbd32b2b3b86ff88ef6c490628285f482af15ddcb29541f94bcf526a3f6c7")
        #expect(!keys.all.contains { $0.subjectDigest.contains("hunter2") })
        #expect(ThrottlePolicy().keys(usernameKey: "a", address: nil).all.count == 1)
    }
}

@Suite struct Base64URLTests {
    @Test func roundTripsWithoutPadding() throws {
        let bytes = Data([0xfb, 0xff, 0x00, 0x10])
        let text = bytes.base64URLEncodedString()
        #expect(text == "-_8AEA")
        #expect(Data(base64URLEncoded: text) == bytes)
        #expect(Data(base64URLEncoded: "-_8") == Data([0xfb, 0xff]))
        #expect(Data(base64URLEncoded: "not base64!") == nil)
    }
}
