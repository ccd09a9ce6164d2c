import ArgumentParser
import AuthCore
import AuthServer
import Foundation

/// `--delivery-url` and its secret: where password-reset and email-verification messages
/// go, and the limits of asking for them.
struct DeliveryOptions: ParsableArguments {
    @Option(
        name: .customLong("delivery-url"),
        help: ArgumentHelp(
            "POST password-reset and email-verification messages (JSON, signed with Authd-Signature) to this URL; enables POST /password/reset, /password/reset/confirm and /email/verify. Default: $AUTHD_DELIVERY_URL, else none (the routes are 404).",
            valueName: "url"
        )
    )
    var deliveryURL: String?

    @Option(
        name: .customLong("delivery-secret-file"),
        help: ArgumentHelp(
            "The file holding the secret the Authd-Signature HMAC is computed with (at least 16 bytes; surrounding white space is ignored). Default: $AUTHD_DELIVERY_SECRET holds the secret itself.",
            valueName: "file"
        )
    )
    var deliverySecretFile: String?

    @Option(
        name: .customLong("delivery-timeout"),
        help: "Seconds one post to the delivery URL may take; a message whose sender died is sent again after three times this."
    )
    var deliveryTimeout = Int(DeliveryPolicy().timeout)

    @Option(name: .customLong("reset-token-ttl"), help: "Password-reset token lifetime in seconds.")
    var resetTokenLifetime = Int(RecoveryLifetimes().passwordReset)

    @Option(
        name: .customLong("recovery-limit"), help: "Password resets asked and account tokens presented from one client address in an hour.")
    var recoveryLimit = ThrottlePolicy().recoveryLimit

    @Option(
        name: .customLong("recovery-limit-per-account"),
        help: "Password resets asked for one username or email address in an hour, from all addresses.")
    var recoveryTargetLimit = ThrottlePolicy().recoveryTargetLimit

    func validate() throws {
        guard deliveryTimeout > 0, resetTokenLifetime > 0, recoveryLimit > 0, recoveryTargetLimit > 0 else {
            throw ValidationError(
                "--delivery-timeout, --reset-token-ttl, --recovery-limit and --recovery-limit-per-account must be positive.")
        }
    }

    /// The configuration of the options and environment; nil without a delivery URL.
    /// - Throws: ``CLIError`` when the URL is set without a secret, or either is unusable.
    func configuration() throws -> DeliveryConfiguration? {
        guard let url = deliveryURL ?? Environment.value("AUTHD_DELIVERY_URL") else { return nil }
        let secret: Data
        if let deliverySecretFile {
            guard let contents = FileManager.default.contents(atPath: deliverySecretFile) else {
                throw CLIError("cannot read --delivery-secret-file \(deliverySecretFile)")
            }
            secret = Data(String(decoding: contents, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        } else if let value = Environment.value("AUTHD_DELIVERY_SECRET") {
            secret = Data(value.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        } else {
            throw CLIError("--delivery-url needs a signing secret: --delivery-secret-file FILE or AUTHD_DELIVERY_SECRET")
        }
        do {
            var configuration = try DeliveryConfiguration(url: url, secret: secret)
            configuration.lifetimes.passwordReset = TimeInterval(resetTokenLifetime)
            configuration.policy.timeout = TimeInterval(deliveryTimeout)
            return configuration
        } catch let error as DeliveryConfigurationError {
            throw CLIError(error.description)
        }
    }

    /// Sets the recovery limits of `throttle`.
    func apply(to throttle: inout ThrottlePolicy) {
        throttle.recoveryLimit = recoveryLimit
        throttle.recoveryTargetLimit = recoveryTargetLimit
    }
}
