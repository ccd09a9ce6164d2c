import ContractKit
import Foundation
import WebForms

/// Form, multipart and Basic-credential requests, held to the contract as JSON bodies are: the
/// fields (or parts) the contract lists, each once, each matching its matcher; no other
/// multipart part. A form is read as RFC 6749 §3.1 has OAuth servers read one (authd does):
/// a field the contract does not list is ignored, and one sent without a value is as if omitted.
extension RequestMatcher {
    /// A `form:` body: a form `Content-Type`, then ``fit(fields:_:what:)`` on the fields the
    /// contract lists that came with a value.
    mutating func fit(_ form: FormBody, _ parsed: ParsedRequest) -> Result<Int, Difference> {
        let request = parsed.request
        let contentType = request.header("Content-Type")
        guard FormEncoding.isForm(contentType: contentType) else {
            return .failure(
                Difference(
                    weight: 4,
                    text:
                        "body: expected a form (Content-Type: \(FormBody.contentType)), got \(contentType.map { "Content-Type: \($0)" } ?? "no Content-Type")"
                ))
        }
        guard let received = parsed.form else {
            return .failure(
                Difference(
                    weight: 4, text: "body: expected a form, got \(request.body?.count ?? 0) bytes that are no form (bad UTF-8 or % escape)"
                ))
        }
        let listed = Set(form.fields.map(\.name))
        let values = received.filter { listed.contains($0.name) && !$0.value.isEmpty }.map { (name: $0.name, value: $0.value) }
        return fit(fields: form.fields.map { ($0.name, $0.value) }, values, what: "form") { matcher, value, place, this in
            this.fit(matcher, text: value, at: place, weight: 5)
        }
    }

    /// A `multipart:` body: a multipart `Content-Type` with a boundary, a body that reads as
    /// parts, then the parts by name: file name, headers and body of each.
    mutating func fit(_ parts: [MultipartPart], _ request: ContractRequest) -> Result<Int, Difference> {
        let contentType = request.header("Content-Type")
        guard let boundary = MultipartEncoding.boundary(in: contentType) else {
            return .failure(
                Difference(
                    weight: 4,
                    text:
                        "body: expected multipart/form-data with a boundary, got \(contentType.map { "Content-Type: \($0)" } ?? "no Content-Type")"
                ))
        }
        let received: [MultipartEncoding.Part]
        do {
            received = try MultipartEncoding.decode(request.body ?? Data(), boundary: boundary)
        } catch {
            let reason = "\(error)"
            return .failure(Difference(weight: 4, text: "body: not a multipart body: \(reason)"))
        }
        let byName = Dictionary(parts.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        return fit(fields: parts.map { ($0.name, Matcher(.any)) }, received.map { (name: $0.name, value: $0) }, what: "multipart part") {
            _, part, place, this in
            guard let spec = byName[part.name] else { return .success(0) }
            return this.fit(spec, part, at: place)
        }
    }

    /// Named values (form fields, parts) against the contract's list: each name at most once,
    /// none the contract does not list, each required one there; then `fitValue` on each.
    private mutating func fit<Value>(
        fields: [(name: String, matcher: Matcher)], _ received: [(name: String, value: Value)], what: String,
        fitValue: (Matcher, Value, String, inout RequestMatcher) -> Result<Int, Difference>
    ) -> Result<Int, Difference> {
        var counts: [String: Int] = [:]
        for item in received { counts[item.name, default: 0] += 1 }
        let listed = Set(fields.map(\.name))
        if let extra = received.first(where: { !listed.contains($0.name) })?.name {
            return .failure(Difference(weight: 5, text: "\(what) \(extra): not in the contract's request"))
        }
        if let repeated = received.first(where: { (counts[$0.name] ?? 0) > 1 })?.name {
            let times = counts[repeated] ?? 0
            return .failure(Difference(weight: 5, text: "\(what) \(repeated): sent \(times) times, the contract's request has it once"))
        }
        if let missing = fields.first(where: { counts[$0.name] == nil && !$0.matcher.optional }) {
            return .failure(Difference(weight: 5, text: "\(what) \(missing.name): missing"))
        }
        var score = 0
        for field in fields {
            guard let value = received.first(where: { $0.name == field.name })?.value else { continue }
            switch fitValue(field.matcher, value, "\(what) \(field.name)", &self) {
            case .success(let gained): score += gained
            case .failure(let difference): return .failure(difference)
            }
        }
        return .success(score)
    }

    /// One part: its file name when the contract gives one, its headers, its body.
    private mutating func fit(_ spec: MultipartPart, _ part: MultipartEncoding.Part, at place: String) -> Result<Int, Difference> {
        var score = 0
        if let filename = spec.filename, part.filename != filename {
            return .failure(Difference(weight: 5, text: "\(place): expected filename \(filename), got \(part.filename ?? "none")"))
        }
        for header in spec.headers {
            guard let value = part.header(header.name) else {
                return .failure(Difference(weight: 5, text: "\(place) header \(header.name): missing"))
            }
            switch fit(header.value, text: value, at: "\(place) header \(header.name)", weight: 5) {
            case .success(let gained): score += gained
            case .failure(let difference): return .failure(difference)
            }
        }
        let result: Result<Int, Difference>
        switch spec.body {
        case .text(let matcher):
            result = fit(matcher, text: String(decoding: part.body, as: UTF8.self), at: "\(place) body", weight: 5)
        case .json(let matcher):
            guard let json = try? JSONValue(parsing: part.body) else {
                return .failure(Difference(weight: 5, text: "\(place): expected JSON, got \(part.body.count) bytes that are not JSON"))
            }
            result = fit(matcher, json, path: place)
        }
        return result.map { $0 + score }
    }

    /// `Authorization: Basic …` against a `basic_auth` matcher: the username as any text
    /// value, the password compared in constant time once its placeholders are filled (one
    /// whose value is unknown accepts any password). A password that does not match is
    /// never shown.
    mutating func fit(username: Matcher, password: Matcher, _ text: String, at place: String, weight: Int) -> Result<Int, Difference> {
        guard let credentials = BasicCredentials.decode(text) else {
            return .failure(
                Difference(
                    weight: weight,
                    text: "\(place): expected HTTP Basic credentials (Basic base64(username:password)), got a value that is not (not shown)"
                ))
        }
        let user: Int
        switch fit(username, text: credentials.username, at: "\(place) username", weight: weight) {
        case .success(let gained): user = gained
        case .failure(let difference): return .failure(difference)
        }
        var undefined: [String] = []
        let expected = password.resolved(with: known, undefined: &undefined)
        guard undefined.isEmpty else { return .success(Swift.min(user, 1)) }
        guard BasicAuthMatcher.passwordMatches(expected, credentials.password) else {
            return .failure(Difference(weight: weight, text: "\(place): the password does not match"))
        }
        return .success(Swift.min(user, expected.specificity))
    }
}
