import ContractKit
import Foundation

/// What `contract probe` found: per interaction, each variant tried and how the provider
/// answered it.
public struct ProbeReport: Sendable {
    /// Why an interaction's variants could not be sent.
    public struct NotProbed: Error, Sendable, CustomStringConvertible {
        /// Why.
        public let description: String

        init(_ description: String) {
            self.description = description
        }
    }

    /// One variant and its answer.
    public struct VariantResult: Sendable {
        /// What was changed.
        public let name: String
        /// What was sent.
        public let request: ContractRequest
        /// The live status, nil when nothing came back.
        public var status: Int?
        /// The answer's `error` member, when it has one.
        public var errorCode: String?
        /// Why it failed; nil when it passed.
        public var failure: String?
        /// The interaction the stub answered it with (nil: the stub answers 501, no
        /// contract covers this request), and that answer's status.
        public var stubAnswer: (interaction: String, status: Int)?

        /// The interaction that describes the live answer: the stub answered with it, and
        /// with the live status.
        public var describedBy: String? {
            guard let stubAnswer, stubAnswer.status == status else { return nil }
            return stubAnswer.interaction
        }

        /// Whether the answer was a timely 4xx of a declared shape.
        public var passed: Bool { failure == nil }
    }

    /// One interaction's variants.
    public struct InteractionProbe: Sendable {
        /// The contract's name.
        public let contract: String
        /// The interaction.
        public let interaction: Interaction
        /// The variants sent, in order.
        public var variants: [VariantResult] = []
        /// Variants left out because an earlier interaction's variant was the same request.
        public var repeats = 0
        /// Why none were sent, if so.
        public var note: String?
    }

    /// Every interaction probed, in file order.
    public let interactions: [InteractionProbe]
    /// Seconds the probe took.
    public let duration: Double

    /// Variants whose answer held.
    public var passedCount: Int { interactions.reduce(0) { $0 + $1.variants.filter(\.passed).count } }
    /// Variants whose answer did not.
    public var failedCount: Int { interactions.reduce(0) { $0 + $1.variants.filter { !$0.passed }.count } }
    /// Whether every variant held, and at least one was tried.
    public var succeeded: Bool { failedCount == 0 && passedCount > 0 }
}

/// The human report of a probe: per interaction its variants, each with the answer, a
/// failure's reason, and whether a contract describes the answer; then a summary and
/// `N passed, N failed`.
///
/// ```swift
/// print(ProbeTextReport.render(report, color: false))
/// ```
public enum ProbeTextReport {
    /// Renders `report`.
    public static func render(_ report: ProbeReport, color: Bool) -> String {
        let paint = ANSIPaint(enabled: color).callAsFunction
        var lines: [String] = []
        var currentContract: String?
        for probe in report.interactions {
            if probe.contract != currentContract {
                currentContract = probe.contract
                lines.append(paint(probe.contract, "1"))
            }
            let described = probe.variants.filter { $0.describedBy != nil }.count
            var heading = "  \(probe.interaction.name) (\(probe.interaction.location))"
            if let note = probe.note {
                heading += ": \(note)"
            } else {
                heading += ": \(probe.variants.count) variant\(probe.variants.count == 1 ? "" : "s"), \(described) described by a contract"
                if probe.repeats > 0 { heading += ", \(probe.repeats) already tried" }
            }
            lines.append(heading)
            for variant in probe.variants {
                let answer =
                    variant.status.map { status in [String(status), variant.errorCode].compactMap { $0 }.joined(separator: " ") }
                    ?? "no answer"
                let coverage =
                    if let described = variant.describedBy { "as '\(described)'" } else if let stub = variant.stubAnswer {
                        "a contract says \(stub.status): '\(stub.interaction)'"
                    } else { "no contract describes it" }
                if let failure = variant.failure {
                    lines.append("    \(paint("✗", "31")) \(variant.name) → \(answer): \(failure)  [\(coverage)]")
                } else {
                    lines.append("    \(paint("✓", "32")) \(variant.name) → \(answer)  [\(coverage)]")
                }
            }
        }
        let all = report.interactions.flatMap(\.variants)
        let undescribed = all.filter { $0.describedBy == nil }.count
        let probed = report.interactions.filter { !$0.variants.isEmpty }.count
        lines.append("")
        lines.append(
            "\(report.interactions.count) interactions, \(probed) with variants; \(all.count) variants: "
                + "\(all.count - undescribed) answered as a contract describes, \(undescribed) as none does"
        )
        lines.append(paint("\(report.passedCount) passed, \(report.failedCount) failed", report.succeeded ? "32" : "31"))
        return lines.joined(separator: "\n")
    }
}

/// The machine report of a probe, one JSON object:
/// `{"passed", "failed", "interactions": [{"contract", "interaction", "file", "line", "note",
/// "repeats", "variants": [{"name", "method", "target", "status", "error", "passed",
/// "failure", "described_by"}]}]}`.
public enum ProbeJSONReport {
    /// Renders `report`.
    public static func render(_ report: ProbeReport) -> String {
        func optional(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        let interactions = report.interactions.map { probe -> JSONValue in
            .object([
                "contract": .string(probe.contract),
                "interaction": .string(probe.interaction.name),
                "file": .string(probe.interaction.location.file),
                "line": .integer(probe.interaction.location.line),
                "note": optional(probe.note),
                "repeats": .integer(probe.repeats),
                "variants": .array(
                    probe.variants.map { variant in
                        .object([
                            "name": .string(variant.name),
                            "method": .string(variant.request.method),
                            "target": .string(variant.request.target),
                            "status": variant.status.map(JSONValue.integer) ?? .null,
                            "error": optional(variant.errorCode),
                            "passed": .bool(variant.passed),
                            "failure": optional(variant.failure),
                            "described_by": optional(variant.describedBy),
                            "stub_status": variant.stubAnswer.map { .integer($0.status) } ?? .null,
                            "stub_interaction": optional(variant.stubAnswer?.interaction),
                        ])
                    }
                ),
            ])
        }
        return JSONValue.object([
            "passed": .integer(report.passedCount),
            "failed": .integer(report.failedCount),
            "duration": .number(report.duration),
            "interactions": .array(interactions),
        ]).description
    }
}
