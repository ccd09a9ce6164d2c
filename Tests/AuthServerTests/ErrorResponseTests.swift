import AuthCore
import AuthServer
import Foundation
import HTTPTypes
import Hummingbird
import Testing

@Suite struct ErrorResponseTests {
    @Test(arguments: [
        (AuthError.invalidRequest("x"), 400),
        (AuthError.invalidCredentials, 401),
        (AuthError.accountDisabled, 401),
        (AuthError.invalidToken, 401),
        (AuthError.tooManyAttempts(retryAfter: 3), 429),
        (AuthError.serviceUnavailable(), 503),
        (AuthError.internalError, 500),
        (AuthError.usernameTaken, 409),
        (AuthError.weakPassword("password is one of the 10,000 most common passwords"), 422),
        (AuthError.notFound("no user named 'x'"), 404),
    ])
    func authErrorsHaveTheirStatus(error: AuthError, status: Int) {
        #expect(error.status.code == status)
        #expect(error.response().status.code == status)
        #expect(error.response().headers[.cacheControl] == "no-store")
    }

    @Test(arguments: [
        (HTTPRequestError.notFound, "not_found", 404),
        (HTTPRequestError.methodNotAllowed(allow: ["GET"]), "method_not_allowed", 405),
        (HTTPRequestError.requestTooLarge(limit: 10), "request_too_large", 413),
        (HTTPRequestError.unsupportedMediaType, "unsupported_media_type", 415),
        (HTTPRequestError.malformed, "invalid_request", 400),
        (HTTPRequestError.headersTooLarge, "request_header_fields_too_large", 431),
    ])
    func httpOnlyErrorsHaveTheSameShape(error: HTTPRequestError, code: String, status: Int) {
        #expect(error.code.rawValue == code)
        #expect(error.status.code == status)
        let response = error.response()
        #expect(response.status.code == status)
        #expect(response.headers[.cacheControl] == "no-store")
        #expect(response.headers[.contentType] == "application/json; charset=utf-8")
    }

    @Test func methodNotAllowedSaysWhatIsAllowed() {
        #expect(HTTPRequestError.methodNotAllowed(allow: ["GET", "HEAD"]).response().headers[.allow] == "GET, HEAD")
    }
}
