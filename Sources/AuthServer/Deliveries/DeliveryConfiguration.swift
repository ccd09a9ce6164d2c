import AuthCore
import Crypto
import Foundation

/// Where authd delivers password-reset and email-verification messages (`serve
/// --delivery-url`, with the signing secret of `--delivery-secret-file` or
/// `AUTHD_DELIVERY_SECRET`), and how.
///
/// ```swift
/// configuration.delivery = try DeliveryConfiguration(url: "https://mailer.internal/authd", secret: Data(secretText.utf8))
/// ```
public struct DeliveryConfiguration: Sendable {
    /// The URL every message is posted to.
    public var url: URL
    /// The secret of the `Authd-Signature` HMAC, shared with the receiver.
    public var secret: SymmetricKey
    /// Batches, lease, timeout, backoff, polling.
    public var policy = DeliveryPolicy()
    /// How long tokens work.
    public var lifetimes = RecoveryLifetimes()

    /// A configuration posting to `url` (http or https), signing with `secret` (at least
    /// 16 bytes).
    /// - Throws: ``DeliveryConfigurationError`` naming what is wrong (never the secret).
    public init(url: String, secret: Data) throws {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), ["http", "https"].contains(scheme),
            parsed.host != nil
        else {
            throw DeliveryConfigurationError("the delivery URL must be an http:// or https:// URL with a host")
        }
        guard secret.count >= 16 else {
            throw DeliveryConfigurationError("the delivery secret must be at least 16 bytes (found \(secret.count))")
        }
        self.url = parsed
        self.secret = SymmetricKey(data: secret)
    }
}

/// A delivery configuration that cannot work.
///
/// ```swift
/// catch let error as DeliveryConfigurationError { print(error) }
/// ```
public struct DeliveryConfigurationError: Error, Sendable, CustomStringConvertible {
    /// What is wrong.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
