import Foundation

extension Delivery {
    /// This expectation with `{{var}}` placeholders in its path, headers and body replaced by
    /// saved values; `undefined` lists the names nothing saved.
    ///
    /// ```swift
    /// let (expected, undefined) = delivery.resolved(with: saved)
    /// ```
    public func resolved(with variables: [String: JSONValue]) -> (delivery: Delivery, undefined: [String]) {
        var undefined: [String] = []
        let renderedPath: Template
        let missing = path.requiredVariables.filter { variables[$0] == nil }
        if missing.isEmpty, let text = try? path.render(variables) {
            renderedPath = Template(text)
        } else {
            renderedPath = path
            undefined += missing
        }
        let resolvedHeaders = headers.mapValues { $0.resolved(with: variables, undefined: &undefined) }
        let resolvedBody = body.map { $0.resolved(with: variables, undefined: &undefined) }
        var seen = Set<String>()
        undefined = undefined.filter { seen.insert($0).inserted }
        let delivery = Delivery(
            method: method, path: renderedPath, headers: resolvedHeaders, body: resolvedBody, within: within, save: save, location: location
        )
        return (delivery, undefined)
    }

    /// Every way `received` (a request that reached the receiver) breaks this expectation:
    /// method, path, each declared header, each body path (leniently: extra keys allowed).
    /// Empty when it holds. Resolve placeholders first (``resolved(with:)``).
    public func mismatches(in received: ContractRequest) -> [Mismatch] {
        var found: [Mismatch] = []
        if received.method.uppercased() != method {
            found.append(Mismatch(path: "method", expected: method, actual: received.method))
        }
        let receivedPath = received.pathAndQuery.path
        if receivedPath != path.text {
            found.append(Mismatch(path: "path", expected: path.text, actual: receivedPath))
        }
        found += Matcher.headerMismatches(headers, in: received.header)
        if let body {
            guard let data = received.body, !data.isEmpty, let json = try? JSONValue(parsing: data) else {
                let text = String(decoding: (received.body ?? Data()).prefix(80), as: UTF8.self)
                found.append(
                    Mismatch(path: "body", expected: "JSON", actual: text.isEmpty ? "an empty body" : "text \(JSONValue.string(text))"))
                return found
            }
            found += body.mismatches(in: json)
        }
        return found
    }

    /// The variables ``save`` captures from `received`'s JSON body, and a `Mismatch` for
    /// each path that holds nothing.
    public func captures(from received: ContractRequest) -> (values: [String: JSONValue], missing: [Mismatch]) {
        guard !save.isEmpty else { return ([:], []) }
        let json = received.body.flatMap { try? JSONValue(parsing: $0) } ?? .null
        var values: [String: JSONValue] = [:]
        var missing: [Mismatch] = []
        for name in save.keys.sorted() {
            guard let path = save[name] else { continue }
            if let value = path.value(in: json) {
                values[name] = value
            } else {
                missing.append(Mismatch(path: path.description, expected: "a value to save as '\(name)'", actual: "nothing"))
            }
        }
        return (values, missing)
    }
}
