import Foundation
import Yams

extension YAMLReader {
    /// A `webauthn_registration` or `webauthn_assertion` matcher's options: `options` (a saved
    /// `{{name}}`), `origin` (`https://example.com`) and `authenticator` (a name) required;
    /// `user_verified` (true), and for a registration `algorithm` (ES256 or EdDSA) and
    /// `attestation` (none or packed).
    mutating func webAuthnSpec(_ ceremony: WebAuthnSpec.Ceremony, _ node: Node, _ values: [String: Node]) -> WebAuthnSpec? {
        let name = ceremony.matcherName
        let saved = ceremony == .registration ? "{{creation}}" : "{{request}}"
        let needs = [
            (
                "options",
                "the options an earlier interaction answered and saved whole, such as \"\(saved)\" from save: { \(saved.dropFirst(2).dropLast(2)): $ }"
            ),
            ("origin", "the origin the client is at, such as \"https://example.com\""),
            ("authenticator", "a name for the authenticator, such as mia-phone: its registration's key signs its assertions"),
        ]
        var texts: [String: String] = [:]
        var ok = true
        for (key, what) in needs {
            guard let valueNode = values[key] else {
                error(node, "matcher '\(name)' needs '\(key)' (\(what))")
                ok = false
                continue
            }
            guard let text = string(valueNode, key) else {
                ok = false
                continue
            }
            texts[key] = text
        }
        if let options = texts["options"], let optionsNode = values["options"],
            !(Template.mayHavePlaceholders(options) && Template(options).soleVariable != nil)
        {
            error(
                optionsNode,
                "options must be a saved value such as \"\(saved)\" (the whole options an earlier interaction answered), not '\(options)'")
            ok = false
        }
        if let origin = texts["origin"], let originNode = values["origin"], !WebAuthnSpec.isOrigin(origin) {
            error(
                originNode,
                "origin must be an origin such as https://example.com (a scheme, a host and perhaps a port; no path), not '\(origin)'")
            ok = false
        }
        if let authenticator = texts["authenticator"], let authenticatorNode = values["authenticator"],
            authenticator.trimmingCharacters(in: .whitespaces).isEmpty
        {
            error(authenticatorNode, "authenticator must name the authenticator, such as mia-phone")
            ok = false
        }
        var spec = WebAuthnSpec(
            ceremony, options: texts["options"] ?? "", origin: texts["origin"] ?? "", authenticator: texts["authenticator"] ?? "")
        if let algorithmNode = values["algorithm"] {
            if let algorithm = choice(algorithmNode, "algorithm", WebAuthnSpec.algorithmNames) {
                spec.algorithm = algorithm
            } else {
                ok = false
            }
        }
        if let attestationNode = values["attestation"] {
            if let attestation = choice(attestationNode, "attestation", WebAuthnSpec.attestationNames) {
                spec.attestation = attestation
            } else {
                ok = false
            }
        }
        if let verifiedNode = values["user_verified"] {
            if let verified = bool(verifiedNode, "user_verified") { spec.userVerified = verified } else { ok = false }
        }
        return ok ? spec : nil
    }

    /// The value of `choices` named by `node`'s text (in any case); nil, reported, for text
    /// that names none.
    private mutating func choice<Value>(_ node: Node, _ what: String, _ choices: [(name: String, value: Value)]) -> Value? {
        guard let text = string(node, what) else { return nil }
        if let found = choices.first(where: { $0.name.lowercased() == text.lowercased() }) { return found.value }
        error(node, "unknown \(what) '\(text)' (expected one of: \(choices.map(\.name).joined(separator: ", ")))")
        return nil
    }
}
