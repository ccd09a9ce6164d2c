/// Comparisons whose time depends on the lengths only, never on where two secrets differ
/// (codes, challenges, user handles).
///
/// ```swift
/// ConstantTime.equal(Array("123456".utf8), Array(presented.utf8))
/// ```
public enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes, looking at every byte of both.
    public static func equal(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }
}
