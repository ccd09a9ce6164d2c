import ContractKit
import ContractStub

/// How far `contract verify` compares the live response with the stub's.
public enum AgreementMode: String, Sendable, CaseIterable {
    /// Status, declared headers, and the JSON shape of the whole body — keys and JSON
    /// types, recursively, including keys the contract does not declare, so a lenient
    /// contract that leaves out a field the service sends is caught.
    case full
    /// Status, declared headers, and the shape of what the contract declares only, for
    /// consumer-written contracts that are lenient on purpose.
    case declared
}

/// Compares a live response with the stub's response to the same interaction. Values are
/// not compared: where the contract fixes a value, both sides were already checked
/// against it, and other values (tokens, ids, times) legitimately differ between calls.
/// Nor are the places where the contract allows variants (a `one_of`, an optional key that
/// one side left out): each side was checked against the contract there, and `verify`
/// reports a variant the provider never answered with (``VariantCoverage``).
///
/// ```swift
/// let differences = Agreement.compare(live: live, stub: stub, spec: interaction.response, mode: .full)
/// ```
public enum Agreement {
    /// Every way the two responses disagree.
    public static func compare(live: ContractResponse, stub: ContractResponse, spec: ResponseSpec, mode: AgreementMode) -> [Mismatch] {
        var found: [Mismatch] = []
        // Where the contract leaves the status open, each side was checked against the list.
        if live.status != stub.status, !(spec.statuses.contains(live.status) && spec.statuses.contains(stub.status)) {
            found.append(Mismatch(path: "status", expected: "\(live.status) (live)", actual: "\(stub.status) (stub)"))
        }
        for name in spec.headers.keys.sorted() {
            switch (live.header(name), stub.header(name)) {
            case (.some, nil): found.append(Mismatch(path: "header \(name)", expected: "present (live)", actual: "missing (stub)"))
            case (nil, .some): found.append(Mismatch(path: "header \(name)", expected: "missing (live)", actual: "present (stub)"))
            default: break
            }
        }
        found += compareBrowserParts(live: live, stub: stub, spec: spec, mode: mode)
        // A form is compared as a flat JSON object of strings: the same fields on both sides.
        if case .form(let form) = spec.body, let liveForm = FormBody.object(of: live.body), let stubForm = FormBody.object(of: stub.body) {
            let contract = form.objectMatcher
            return found + shape(liveForm, stubForm, at: "form", declared: mode == .declared ? .some(contract) : .none, contract: contract)
        }
        switch (live.json, stub.json) {
        case (let liveJSON?, let stubJSON?):
            let contract: Matcher?
            if case .json(let matcher) = spec.body { contract = matcher } else { contract = nil }
            found += shape(liveJSON, stubJSON, at: "$", declared: mode == .declared ? .some(contract) : .none, contract: contract)
        case (.some, nil):
            found.append(Mismatch(path: "body", expected: "JSON (live)", actual: "no JSON (stub)"))
        case (nil, .some):
            found.append(Mismatch(path: "body", expected: "no JSON (live)", actual: "JSON (stub)"))
        case (nil, nil):
            break
        }
        return found
    }

    /// `declared` is nil for full comparison, `.some(matcher)` to follow only what a
    /// matcher declares (`.some(nil)`: nothing declared below here). `contract` is the
    /// contract's matcher here, if it has one: where it allows variants, the sides may differ.
    static func shape(_ live: JSONValue, _ stub: JSONValue, at path: String, declared: Matcher??, contract: Matcher? = nil) -> [Mismatch] {
        if case .some(nil) = declared { return [] }
        if case .typed(let kind)? = contract?.kind, kind.alternatives != nil { return [] }
        guard kind(live) == kind(stub) else {
            return [Mismatch(path: path, expected: "\(kind(live)) (live)", actual: "\(kind(stub)) (stub)")]
        }
        switch (live, stub) {
        case (.object(let liveMembers), .object(let stubMembers)):
            var keys = Set(liveMembers.keys).union(stubMembers.keys)
            var childDeclared: [String: Matcher]?
            if case .some(let matcher?) = declared {
                guard case .object(let members) = matcher.kind else { return [] }
                childDeclared = members
                keys = keys.intersection(members.keys)
            }
            var contractMembers: [String: Matcher] = [:]
            if case .object(let members)? = contract?.kind { contractMembers = members }
            return keys.sorted().flatMap { key -> [Mismatch] in
                let childPath = path == "$" ? "$.\(key)" : "\(path).\(key)"
                switch (liveMembers[key], stubMembers[key]) {
                case (let l?, let s?):
                    let next: Matcher?? = childDeclared.map { .some($0[key]) } ?? .none
                    return shape(l, s, at: childPath, declared: next, contract: contractMembers[key])
                case (.some, nil) where contractMembers[key]?.optional == true, (nil, .some) where contractMembers[key]?.optional == true:
                    return []
                case (.some, nil): return [Mismatch(path: childPath, expected: "present (live)", actual: "missing (stub)")]
                case (nil, .some): return [Mismatch(path: childPath, expected: "missing (live)", actual: "present (stub)")]
                case (nil, nil): return []
                }
            }
        case (.array(let liveElements), .array(let stubElements)):
            var next: Matcher?? = .none
            if case .some(let matcher?) = declared {
                if case .typed(let kind) = matcher.kind, let element = kind.matcher(forIndex: 0) {
                    next = .some(element)
                } else {
                    return []
                }
            }
            return zip(liveElements, stubElements).enumerated().flatMap { index, pair in
                var element: Matcher?
                switch contract?.kind {
                case .typed(let kind)?: element = kind.matcher(forIndex: index)
                case .array(let elements)? where index < elements.count: element = elements[index]
                default: element = nil
                }
                return shape(pair.0, pair.1, at: "\(path)[\(index)]", declared: next, contract: element)
            }
        default:
            return []
        }
    }

    /// The redirect's query parameters and the cookies set: under `full`, the same names on
    /// both sides (a contract that leaves out a parameter or a cookie the provider sends is
    /// caught); under `declared`, the declared ones only. Parameters the contract makes
    /// optional may differ.
    static func compareBrowserParts(live: ContractResponse, stub: ContractResponse, spec: ResponseSpec, mode: AgreementMode) -> [Mismatch] {
        var found: [Mismatch] = []
        func compare(
            _ liveNames: Set<String>, _ stubNames: Set<String>, declared: Set<String>, skipping: Set<String>, at place: (String) -> String
        ) {
            var names = liveNames.symmetricDifference(stubNames).subtracting(skipping)
            if mode == .declared { names.formIntersection(declared) }
            for name in names.sorted() {
                let onLive = liveNames.contains(name)
                found.append(
                    Mismatch(
                        path: place(name), expected: onLive ? "present (live)" : "missing (live)",
                        actual: onLive ? "missing (stub)" : "present (stub)"))
            }
        }
        if let location = spec.location {
            let names = { (response: ContractResponse) in
                Set(response.header("Location").map { LocationSpec.parts(of: $0).query.map(\.name) } ?? [])
            }
            compare(
                names(live), names(stub), declared: Set(location.query.map(\.name)),
                skipping: Set(location.query.filter { $0.value.optional }.map(\.name)), at: { "location.query.\($0)" })
        }
        if !spec.cookies.isEmpty || mode == .full {
            compare(
                Set(SetCookie.all(in: live.headers).map(\.name)), Set(SetCookie.all(in: stub.headers).map(\.name)),
                declared: Set(spec.cookies.keys), skipping: [], at: { "cookie \($0)" })
        }
        return found
    }

    /// The JSON type, with integers and other numbers both `number`.
    private static func kind(_ value: JSONValue) -> String {
        switch value {
        case .integer, .number: "number"
        default: value.typeName
        }
    }
}

/// A ``ContractTransport`` to an in-process ``ContractStub``.
///
/// ```swift
/// let transport = StubTransport(stub: try ContractStub(contracts: suite.contracts))
/// ```
public struct StubTransport: ContractTransport {
    /// The stub.
    public let stub: ContractStub
    /// Where the deliveries of the stub's answers go, if anywhere.
    public let deliveries: DeliveryInbox?

    /// Wraps `stub`; what its answers deliver is recorded in `deliveries`.
    public init(stub: ContractStub, deliveries: DeliveryInbox? = nil) {
        self.stub = stub
        self.deliveries = deliveries
    }

    public func send(_ request: ContractRequest) async throws -> ContractResponse {
        var request = request
        // Its answers' `{{request.base_url}}`: the origin its cookies are kept for.
        request.baseURL = request.baseURL ?? baseURL
        let exchange = stub.exchange(request)
        for delivery in exchange.deliveries { deliveries?.record(delivery.request) }
        return exchange.response
    }
}
