import NIOSSL

extension TLSConfiguration {
    /// The suites offered over TLS 1.2: ECDHE key exchange only (forward secrecy), AEAD
    /// ciphers only. TLS 1.3's suites all have both.
    public static let authdCipherSuites: [NIOTLSCipher] = [
        .TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, .TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
        .TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, .TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
        .TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, .TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
    ]

    /// authd's HTTPS: TLS 1.2 at least, and over TLS 1.2 only ``authdCipherSuites``.
    ///
    /// ```swift
    /// configuration.tls = TLSConfiguration.authdServer(certificateChain: chain, privateKey: .privateKey(key))
    /// ```
    public static func authdServer(certificateChain: [NIOSSLCertificateSource], privateKey: NIOSSLPrivateKeySource) -> TLSConfiguration {
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: certificateChain, privateKey: privateKey)
        configuration.minimumTLSVersion = .tlsv12
        configuration.cipherSuiteValues = authdCipherSuites
        return configuration
    }
}
