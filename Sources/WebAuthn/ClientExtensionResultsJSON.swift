/// The client extension outputs of a response (`clientExtensionResults`): `credProps.rk`
/// (whether the credential is discoverable) is read; every other output is ignored, and an
/// output of an unexpected shape reads as absent rather than failing the response.
///
/// ```swift
/// response.clientExtensionResults.credProps?.rk   // true for a passkey
/// ```
public struct ClientExtensionResultsJSON: Codable, Sendable, Equatable {
    /// The `credProps` output (WebAuthn §10.1.3).
    public var credProps: CredentialProperties?

    /// The `credProps` output.
    ///
    /// ```swift
    /// ClientExtensionResultsJSON.CredentialProperties(rk: true)
    /// ```
    public struct CredentialProperties: Codable, Sendable, Equatable {
        /// Whether the credential is client-side discoverable (a passkey); nil when unknown.
        public var rk: Bool?

        /// Creates the value.
        ///
        /// ```swift
        /// .init(rk: false)
        /// ```
        public init(rk: Bool?) {
            self.rk = rk
        }
    }

    /// No outputs, or only `credProps`.
    ///
    /// ```swift
    /// ClientExtensionResultsJSON()   // encodes as {}
    /// ```
    public init(credProps: CredentialProperties? = nil) {
        self.credProps = credProps
    }

    private enum CodingKeys: String, CodingKey {
        case credProps
    }

    /// Reads `credProps` leniently.
    ///
    /// ```swift
    /// try JSONDecoder().decode(ClientExtensionResultsJSON.self, from: Data(#"{"credProps":{"rk":true}}"#.utf8))
    /// ```
    public init(from decoder: any Decoder) throws {
        let container = try? decoder.container(keyedBy: CodingKeys.self)
        credProps = (try? container?.decodeIfPresent(CredentialProperties.self, forKey: .credProps)) ?? nil
    }

    /// Writes `credProps` when present.
    ///
    /// ```swift
    /// try JSONEncoder().encode(ClientExtensionResultsJSON())   // {}
    /// ```
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(credProps, forKey: .credProps)
    }
}
