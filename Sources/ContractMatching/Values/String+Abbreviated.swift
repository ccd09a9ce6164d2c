extension String {
    /// This text cut at `limit` characters, "…" ending a cut: as explanations show a value
    /// they did not expect, however long it was sent.
    ///
    /// ```swift
    /// String(repeating: "x", count: 10_000).abbreviated()   // 77 x's and "…"
    /// ```
    package func abbreviated(limit: Int = 80) -> String {
        dropFirst(limit).isEmpty ? self : String(prefix(limit - 3)) + "…"
    }
}
