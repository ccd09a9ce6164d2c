import Crypto
import Foundation
import JOSE
import Synchronization

/// The client secret Sign in with Apple asks for at its token and revocation endpoints: a
/// JWT that authd signs with the team's key (ES256), naming the team (`iss`), the client
/// (`sub`) and Apple (`aud`), as Apple's "Creating a client secret" describes. Apple takes
/// one for up to six months; authd makes one that lives a day and makes the next when less
/// than an hour is left.
///
/// ```swift
/// let secrets = AppleClientSecret(teamID: "ABCDE12345", keyID: "KEY123ABCD", key: privateKey)
/// let secret = secrets.secret(for: "com.example.app", now: Date())
/// ```
public final class AppleClientSecret: Sendable {
    /// Apple's issuer, the secret's `aud`.
    public static let audience = "https://appleid.apple.com"
    /// How long a secret is good for.
    public static let lifetime: TimeInterval = 86_400
    /// How much of its life must be left for a secret to be used again.
    public static let renewal: TimeInterval = 3_600

    /// The Apple Developer team id.
    public let teamID: String
    /// The key's id.
    public let keyID: String
    private let key: P256.Signing.PrivateKey
    private let made = Mutex<[String: (secret: String, expires: Date)]>([:])

    /// Secrets of `key` (the team's Sign in with Apple key, `keyID`).
    public init(teamID: String, keyID: String, key: P256.Signing.PrivateKey) {
        self.teamID = teamID
        self.keyID = keyID
        self.key = key
    }

    /// The secret for `clientID` at `now`: the one made before while it has more than
    /// ``renewal`` left, else a new one.
    public func secret(for clientID: String, now: Date) -> String {
        if let kept = made.withLock({ $0[clientID] }), kept.expires.timeIntervalSince(now) > Self.renewal,
            kept.expires.timeIntervalSince(now) <= Self.lifetime
        {
            return kept.secret
        }
        let issued = Int(now.timeIntervalSince1970)
        let expires = issued + Int(Self.lifetime)
        let header = Data(#"{"alg":"ES256","kid":"\#(Self.escaped(keyID))","typ":"JWT"}"#.utf8)
        let claims: [String: Any] = ["iss": teamID, "iat": issued, "exp": expires, "aud": Self.audience, "sub": clientID]
        let payload = (try? JSONSerialization.data(withJSONObject: claims, options: .sortedKeys)) ?? Data()
        let secret = CompactJWS.serialize(header: header, payload: payload) { input in
            (try? key.signature(for: input).rawRepresentation) ?? Data()
        }
        made.withLock { $0[clientID] = (secret, Date(timeIntervalSince1970: TimeInterval(expires))) }
        return secret
    }

    /// `text` safe inside a JSON string (a key id is letters and digits; anything else is dropped).
    private static func escaped(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0.isASCII && CharacterSet.alphanumerics.contains($0) }.map(Character.init))
    }
}
