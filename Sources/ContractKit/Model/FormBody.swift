import WebForms

/// An `application/x-www-form-urlencoded` body (`form:`): fields in the order written, each
/// a `Matcher` of text — a literal (whose text may hold `{{var}}` placeholders) or a typed
/// matcher, which may be `optional: true`.
///
/// ```yaml
/// form:
///   grant_type: client_credentials
///   scope: { match: string, optional: true }
/// ```
///
/// ```swift
/// let form = FormBody([FormField(name: "grant_type", value: Matcher(.literal(.string("client_credentials"))))])
/// form.names   // ["grant_type"]
/// ```
public struct FormBody: Sendable, Equatable {
    /// The fields, in order.
    public let fields: [FormField]

    /// The media type of a form body.
    public static let contentType = FormEncoding.mediaType

    /// Creates a form body.
    public init(_ fields: [FormField]) {
        self.fields = fields
    }

    /// Two forms are equal when they have the same fields with the same matchers, in any
    /// order: the order is the one the verifier sends, but no side reads a form by position
    /// (and JSON, which carries contracts through OpenAPI, keeps no key order).
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.fields.count == rhs.fields.count && lhs.fields.allSatisfy { rhs.field($0.name) == $0.value }
    }

    /// The field names, in order.
    public var names: [String] { fields.map(\.name) }

    /// The matcher of field `name`, nil when the form has no such field.
    public func field(_ name: String) -> Matcher? {
        fields.first { $0.name == name }?.value
    }

    /// The fields as an object matcher (field name → matcher), for what treats a form like a
    /// flat JSON object of strings (agreement, schemas, saved values).
    public var objectMatcher: Matcher {
        Matcher(.object(Dictionary(fields.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })))
    }

    /// Every `{{name}}` its fields use.
    public var templateVariables: [String] { fields.flatMap(\.value.templateVariables) }

    /// This form with templates in its literals replaced by saved values (see
    /// `Matcher.resolved(with:undefined:)`).
    public func resolved(with variables: [String: JSONValue], undefined: inout [String]) -> FormBody {
        FormBody(fields.map { FormField(name: $0.name, value: $0.value.resolved(with: variables, undefined: &undefined)) })
    }
}

/// One field of a form body, or one header of a multipart part.
///
/// ```swift
/// FormField(name: "scope", value: Matcher(.string(minLength: 1, maxLength: nil), optional: true))
/// ```
public struct FormField: Sendable, Equatable {
    /// The field's name.
    public let name: String
    /// What its value must be.
    public let value: Matcher

    /// Creates a field.
    public init(name: String, value: Matcher) {
        self.name = name
        self.value = value
    }
}

extension FormField {
    /// A name and a value as sent or received (a multipart part's header).
    ///
    /// ```swift
    /// FormField.Text(name: "Content-Type", value: "image/png")
    /// ```
    public struct Text: Sendable, Equatable {
        /// The name.
        public var name: String
        /// The value.
        public var value: String

        /// Creates one.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }
}
