import AuthCore

/// Text in the format of Have I Been Pwned's "ordered by hash" download, for tests: one line
/// `SHA1HEX:COUNT` for each password given and for `filler` made-up ones, sorted by hash.
///
/// ```swift
/// let text = TestBreachedPasswords.text(breached: ["a leaked passphrase"], filler: 3000)
/// let folder = try TemporaryFolder("breached", files: ["pwned.txt": text])
/// let list = try BreachedPasswordList(path: folder.appending("pwned.txt").path)
/// ```
public enum TestBreachedPasswords {
    /// The sorted hashes of `breached` and of `filler` made-up passwords.
    public static func hashes(breached: [String], filler: Int = 0) -> [String] {
        (breached + (0..<filler).map { "made-up breached password \($0)" }).map(BreachedPasswordList.hash(of:)).sorted()
    }

    /// Lines `HASH:COUNT` of ``hashes(breached:filler:)``, each ended by `lineEnd`.
    public static func text(breached: [String], filler: Int = 0, lineEnd: String = "\r\n") -> String {
        text(hashes: hashes(breached: breached, filler: filler), lineEnd: lineEnd)
    }

    /// Lines `HASH:COUNT` of `hashes` in the order given, each ended by `lineEnd`; the counts
    /// vary in length, as real ones do.
    public static func text(hashes: [String], lineEnd: String = "\r\n") -> String {
        var text = ""
        text.reserveCapacity(hashes.count * 52)
        for (index, hash) in hashes.enumerated() {
            text += "\(hash):\(1 + (index * 7919) % 100_000)\(lineEnd)"
        }
        return text
    }
}
