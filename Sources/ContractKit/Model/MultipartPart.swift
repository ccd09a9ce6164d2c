/// One part of a `multipart/form-data` request body (`multipart:`): the form field it is,
/// an optional file name, headers, and a text or JSON body.
///
/// ```yaml
/// multipart:
///   - name: avatar
///     filename: me.png
///     headers: { Content-Type: image/png }
///     body: "PNG…"
///   - name: profile
///     json: { display_name: Alice }
/// ```
///
/// ```swift
/// let part = MultipartPart(name: "note", body: .text(Matcher(.literal(.string("hello")))))
/// ```
public struct MultipartPart: Sendable, Equatable {
    /// What a part's body is.
    public enum Body: Sendable, Equatable {
        /// Text: a literal (may hold `{{var}}` placeholders) or a matcher of text.
        case text(Matcher)
        /// JSON, sent with `Content-Type: application/json`.
        case json(Matcher)
    }

    /// The form field name (`Content-Disposition: form-data; name="…"`).
    public let name: String
    /// The file name, when the part is a file.
    public let filename: String?
    /// The part's own headers, in order.
    public let headers: [FormField]
    /// The body.
    public let body: Body

    /// Creates a part.
    public init(name: String, filename: String? = nil, headers: [FormField] = [], body: Body) {
        self.name = name
        self.filename = filename
        self.headers = headers
        self.body = body
    }

    /// Every `{{name}}` the part uses.
    public var templateVariables: [String] {
        let bodyVariables: [String]
        switch body {
        case .text(let matcher), .json(let matcher): bodyVariables = matcher.templateVariables
        }
        return headers.flatMap(\.value.templateVariables) + bodyVariables
    }
}
