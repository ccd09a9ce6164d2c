/// Contracts with WebAuthn matchers that several test targets load.
public enum PasskeyContracts {
    /// A registration and a login, each after its options are saved whole.
    public static let ceremonies = """
        name: Passkeys
        interactions:
          - name: registration options
            request: { method: POST, path: /webauthn/register/options, json: {} }
            response: { status: 200, json: { challenge: { match: string } } }
            save: { creation: $ }
          - name: register
            request:
              method: POST
              path: /webauthn/register
              json:
                credential: { match: webauthn_registration, options: "{{creation}}", origin: "https://example.com", authenticator: mia-phone, algorithm: EdDSA, attestation: packed, user_verified: false }
                name: phone
            response: { status: 201 }
          - name: login options
            request: { method: POST, path: /webauthn/login/options, json: {} }
            response: { status: 200 }
            save: { request: $ }
          - name: log in
            request:
              method: POST
              path: /webauthn/login
              json: { credential: { match: webauthn_assertion, options: "{{request}}", origin: "https://example.com", authenticator: mia-phone } }
            response: { status: 200 }
            save: { used: request.json.credential }
        """
}
