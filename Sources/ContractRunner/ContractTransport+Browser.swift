import ContractKit
import Foundation

extension ContractTransport {
    /// The URL `request` goes to.
    func url(of request: ContractRequest) -> URL? {
        URL(string: baseURL + request.target)
    }

    /// Sends `request` as a browser would within a sequence: with the `Cookie` header of
    /// `jar` (unless the request has its own), keeping what the answer sets; with
    /// `followingRedirects`, a redirect to this provider itself is followed (up to 10, a 303 or
    /// a 301/302 as a `GET`, a 307/308 as sent), and so is one to `elsewhere` (the run's
    /// identity provider, whose sign-in a browser goes through); a redirect anywhere else (an
    /// app's redirect URI) is the answer. Returns the request as sent and the last answer.
    func send(
        _ request: ContractRequest, jar: inout CookieJar, followingRedirects: Bool, elsewhere: (any ContractTransport)? = nil
    ) async throws -> (sent: ContractRequest, response: ContractResponse) {
        var sent = request
        if let url = url(of: request), request.header("Cookie") == nil, let cookie = jar.header(for: url) {
            sent.headers.append((name: "Cookie", value: cookie))
        }
        var response = try await send(sent)
        if let url = url(of: request) { jar.store(from: response, for: url) }
        guard followingRedirects else { return (sent, response) }
        var current = request
        var transport: any ContractTransport = self
        for _ in 0..<10 {
            guard [301, 302, 303, 307, 308].contains(response.status), let location = response.header("Location"),
                let from = transport.url(of: current), let next = URL(string: location, relativeTo: from)?.absoluteURL
            else { break }
            let text = next.absoluteString
            func isUnder(_ base: String) -> Bool {
                text.hasPrefix(base) && (text.dropFirst(base.count).first.map { $0 == "/" || $0 == "?" } ?? true)
            }
            if isUnder(baseURL) {
                transport = self
            } else if let elsewhere, isUnder(elsewhere.baseURL) {
                transport = elsewhere
            } else {
                break
            }
            let target = String(text.dropFirst(transport.baseURL.count))
            let keepsMethod = response.status == 307 || response.status == 308
            var headers = keepsMethod ? current.headers.filter { !isSameHeaderName($0.name, "Cookie") } : []
            if let cookie = jar.header(for: next) { headers.append((name: "Cookie", value: cookie)) }
            current = ContractRequest(
                method: keepsMethod ? current.method : "GET", target: target.isEmpty ? "/" : target, headers: headers,
                body: keepsMethod ? current.body : nil)
            response = try await transport.send(current)
            jar.store(from: response, for: next)
        }
        return (sent, response)
    }
}
