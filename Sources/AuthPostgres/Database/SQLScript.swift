/// Splits a SQL file into statements at top-level semicolons, respecting quoted strings,
/// quoted identifiers, dollar-quoted bodies and comments, so each statement can run
/// through the extended query protocol.
///
/// ```swift
/// SQLScript.statements(in: "CREATE TABLE a (x int); -- done\nCREATE INDEX i ON a (x);")
/// // ["CREATE TABLE a (x int)", "-- done\nCREATE INDEX i ON a (x)"]
/// ```
public enum SQLScript {
    /// The statements of `sql`, trimmed, without their terminating semicolons; empty ones
    /// (only white space or comments) are dropped.
    public static func statements(in sql: String) -> [String] {
        let chars = Array(sql.unicodeScalars)
        var statements: [String] = []
        var current = String.UnicodeScalarView()
        var hasCode = false
        var index = 0

        func copy(through end: Int) {
            let stop = min(end, chars.count - 1)
            if index <= stop { current.append(contentsOf: chars[index...stop]) }
            index = stop + 1
        }
        func find(_ needle: [Unicode.Scalar], from start: Int) -> Int? {
            guard !needle.isEmpty, start <= chars.count - needle.count else { return nil }
            for position in start...(chars.count - needle.count) where Array(chars[position..<position + needle.count]) == needle {
                return position
            }
            return nil
        }

        while index < chars.count {
            let c = chars[index]
            let next: Unicode.Scalar? = index + 1 < chars.count ? chars[index + 1] : nil
            switch c {
            case "-" where next == "-":
                copy(through: find(["\n"], from: index) ?? chars.count - 1)
            case "/" where next == "*":
                copy(through: (find(["*", "/"], from: index + 2) ?? chars.count - 2) + 1)
            case "'", "\"":
                hasCode = true
                var end = index + 1
                while end < chars.count {
                    if chars[end] == c {
                        if end + 1 < chars.count, chars[end + 1] == c {
                            end += 2
                            continue
                        }
                        break
                    }
                    end += 1
                }
                copy(through: end)
            case "$":
                hasCode = true
                var end = index + 1
                while end < chars.count, chars[end] == "_" || chars[end].properties.isAlphabetic || ("0"..."9").contains(chars[end]) {
                    end += 1
                }
                if end < chars.count, chars[end] == "$" {
                    let tag = Array(chars[index...end])
                    let close = find(tag, from: end + 1).map { $0 + tag.count - 1 } ?? chars.count - 1
                    copy(through: close)
                } else {
                    copy(through: index)
                }
            case ";":
                index += 1
                if hasCode { statements.append(String(current).trimmingSQLWhitespace()) }
                current = String.UnicodeScalarView()
                hasCode = false
            default:
                if !c.properties.isWhitespace { hasCode = true }
                copy(through: index)
            }
        }
        if hasCode { statements.append(String(current).trimmingSQLWhitespace()) }
        return statements
    }
}

extension String {
    fileprivate func trimmingSQLWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}
