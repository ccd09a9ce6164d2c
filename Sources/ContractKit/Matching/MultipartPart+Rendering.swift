import Foundation

extension MultipartPart {
    /// The part ready to send: header and body values from their literals (with `variables`
    /// filled in), examples or generated values; a `json` body with `Content-Type:
    /// application/json` unless the part's headers give one.
    ///
    /// ```swift
    /// let part = try MultipartPart(name: "note", body: .text(Matcher(.literal(.string("{{text}}"))))).rendered(with: ["text": "hi"])
    /// part.body   // "hi"
    /// ```
    /// - Throws: `Template/UndefinedVariable`, `MatcherSampleError`.
    public func rendered(
        with variables: [String: JSONValue], codes: (any TOTPCodeSource)? = nil, authenticators: (any WebAuthnCredentialSource)? = nil
    ) throws -> MultipartEncoding.Part {
        let place = "multipart \(name)"
        var sent = try headers.map {
            FormField.Text(name: $0.name, value: try $0.value.sampleText(with: variables, at: "\(place) header \($0.name)", codes: codes))
        }
        let data: Data
        switch body {
        case .text(let matcher):
            data = Data(try matcher.sampleText(with: variables, at: place, codes: codes).utf8)
        case .json(let matcher):
            data = Data(try matcher.sampleValue(with: variables, at: place, codes: codes, authenticators: authenticators).description.utf8)
            if !sent.contains(where: { isSameHeaderName($0.name, "Content-Type") }) {
                sent.append(FormField.Text(name: "Content-Type", value: "application/json"))
            }
        }
        return MultipartEncoding.Part(name: name, filename: filename, headers: sent, body: data)
    }
}
