import Foundation
import JOSE

/// What authd's pages remember of one browser between two requests: kept in the browser
/// itself, sealed by ``BrowserSessionSealer`` (so neither read nor changed there), with the
/// anti-forgery token its forms carry and the token of an emailed link while its page is
/// open. The link's token moves here from the URL at once, so it is neither in the address
/// bar, the history nor a `Referer` while the page is filled in.
///
/// ```swift
/// var session = BrowserSession.start(now: clock.now)
/// session.pending = .init(purpose: .passwordReset, token: tokenFromTheLink)
/// session.acceptsForm(csrfToken: form["csrf"])   // constant-time
/// ```
public struct BrowserSession: Sendable, Equatable, Codable {
    /// How long a browser session lasts from its start: long enough to read the email and
    /// type a password, no longer than the tokens it may carry.
    public static let lifetime: TimeInterval = 30 * 60

    /// A random id (128 bits, base64url).
    public var id: String
    /// The token every form of the session carries (256 bits, base64url): a page of another
    /// site cannot read it, so it cannot forge a form that has it.
    public var csrfToken: String
    /// When it ends.
    public var expiresAt: Date
    /// The token of the emailed link the browser came with, until it is used.
    public var pending: PendingToken?
    /// What the last form did, for the page that says so (post/redirect/get).
    public var completed: Completion?
    /// The account signed in on this browser, once it has.
    public var signIn: BrowserSignIn?
    /// The `mfa_token` of a sign-in waiting for its second factor. Never log it.
    public var secondFactorToken: String?
    /// The authorization request a sign-in just made on its page's script (a passkey) is for
    /// (a digest of its parameters): that request, once, goes on as the sign-in's own.
    public var resumes: String?
    /// A provider sign-in whose identity waits to be linked to an existing account: offered
    /// to that account once it has signed in on this browser.
    public var linking: PendingLink?
    /// The methods of the first step of a sign-in waiting for its second factor (RFC 8176):
    /// `pwd` unless said.
    public var firstMethods: [String]?

    /// A provider sign-in's `link_required` token, with the provider's name.
    public struct PendingLink: Sendable, Equatable, Codable {
        /// The provider's name.
        public var provider: String
        /// The link's token. Never log it.
        public var token: String

        /// Creates the value.
        public init(provider: String, token: String) {
            self.provider = provider
            self.token = token
        }
    }

    /// The token of an emailed link, with what it is for.
    public struct PendingToken: Sendable, Equatable, Codable {
        /// An ``AccountTokenPurpose``'s raw value.
        public var purpose: String
        /// The token. Never log it.
        public var token: String

        /// A pending token for `purpose`.
        public init(purpose: AccountTokenPurpose, token: String) {
            self.purpose = purpose.rawValue
            self.token = token
        }
    }

    /// A form that worked: which page's, and the account's name.
    public struct Completion: Sendable, Equatable, Codable {
        /// The page's name.
        public var page: String
        /// The account's username.
        public var username: String

        /// A completion of `page` for `username`.
        public init(page: String, username: String) {
            self.page = page
            self.username = username
        }
    }

    enum CodingKeys: String, CodingKey {
        case id, pending, completed
        case signIn = "sign_in"
        case secondFactorToken = "mfa"
        case resumes
        case linking = "link"
        case firstMethods = "amr1"
        case csrfToken = "csrf"
        case expiresAt = "exp"
    }

    /// A new session, with fresh random id and anti-forgery token.
    public static func start(now: Date) -> BrowserSession {
        BrowserSession(
            id: SecureRandom.base64URLText(length: 22), csrfToken: SecureRandom.base64URLText(length: 43),
            expiresAt: now.addingTimeInterval(lifetime), pending: nil, completed: nil, signIn: nil, secondFactorToken: nil, resumes: nil,
            linking: nil, firstMethods: nil)
    }

    /// The session signed in as `signIn`, lasting ``BrowserSignIn/lifetime`` from then, with
    /// a new id and anti-forgery token (a session fixed before the sign-in is not the one
    /// after it) and no second step left waiting; a provider's identity waiting to be linked
    /// is kept, to be offered to the account.
    public func signedIn(as signIn: BrowserSignIn) -> BrowserSession {
        var next = BrowserSession.start(now: signIn.authTime)
        next.expiresAt = signIn.authTime.addingTimeInterval(BrowserSignIn.lifetime)
        next.signIn = signIn
        next.linking = linking
        return next
    }

    /// Whether a form's anti-forgery token is this session's (compared in constant time).
    public func acceptsForm(csrfToken presented: String?) -> Bool {
        guard let presented else { return false }
        return ConstantTime.equal(Array(presented.utf8), Array(csrfToken.utf8))
    }

    /// The pending token when it is for one of `purposes`.
    public func pendingToken(for purposes: Set<AccountTokenPurpose>) -> String? {
        guard let pending, let purpose = AccountTokenPurpose(rawValue: pending.purpose), purposes.contains(purpose) else { return nil }
        return pending.token
    }
}
