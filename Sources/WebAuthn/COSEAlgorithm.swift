/// The signature algorithms accepted for credentials, by their COSE identifiers (RFC 9053,
/// IANA "COSE Algorithms"), in authd's order of preference.
///
/// ```swift
/// COSEAlgorithm(rawValue: -7)        // .es256
/// COSEAlgorithm.allCases.map(\.rawValue)   // [-8, -7, -257]
/// ```
public enum COSEAlgorithm: Int, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// EdDSA with Ed25519 (OKP key, crv 6).
    case edDSA = -8
    /// ECDSA with P-256 and SHA-256 (EC2 key, crv 1); signatures DER-encoded.
    case es256 = -7
    /// RSASSA-PKCS1-v1_5 with SHA-256 (RSA key of at least 2048 bits).
    case rs256 = -257

    /// The COSE name.
    ///
    /// ```swift
    /// COSEAlgorithm.rs256.description   // "RS256"
    /// ```
    public var description: String {
        switch self {
        case .edDSA: "EdDSA"
        case .es256: "ES256"
        case .rs256: "RS256"
        }
    }
}
