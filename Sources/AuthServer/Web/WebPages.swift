import Foundation
import HTTPTypes
import Hummingbird
import Mustache

/// authd's pages: the Mustache templates of `Web/Templates` (embedded in the binary; each
/// page fills the `layout` parent's blocks), rendered with the ``MessageCatalogue``'s words in
/// the browser's language and answered with ``PageResponse``'s headers. Values are
/// HTML-escaped by Mustache's `{{…}}`; no template uses the unescaped `{{{…}}}`.
///
/// ```swift
/// let pages = WebPages.builtIn
/// return pages.page("message", status: .gone, for: request, values: ["heading": "…", "message": "…"])
/// ```
public struct WebPages: Sendable {
    /// The templates by name.
    public let library: MustacheLibrary
    /// The words.
    public let catalogue: MessageCatalogue

    /// The embedded templates and catalogue.
    public static let builtIn: WebPages = {
        do {
            return try WebPages(
                templates: [
                    "layout": PackageResources.layout_mustache,
                    "message": PackageResources.message_mustache,
                    "password-reset": PackageResources.password_reset_mustache,
                    "verify-email": PackageResources.verify_email_mustache,
                    "sign-in": PackageResources.sign_in_mustache,
                    "second-factor": PackageResources.second_factor_mustache,
                    "consent": PackageResources.consent_mustache,
                    "form-post": PackageResources.form_post_mustache,
                    "sign-out": PackageResources.sign_out_mustache,
                    "sign-up": PackageResources.sign_up_mustache,
                    "forgot-password": PackageResources.forgot_password_mustache,
                    "link-sent": PackageResources.link_sent_mustache,
                    "email-sign-in": PackageResources.email_sign_in_mustache,
                    "link-identity": PackageResources.link_identity_mustache,
                    "email-code": PackageResources.email_code_mustache,
                ],
                catalogue: .builtIn
            )
        } catch {
            preconditionFailure("the embedded templates parse: \(error)")
        }
    }()

    /// Pages from templates' text by name.
    public init(templates: [String: [UInt8]], catalogue: MessageCatalogue) throws {
        var library = MustacheLibrary()
        for (name, bytes) in templates {
            try library.register(String(decoding: bytes, as: UTF8.self), named: name)
        }
        self.library = library
        self.catalogue = catalogue
    }

    /// The language `request` is answered in (its `Accept-Language`).
    public func language(of request: Request) -> String {
        catalogue.language(accepting: request.headers[.acceptLanguage])
    }

    /// The messages of `request`'s language, with `values` filled in.
    public func messages(for request: Request, values: [String: String] = [:]) -> [String: String] {
        catalogue.messages(in: language(of: request), values: values)
    }

    /// The page `template` in `request`'s language: `values` as the template names them, with
    /// `lang`, `nonce` and the messages (`t`) beside them; `messageValues` fill the messages.
    public func page(
        _ template: String, status: HTTPResponse.Status, for request: Request, values: [String: Any] = [:],
        messageValues: [String: String] = [:], headers: HTTPFields = [:], language chosen: String? = nil, formTargets: [String] = []
    ) -> Response {
        let nonce = PageResponse.nonce()
        let language = chosen ?? language(of: request)
        var context = values
        context["lang"] = language
        context["nonce"] = nonce
        context["t"] = catalogue.messages(in: language, values: messageValues)
        guard let html = library.render(context, withTemplate: template) else {
            preconditionFailure("the page \(template) is one of the embedded templates")
        }
        return PageResponse.make(status: status, html: html, nonce: nonce, headers: headers, formTargets: formTargets)
    }

    /// The page of one message: the catalogue's `<key>_title` and `<key>_message`.
    public func message(
        _ key: String, status: HTTPResponse.Status, for request: Request, messageValues: [String: String] = [:], headers: HTTPFields = [:],
        language chosen: String? = nil, detail: String? = nil
    ) -> Response {
        let words = catalogue.messages(in: chosen ?? language(of: request), values: messageValues)
        var values: [String: Any] = ["heading": words["\(key)_title"] ?? key, "message": words["\(key)_message"] ?? ""]
        values["detail"] = detail
        return page("message", status: status, for: request, values: values, headers: headers, language: chosen)
    }

    /// The language for `uiLocales` (OpenID Connect's `ui_locales`, in order of preference)
    /// when the catalogue has one of them, else the browser's.
    public func language(uiLocales: [String], request: Request) -> String {
        for tag in uiLocales {
            let primary = String(tag.lowercased().split(separator: "-").first ?? "")
            if catalogue.messages[primary] != nil { return primary }
        }
        return language(of: request)
    }
}
