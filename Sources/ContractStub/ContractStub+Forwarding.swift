import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ContractStub {
    /// POSTs (with its method) each delivery sent from now on to `baseURL` + the delivery's
    /// path, as `contract stub --deliver-to URL` does. A post that fails is reported to `log`
    /// (standard error by default) and not retried; the answer to the client never waits for it.
    ///
    /// ```swift
    /// stub.forwardDeliveries(to: URL(string: "http://127.0.0.1:9100")!)   // POST http://127.0.0.1:9100/deliveries
    /// ```
    public func forwardDeliveries(
        to baseURL: URL, session: URLSession = .shared,
        log: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data("\($0)\n".utf8)) }
    ) {
        onDelivery { delivery in
            Task { await Self.post(delivery, to: baseURL, session: session, log: log) }
        }
    }

    /// Sends `delivery` to `baseURL` + its path; reports a failure or a non-2xx answer to `log`.
    static func post(_ delivery: StubDelivery, to baseURL: URL, session: URLSession, log: @Sendable (String) -> Void) async {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        guard let url = URL(string: base + delivery.path) else {
            log("delivery \(delivery.method) \(delivery.path): \(base + delivery.path) is not a URL")
            return
        }
        var request = URLRequest(url: url)
        request.httpMethod = delivery.method
        for header in delivery.headers { request.addValue(header.value, forHTTPHeaderField: header.name) }
        request.httpBody = delivery.body.isEmpty ? nil : delivery.body
        do {
            let (_, response) = try await session.data(for: request)
            if let status = (response as? HTTPURLResponse)?.statusCode, !(200..<300).contains(status) {
                log("delivery \(delivery.method) \(url.absoluteString) was answered \(status)")
            }
        } catch {
            log("delivery \(delivery.method) \(url.absoluteString) failed: \(error.localizedDescription)")
        }
    }
}
