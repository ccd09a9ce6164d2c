import ContractKit
import Foundation

extension ContractStub {
    /// Every delivery the stub has sent (since it was made or ``reset()``), then each new
    /// one as it is sent: what the provider's `delivers:` would post to the app (a password
    /// reset's token for its mailer). Each access is a stream of its own; it ends when the
    /// stub is released, so read it with an iterator or `first(where:)` rather than to its end.
    ///
    /// ```swift
    /// let stub = try ContractStub(directory: "contracts")
    /// let api = AccountAPI(baseURL: URL(string: "https://auth.example")!, session: stub.urlSession)
    /// try await api.requestPasswordReset(username: "alice")
    /// let mail = await stub.deliveries.first { $0.json?["kind"] == "password_reset" }
    /// guard case .string(let token)? = mail?.json?["token"] else { return }
    /// try await api.confirmPasswordReset(token: token, newPassword: "a new passphrase")   // the stub accepts this token
    /// ```
    public var deliveries: AsyncStream<StubDelivery> {
        deliveryHub.stream()
    }

    /// The deliveries sent so far, in order (since the stub was made or ``reset()``).
    ///
    /// ```swift
    /// #expect(stub.delivered.map(\.path) == ["/deliveries"])
    /// ```
    public var delivered: [StubDelivery] {
        deliveryHub.log
    }

    /// Calls `handler` with each delivery sent from now on, on the thread that answers the
    /// request and before the answer is returned: a test has the message by the time its
    /// client has the response. Handlers stay for the stub's lifetime.
    ///
    /// ```swift
    /// let tokens = Mutex<[String]>([])
    /// stub.onDelivery { delivery in
    ///     if case .string(let token)? = delivery.json?["token"] { tokens.withLock { $0.append(token) } }
    /// }
    /// ```
    public func onDelivery(_ handler: @escaping @Sendable (StubDelivery) -> Void) {
        deliveryHub.add(handler)
    }
}
