import Crypto
import Foundation

/// Sends what the outbox holds: claims due messages, opens each token (a notice has none), posts the body
/// signed with ``DeliverySignature``, and records the outcome — delivered on a 2xx answer,
/// tried again after ``DeliveryPolicy/backoff(afterAttempts:)`` otherwise, given up once
/// the token has expired. Every authd instance runs one (`DeliveryRunner`); their claims
/// skip each other's rows.
///
/// ```swift
/// let sender = DeliveryService(storage: storage, transport: transport, secret: secret,
///                              sealer: DeliverySealer(keyEncryptionKey: kek))
/// let pass = try await sender.runOnce()
/// print(pass.delivered, pass.failed, pass.abandoned)
/// ```
public struct DeliveryService<Storage: AuthStorage>: Sendable {
    /// The outbox and the audit log.
    public let storage: Storage
    /// Where messages go.
    public let transport: any DeliveryTransport
    /// The secret the signature is computed with (shared with the receiver).
    public let secret: SymmetricKey
    /// Opens the queued tokens.
    public let sealer: DeliverySealer
    /// Batches, lease, backoff.
    public let policy: DeliveryPolicy
    /// The time of claims, signatures and retries.
    public let clock: any WallClock
    /// Where outcomes are counted.
    public let metrics: AuthMetrics
    /// The pages tokens link to; nil: messages carry no link.
    public let links: DeliveryLinks?

    /// Creates the sender.
    public init(
        storage: Storage, transport: any DeliveryTransport, secret: SymmetricKey, sealer: DeliverySealer,
        policy: DeliveryPolicy = DeliveryPolicy(), clock: any WallClock = SystemClock(), metrics: AuthMetrics = AuthMetrics(),
        links: DeliveryLinks? = nil
    ) {
        self.storage = storage
        self.transport = transport
        self.secret = secret
        self.sealer = sealer
        self.policy = policy
        self.clock = clock
        self.metrics = metrics
        self.links = links
    }

    /// What one pass did.
    public struct Pass: Sendable, Equatable {
        /// Messages the receiver took.
        public var delivered = 0
        /// Messages that failed and wait for another attempt.
        public var failed = 0
        /// Messages given up.
        public var abandoned = 0

        /// Messages the pass claimed; a whole batch means more may be due.
        public var claimed: Int { delivered + failed + abandoned }
    }

    /// One batch of due messages, each sent once.
    @discardableResult
    public func runOnce() async throws -> Pass {
        let now = clock.now
        var pass = Pass()
        for message in try await storage.outbox.claim(limit: policy.batchSize, now: now, leaseUntil: now.addingTimeInterval(policy.lease)) {
            let outcome = try await send(message)
            metrics.delivery(kind: message.kind.rawValue, outcome: outcome.rawValue)
            switch outcome {
            case .delivered: pass.delivered += 1
            case .failed: pass.failed += 1
            case .abandoned: pass.abandoned += 1
            }
        }
        metrics.deliveriesPending(try await storage.outbox.pendingCount())
        return pass
    }

    private enum Outcome: String {
        case delivered, failed, abandoned
    }

    private func send(_ message: OutboxMessage) async throws -> Outcome {
        guard message.expiresAt > clock.now else {
            return try await abandon(message, reason: "the message expired before it was delivered")
        }
        let body: Data
        do {
            var token: String?
            var link: String?
            var code: String?
            if let purpose = message.kind.tokenPurpose {
                guard let sealed = message.sealedToken else { throw DeliverySealerError() }
                let opened = try sealer.open(sealed, purpose: purpose)
                token = opened
                link = links?.link(for: purpose, token: opened)
                if purpose == .emailSignIn { code = sealer.code(forTokenHash: OpaqueToken.hash(of: opened)) }
            }
            body = try DeliveryMessage(
                deliveryID: message.id, kind: message.kind, userID: message.userID, username: message.username, email: message.email,
                token: token,
                expiresAt: token == nil ? nil : message.expiresAt, link: link, code: code
            ).encoded()
        } catch {
            return try await abandon(message, reason: "\(error)")
        }
        let headers = [
            (name: "Content-Type", value: "application/json"),
            (name: DeliverySignature.headerName, value: DeliverySignature.header(for: body, secret: secret, at: clock.now)),
            (name: "Authd-Delivery-Id", value: String(message.id)),
        ]
        let failure: String
        do {
            let status = try await transport.post(body, headers: headers, timeout: policy.timeout)
            if (200..<300).contains(status) {
                try await storage.outbox.markDelivered(message.id, at: clock.now)
                return .delivered
            }
            failure = "the delivery URL answered \(status)"
        } catch {
            failure = "no answer from the delivery URL: \(error)"
        }
        let retryAt = clock.now.addingTimeInterval(policy.backoff(afterAttempts: message.attempts))
        try await storage.outbox.markFailed(message.id, reason: String(failure.prefix(500)), retryAt: retryAt)
        return .failed
    }

    private func abandon(_ message: OutboxMessage, reason: String) async throws -> Outcome {
        try await storage.outbox.abandon(message.id, reason: reason, at: clock.now)
        try await storage.audit.record(
            SecurityEvent(kind: .deliveryAbandoned, at: clock.now, userID: message.userID, detail: "\(message.kind.rawValue): \(reason)")
        )
        return .abandoned
    }
}
