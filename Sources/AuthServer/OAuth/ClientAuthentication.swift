import AuthCore
import Foundation
import WebForms

/// How a relying party named itself on an OAuth endpoint (RFC 6749 §2.3.1): HTTP Basic with
/// its id and secret, each form-encoded first (`client_secret_basic`), or `client_id` and
/// `client_secret` in the form (`client_secret_post`); never both.
///
/// ```swift
/// let credentials = try ClientAuthentication(authorization: request.headers[.authorization], form: form)
/// ```
struct ClientAuthentication: Sendable, Equatable {
    /// The `client_id`.
    let clientID: String
    /// The secret; nil for a client that sent only its id (a public client).
    let secret: String?

    /// The auth methods the metadata lists.
    static let methods = ["client_secret_basic", "client_secret_post"]

    /// Reads the credentials; nil when the request carries none.
    /// - Throws: ``AuthError/invalidClient`` for an `Authorization` header that is not a
    ///   well-formed Basic credential, `invalid_request` for two methods at once.
    init?(authorization: String?, form: FormRequestBody) throws {
        let posted = (form["client_id"], form["client_secret"])
        guard let authorization else {
            guard let id = posted.0 else {
                if posted.1 != nil { throw AuthError.invalidRequest("client_secret needs a client_id") }
                return nil
            }
            self.init(clientID: id, secret: posted.1)
            return
        }
        guard let credentials = BasicCredentials.decode(authorization),
            let id = FormEncoding.unescape(credentials.username), let secret = FormEncoding.unescape(credentials.password)
        else {
            throw AuthError.invalidClient
        }
        guard posted.1 == nil, posted.0 == nil || posted.0 == id else {
            throw AuthError.invalidRequest("Use one client authentication method: HTTP Basic or client_id and client_secret in the form.")
        }
        self.init(clientID: id, secret: secret)
    }

    private init(clientID: String, secret: String?) {
        self.clientID = clientID
        self.secret = secret
    }
}
