import ContractKit
import Foundation

/// The human report: one line per interaction saying which checks held (`live ✓ stub ✓
/// agreement ✓`), and for each failure its file and line and a diff of expected against
/// actual (status, each header, each JSON path); ANSI colours when asked. Ends with a
/// summary per check (`24 interactions: live 24/24, stub 24/24, agreement 24/24`) and
/// `N passed, N failed`.
///
/// ```swift
/// print(TextReport.render(report, color: isatty(1) == 1))
/// ```
public enum TextReport {
    /// Renders `report`.
    public static func render(_ report: VerificationReport, color: Bool) -> String {
        let paint = ANSIPaint(enabled: color).callAsFunction
        var lines: [String] = []
        var currentContract: String?
        for result in report.results {
            if result.contract != currentContract {
                currentContract = result.contract
                lines.append(paint(result.contract, "1"))
            }
            let checks =
                "["
                + result.checks.map { name, check in
                    "\(name) " + (check == .held ? paint("✓", "32") : check == nil ? paint("–", "31") : paint("✗", "31"))
                }.joined(separator: " ") + "]"
            switch result.outcome {
            case .passed:
                lines.append("  \(paint("✓", "32")) \(result.interaction.name)  \(checks)")
            case .failed(let mismatches):
                lines.append("  \(paint("✗", "31")) \(result.interaction.name)  \(checks)  (\(result.interaction.location))")
                if let request = result.request { lines.append("      \(request.method) \(request.target)") }
                for mismatch in mismatches {
                    lines.append("      \(mismatch.path)")
                    lines.append("        " + paint("- expected: \(mismatch.expected)", "32"))
                    lines.append("        " + paint("+ actual:   \(mismatch.actual)", "31"))
                }
            case .error(let message):
                lines.append("  \(paint("!", "31")) \(result.interaction.name)  \(checks)  (\(result.interaction.location))")
                lines.append("      \(message)")
            }
        }
        if !report.unseenVariants.isEmpty {
            lines.append("")
            let heading =
                "Variants the contracts allow and the provider never answered with" + (report.unseenVariantsAllowed ? " (allowed):" : ":")
            lines.append(paint(heading, report.unseenVariantsAllowed ? "33" : "31"))
            for variant in report.unseenVariants { lines.append("  \(paint("?", report.unseenVariantsAllowed ? "33" : "31")) \(variant)") }
        }
        var summary = "\(report.passedCount) passed, \(report.failedCount) failed"
        if !report.unseenVariants.isEmpty {
            summary += ", \(report.unseenVariants.count) variant\(report.unseenVariants.count == 1 ? "" : "s") never seen live"
        }
        lines.append("")
        lines.append(report.checkSummary)
        lines.append(paint(summary, report.succeeded ? "32" : "31"))
        return lines.joined(separator: "\n")
    }
}

/// The JUnit XML report, one `testcase` per interaction, for CI systems. Each test case
/// carries its checks as properties (`live`, `stub`, `agreement`: `held`, `failed`,
/// `error` or `not_run`), and the run's summary is a property of the `testsuites`.
///
/// ```swift
/// try JUnitReport.render(report).write(toFile: "contracts.xml", atomically: true, encoding: .utf8)
/// ```
public enum JUnitReport {
    /// Renders `report`.
    public static func render(_ report: VerificationReport) -> String {
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        xml +=
            #"<testsuites name="contract verify" tests="\#(report.results.count)" failures="\#(report.failedCount)" time="\#(format(report.duration))">"#
            + "\n"
        xml += #"  <properties><property name="checks" value="\#(report.checkSummary.markupEscaped)"/></properties>"# + "\n"
        if !report.unseenVariants.isEmpty {
            let failure = report.unseenVariantsAllowed ? "" : #" failures="\#(report.unseenVariants.count)""#
            xml += #"  <testsuite name="variants never seen live" tests="\#(report.unseenVariants.count)"\#(failure)>"# + "\n"
            for variant in report.unseenVariants {
                let location = variant.locations.first
                xml +=
                    #"    <testcase name="\#("\(variant.place): \(variant.variant)".markupEscaped)" classname="variants" file="\#((location?.file ?? "").markupEscaped)" line="\#(location?.line ?? 0)">"#
                xml +=
                    report.unseenVariantsAllowed
                    ? "</testcase>\n" : #"<failure message="\#(variant.description.markupEscaped)"/></testcase>"# + "\n"
            }
            xml += "  </testsuite>\n"
        }
        let byContract = Dictionary(grouping: report.results, by: \.contract)
        for contract in report.results.map(\.contract).uniqued() {
            let results = byContract[contract] ?? []
            let failures = results.filter { !$0.passed }.count
            xml += #"  <testsuite name="\#(contract.markupEscaped)" tests="\#(results.count)" failures="\#(failures)">"# + "\n"
            for result in results {
                let attributes =
                    #"name="\#(result.interaction.name.markupEscaped)" classname="\#(contract.markupEscaped)" file="\#(result.interaction.location.file.markupEscaped)" line="\#(result.interaction.location.line)" time="\#(format(result.duration))""#
                let properties = result.checks.map { #"<property name="\#($0.name)" value="\#(CheckResult.label($0.result))"/>"# }.joined()
                xml += "    <testcase \(attributes)>\n      <properties>\(properties)</properties>\n"
                switch result.outcome {
                case .passed:
                    break
                case .failed(let mismatches):
                    let text = mismatches.map(\.description).joined(separator: "\n")
                    xml +=
                        "      <failure message=\"\((mismatches.first?.description ?? "failed").markupEscaped)\">\(text.markupEscaped)</failure>\n"
                case .error(let message):
                    xml += "      <error message=\"\(message.markupEscaped)\"/>\n"
                }
                xml += "    </testcase>\n"
            }
            xml += "  </testsuite>\n"
        }
        return xml + "</testsuites>\n"
    }

    static func format(_ seconds: Double) -> String {
        String(format: "%.3f", seconds)
    }
}

/// The JSON report: `{passed, failed, succeeded, checks: {live|stub|agreement: {held, of}}, results:
/// [{contract, interaction, file, line, outcome, live, stub, agreement, mismatches|message}],
/// unseen_variants: [{place, variant, locations}]}`;
/// a check is `held`, `failed`, `error` or `not_run`, and a check that applied to no
/// interaction is absent from `checks`.
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
            for name in ["live", "stub", "agreement"] {
                let check = result.checks.first { $0.name == name }
                entry[name] = check.map { .string(CheckResult.label($0.result)) } ?? .null
            }
            switch result.outcome {
            case .passed:
                entry["outcome"] = .string("passed")
            case .failed(let mismatches):
                entry["outcome"] = .string("failed")
                entry["mismatches"] = .array(
                    mismatches.map {
                        .object(["path": .string($0.path), "expected": .string($0.expected), "actual": .string($0.actual)])
                    })
            case .error(let message):
                entry["outcome"] = .string("error")
                entry["message"] = .string(message)
            }
            return .object(entry)
        }
        var checks: [String: JSONValue] = [:]
        for name in ["live", "stub", "agreement"] {
            if let tally = report.tally(name) { checks[name] = .object(["held": .integer(tally.held), "of": .integer(tally.of)]) }
        }
        let unseen: [JSONValue] = report.unseenVariants.map { variant in
            .object([
                "place": .string(variant.place), "variant": .string(variant.variant),
                "locations": .array(variant.locations.map { .string($0.description) }),
            ])
        }
        return JSONValue.object([
            "passed": .integer(report.passedCount), "failed": .integer(report.failedCount), "checks": .object(checks),
            "results": .array(results), "unseen_variants": .array(unseen), "succeeded": .bool(report.succeeded),
        ]).description
    }
}

extension CheckResult {
    /// `held`, `failed`, `error`, or `not_run` for nil: the word the JSON and JUnit reports use.
    static func label(_ result: CheckResult?) -> String {
        switch result {
        case .held: "held"
        case .failed: "failed"
        case .error: "error"
        case nil: "not_run"
        }
    }
}

extension Sequence where Element: Hashable {
    /// The elements in order, each once.
    func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}

/// Colours text with an ANSI SGR code (`"31"` red, `"32"` green, `"1"` bold) when enabled.
struct ANSIPaint {
    let enabled: Bool

    func callAsFunction(_ text: String, _ code: String) -> String {
        enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
