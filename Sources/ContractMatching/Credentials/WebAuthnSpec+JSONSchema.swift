import Foundation

extension WebAuthnSpec {
    /// The JSON Schema of the credential a `webauthn_registration` or `webauthn_assertion`
    /// matcher stands for: WebAuthn's `RegistrationResponseJSON` (§5.1.8) or
    /// `AuthenticationResponseJSON` (§5.1.9) as an object schema, binary members as base64url
    /// strings, members a client may add allowed.
    ///
    /// ```swift
    /// WebAuthnSpec(.assertion, options: "{{request}}", origin: "https://example.com", authenticator: "a").jsonSchema["required"]
    /// // ["id", "rawId", "type", "response"]
    /// ```
    public var jsonSchema: [String: JSONValue] {
        let binary: JSONValue = ["type": "string", "pattern": "^[A-Za-z0-9_-]*={0,2}$"]
        let response: JSONValue
        let description: String
        switch ceremony {
        case .registration:
            response = [
                "type": "object", "required": ["clientDataJSON", "attestationObject"],
                "properties": [
                    "clientDataJSON": binary, "attestationObject": binary, "authenticatorData": binary, "publicKey": binary,
                    "publicKeyAlgorithm": ["type": "integer"], "transports": ["type": "array", "items": ["type": "string"]],
                ],
            ]
            description =
                "A WebAuthn registration (RegistrationResponseJSON, WebAuthn §5.1.8): the credential an authenticator makes at \(origin) for the creation options the provider answered."
        case .assertion:
            response = [
                "type": "object", "required": ["clientDataJSON", "authenticatorData", "signature"],
                "properties": [
                    "clientDataJSON": binary, "authenticatorData": binary, "signature": binary,
                    "userHandle": ["type": ["string", "null"], "pattern": "^[A-Za-z0-9_-]*={0,2}$"],
                ],
            ]
            description =
                "A WebAuthn assertion (AuthenticationResponseJSON, WebAuthn §5.1.9): a registered credential's signature at \(origin) over the request options the provider answered."
        }
        return [
            "type": "object", "required": ["id", "rawId", "type", "response"],
            "properties": [
                "id": binary, "rawId": binary, "type": ["type": "string", "const": "public-key"], "response": response,
                "authenticatorAttachment": ["type": "string"], "clientExtensionResults": ["type": "object"],
            ],
            "description": .string(description),
        ]
    }
}
