import ContractKit

extension Agreement {
    /// Every way the deliveries the live provider and the stub sent for one interaction
    /// disagree, as responses are compared: each declared header present on both sides, the
    /// same JSON shape (keys and types; with `declared`, only what the contract declares).
    /// Values the contract pins (literals) were already checked on each side, so two
    /// deliveries that keep the contract hold the same ones; a delivery missing on either
    /// side was reported by that side's check and is not compared.
    ///
    /// ```swift
    /// let differences = Agreement.compare(liveDeliveries: live, stubDeliveries: stub, specs: interaction.delivers, mode: .full)
    /// ```
    public static func compare(
        liveDeliveries: [ContractRequest?], stubDeliveries: [ContractRequest?], specs: [Delivery], mode: AgreementMode
    ) -> [Mismatch] {
        var found: [Mismatch] = []
        for (index, spec) in specs.enumerated() {
            guard index < liveDeliveries.count, index < stubDeliveries.count,
                let live = liveDeliveries[index], let stub = stubDeliveries[index]
            else { continue }
            let label = "delivery \(spec.summary)"
            var differences: [Mismatch] = []
            for name in spec.headers.keys.sorted() {
                switch (live.header(name), stub.header(name)) {
                case (.some, nil):
                    differences.append(Mismatch(path: "header \(name)", expected: "present (live)", actual: "missing (stub)"))
                case (nil, .some):
                    differences.append(Mismatch(path: "header \(name)", expected: "missing (live)", actual: "present (stub)"))
                default: break
                }
            }
            let liveJSON = live.body.flatMap { try? JSONValue(parsing: $0) }
            let stubJSON = stub.body.flatMap { try? JSONValue(parsing: $0) }
            switch (liveJSON, stubJSON) {
            case (let liveJSON?, let stubJSON?):
                let declared: Matcher?? = mode == .declared ? .some(spec.body) : .none
                differences += shape(liveJSON, stubJSON, at: "$", declared: declared)
            case (.some, nil): differences.append(Mismatch(path: "body", expected: "JSON (live)", actual: "no JSON (stub)"))
            case (nil, .some): differences.append(Mismatch(path: "body", expected: "no JSON (live)", actual: "JSON (stub)"))
            case (nil, nil): break
            }
            found += differences.map { Mismatch(path: "\(label) \($0.path)", expected: $0.expected, actual: $0.actual) }
        }
        return found
    }
}
