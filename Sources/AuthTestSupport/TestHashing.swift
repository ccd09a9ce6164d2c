import AuthCore

extension Argon2idHasher.Parameters {
    /// Parameters light enough for tests (1 MiB, one pass): every rule still runs, in
    /// milliseconds. Never for production.
    ///
    /// ```swift
    /// let phc = try Argon2idHasher(parameters: .testLight).hash("correct horse battery staple")
    /// ```
    public static let testLight = Self(memoryKiB: 1024, iterations: 1, parallelism: 1)
}
