import ContractKit
import Foundation

/// The human report: one line per interaction, and for each failure its file and line and
/// a diff of expected against actual (status, each header, each JSON path); ANSI colours
/// when asked. Ends with `N passed, N failed`.
///
/// ```swift
/// print(TextReport.render(report, color: isatty(1) == 1))
/// ```
public enum TextReport {
    /// Renders `report`.
    public static func render(_ report: VerificationReport, color: Bool) -> String {
        func paint(_ text: String, _ code: String) -> String { color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }
        var lines: [String] = []
        var currentContract: String?
        for result in report.results {
            if result.contract != currentContract {
                currentContract = result.contract
                lines.append(paint(result.contract, "1"))
            }
            switch result.outcome {
            case .passed:
                lines.append("  \(paint("✓", "32")) \(result.interaction.name)")
            case .failed(let mismatches):
                lines.append("  \(paint("✗", "31")) \(result.interaction.name)  (\(result.interaction.location))")
                if let request = result.request { lines.append("      \(request.method) \(request.target)") }
                for mismatch in mismatches {
                    lines.append("      \(mismatch.path)")
                    lines.append("        " + paint("- expected: \(mismatch.expected)", "32"))
                    lines.append("        " + paint("+ actual:   \(mismatch.actual)", "31"))
                }
            case .error(let message):
                lines.append("  \(paint("!", "31")) \(result.interaction.name)  (\(result.interaction.location))")
                lines.append("      \(message)")
            }
        }
        let summary = "\(report.passedCount) passed, \(report.failedCount) failed"
        lines.append("")
        lines.append(paint(summary, report.succeeded ? "32" : "31"))
        return lines.joined(separator: "\n")
    }
}

/// The JUnit XML report, one `testcase` per interaction, for CI systems.
///
/// ```swift
/// try JUnitReport.render(report).write(toFile: "contracts.xml", atomically: true, encoding: .utf8)
/// ```
public enum JUnitReport {
    /// Renders `report`.
    public static func render(_ report: VerificationReport) -> String {
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        xml += #"<testsuites name="contract verify" tests="\#(report.results.count)" failures="\#(report.failedCount)" time="\#(format(report.duration))">"# + "\n"
        let byContract = Dictionary(grouping: report.results, by: \.contract)
        for contract in report.results.map(\.contract).uniqued() {
            let results = byContract[contract] ?? []
            let failures = results.filter { !$0.passed }.count
            xml += #"  <testsuite name="\#(escape(contract))" tests="\#(results.count)" failures="\#(failures)">"# + "\n"
            for result in results {
                let attributes = #"name="\#(escape(result.interaction.name))" classname="\#(escape(contract))" file="\#(escape(result.interaction.location.file))" line="\#(result.interaction.location.line)" time="\#(format(result.duration))""#
                switch result.outcome {
                case .passed:
                    xml += "    <testcase \(attributes)/>\n"
                case .failed(let mismatches):
                    let text = mismatches.map(\.description).joined(separator: "\n")
                    xml += "    <testcase \(attributes)>\n      <failure message=\"\(escape(mismatches.first?.description ?? "failed"))\">\(escape(text))</failure>\n    </testcase>\n"
                case .error(let message):
                    xml += "    <testcase \(attributes)>\n      <error message=\"\(escape(message))\"/>\n    </testcase>\n"
                }
            }
            xml += "  </testsuite>\n"
        }
        return xml + "</testsuites>\n"
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    static func format(_ seconds: Double) -> String {
        String(format: "%.3f", seconds)
    }
}

/// The JSON report: `{passed, failed, results: [{contract, interaction, file, line, outcome, mismatches|message}]}`.
///
/// ```swift
/// let data = JSONReport.render(report)
/// ```
public enum JSONReport {
    /// Renders `report`.
    public static func render(_ report: VerificationReport) -> String {
        let results: [JSONValue] = report.results.map { result in
            var entry: [String: JSONValue] = [
                "contract": .string(result.contract),
                "interaction": .string(result.interaction.name),
                "file": .string(result.interaction.location.file),
                "line": .integer(result.interaction.location.line),
                "seconds": .number(result.duration),
            ]
            switch result.outcome {
            case .passed:
                entry["outcome"] = .string("passed")
            case .failed(let mismatches):
                entry["outcome"] = .string("failed")
                entry["mismatches"] = .array(mismatches.map {
                    .object(["path": .string($0.path), "expected": .string($0.expected), "actual": .string($0.actual)])
                })
            case .error(let message):
                entry["outcome"] = .string("error")
                entry["message"] = .string(message)
            }
            return .object(entry)
        }
        return JSONValue.object([
            "passed": .integer(report.passedCount), "failed": .integer(report.failedCount), "results": .array(results),
        ]).description
    }
}

extension Sequence where Element: Hashable {
    /// The elements in order, each once.
    func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
