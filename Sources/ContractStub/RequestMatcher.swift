import ContractKit
import Foundation
import WebForms

/// How well a request fits an interaction's request: a score where, position by position, a
/// literal counts more than a narrow matcher, which counts more than a wide one.
struct RequestFit {
    /// Higher is more specific.
    let score: Int
    /// The time steps of the TOTP codes the request carried, to record when this
    /// interaction answers (so the same step is refused next time).
    let codeSteps: [TOTPStep]
    /// What the WebAuthn credentials the request carried change (a registration, a counter),
    /// to apply when this interaction answers.
    let passkeyChanges: [StubPasskeys.Change]
}

/// A TOTP code's time step, and the key (with its digits, period and hash) it is of.
struct TOTPStep {
    let totp: TOTP
    let step: Int64
}

/// An incoming request taken apart once, however many interactions it is compared with.
struct ParsedRequest {
    let request: ContractRequest
    let method: String
    let path: String
    let query: [(name: String, value: String)]
    let json: JSONValue?
    /// The fields of a body sent as a form; nil when the `Content-Type` names no form or the
    /// body is not one.
    let form: [(name: String, value: String)]?

    init(_ request: ContractRequest) {
        self.request = request
        method = request.method.uppercased()
        (path, query) = request.pathAndQuery
        json = request.body.flatMap { try? JSONValue(parsing: $0) }
        form = FormEncoding.isForm(contentType: request.header("Content-Type")) ? FormEncoding.decode(request.body ?? Data()) : nil
    }
}

/// Compares an incoming request with a contract's request spec. Placeholders (`{{name}}`)
/// whose value the stub knows must carry that value; unknown ones accept anything. Matchers
/// accept what satisfies them. Each position scores ``ContractKit/Matcher/specificity``: 4
/// for a literal or a known placeholder, 3 for a narrow matcher, 2 for a wide one, 1 for
/// `any` or an unknown placeholder. A `totp` code scores 4 when it is a code of the saved
/// key within a step of `now` and after the last step accepted for that key, and 1 while
/// the key is unknown (as an unknown placeholder). A `webauthn_…` credential scores 4 when
/// it verifies against the saved options and `passkeys` (``StubPasskeys``), and 1 while the
/// options are not saved.
struct RequestMatcher {
    let known: [String: JSONValue]
    /// The stub's time, for TOTP codes.
    var now = Date()
    /// The last TOTP step the stub accepted, per key.
    var acceptedSteps: [TOTP: Int64] = [:]
    /// The passkeys registered with the stub.
    var passkeys = StubPasskeys()
    /// The steps of the codes fitted so far.
    private var codeSteps: [TOTPStep] = []
    /// What the credentials fitted so far change.
    private var passkeyChanges: [StubPasskeys.Change] = []

    init(known: [String: JSONValue], now: Date = Date(), acceptedSteps: [TOTP: Int64] = [:], passkeys: StubPasskeys = StubPasskeys()) {
        self.known = known
        self.now = now
        self.acceptedSteps = acceptedSteps
        self.passkeys = passkeys
    }

    /// The fit, or the first difference.
    mutating func fit(_ spec: RequestSpec, _ parsed: ParsedRequest) -> Result<RequestFit, Difference> {
        codeSteps = []
        passkeyChanges = []
        let request = parsed.request
        var score = 0
        guard spec.method == parsed.method else {
            return .failure(Difference(weight: 0, text: "method: expected \(spec.method), got \(request.method)"))
        }
        switch fit(spec.path, parsed.path) {
        case .success(let gained): score += gained
        case .failure(let difference): return .failure(difference)
        }
        for item in spec.query {
            guard let value = parsed.query.first(where: { $0.name == item.name })?.value else {
                return .failure(Difference(weight: 2, text: "query \(item.name): missing"))
            }
            switch fit(item.value, text: value, at: "query \(item.name)", weight: 2) {
            case .success(let gained): score += gained
            case .failure(let difference): return .failure(difference)
            }
        }
        for header in spec.headers {
            guard let value = request.header(header.name) else {
                return .failure(Difference(weight: 3, text: "header \(header.name): missing"))
            }
            switch fit(header.value, text: value, at: "header \(header.name)", weight: 3) {
            case .success(let gained): score += gained
            case .failure(let difference): return .failure(difference)
            }
        }
        switch spec.body {
        case .none:
            break
        case .text(let template):
            let text = String(decoding: request.body ?? Data(), as: UTF8.self)
            guard let gained = fit(template, text) else {
                return .failure(
                    Difference(
                        weight: 4,
                        text: "body: expected \(JSONValue.string(template.text)), got \(JSONValue.string(String(text.prefix(80))))"))
            }
            score += gained
        case .json(let expected):
            guard let actual = parsed.json else {
                return .failure(
                    Difference(
                        weight: 4,
                        text: "body: expected JSON, got \(request.body.map { "\($0.count) bytes that are not JSON" } ?? "no body")"))
            }
            switch fit(expected, actual, path: "$") {
            case .success(let gained): score += gained
            case .failure(let difference): return .failure(difference)
            }
        case .form(let form):
            switch fit(form, parsed) {
            case .success(let gained): score += gained
            case .failure(let difference): return .failure(difference)
            }
        case .multipart(let parts):
            switch fit(parts, request) {
            case .success(let gained): score += gained
            case .failure(let difference): return .failure(difference)
            }
        }
        return .success(RequestFit(score: score, codeSteps: codeSteps, passkeyChanges: passkeyChanges))
    }

    /// The path, segment by segment: literal text 4, a placeholder 4 when known and 1 when
    /// not, a `{name}` parameter its matcher's specificity.
    private mutating func fit(_ spec: RequestPath, _ path: String) -> Result<Int, Difference> {
        guard let parameters = spec.match(path, known: known) else {
            return .failure(Difference(weight: 1, text: "path: expected \(spec), got \(path)"))
        }
        // Plain text: 4 for each segment, the most specific a segment gets.
        if spec.isLiteral { return .success(4 * spec.segments.count) }
        var score = 0
        for segment in spec.segments {
            switch segment {
            case .text(let template):
                score += template.requiredVariables.allSatisfy { known[$0] != nil } ? 4 : 1
            case .parameter(let name):
                guard let matcher = spec.params[name], let value = parameters[name] else { continue }
                if let code = matcher.kind.as(TOTPSpec.self) {
                    switch fit(code, .string(value), at: "path parameter \(name)", weight: 1) {
                    case .success(let gained): score += gained
                    case .failure(let difference): return .failure(difference)
                    }
                    continue
                }
                if let mismatch = matcher.mismatches(inText: value, at: "path parameter \(name)").first {
                    return .failure(Difference(weight: 1, text: "\(mismatch)"))
                }
                score += matcher.specificity
            }
        }
        return .success(score)
    }

    /// A text value (query, header) at `place`: a literal with placeholders as a template,
    /// else the matcher.
    mutating func fit(_ matcher: Matcher, text: String, at place: String, weight: Int) -> Result<Int, Difference> {
        switch matcher.kind {
        case .literal(.string(let literal)):
            if !Template.mayHavePlaceholders(literal) {
                if literal == text { return .success(4) }
            } else if let gained = fit(Template(literal), text) {
                return .success(gained)
            }
        case .typed(let code as TOTPSpec):
            return fit(code, .string(text), at: place, weight: weight)
        case .typed(let basic as BasicAuthMatcher):
            return fit(username: basic.username, password: basic.password, text, at: place, weight: weight)
        default:
            guard let resolved = resolvedAgainstKnown(matcher) else { return .success(1) }
            if resolved.mismatches(inText: text, at: "$").isEmpty { return .success(matcher.specificity) }
        }
        return .failure(Difference(weight: weight, text: "\(place): expected \(Self.describe(matcher)), got \(text.abbreviated())"))
    }

    /// A typed matcher whose options hold `{{name}}`s (a `pkce_s256` challenge) with them
    /// filled from what the stub knows; nil while one is unknown, when any value fits at the
    /// lowest score, as a `totp` of a key not yet saved does.
    func resolvedAgainstKnown(_ matcher: Matcher) -> Matcher? {
        guard case .typed = matcher.kind, !matcher.templateVariables.isEmpty else { return matcher }
        var undefined: [String] = []
        let resolved = matcher.resolved(with: known, undefined: &undefined)
        return undefined.isEmpty ? resolved : nil
    }

    /// A TOTP code at `place`: 4 when it is a code of the key `code` names within one step of
    /// ``now`` and later than the last step accepted for that key (its step is then noted), 1
    /// for anything while the key is not saved yet.
    private mutating func fit(_ code: TOTPSpec, _ actual: JSONValue, at place: String, weight: Int) -> Result<Int, Difference> {
        let totp: TOTP?
        do {
            totp = try code.totp(with: known)
        } catch {
            let reason = "\(error)"
            return .failure(Difference(weight: weight, text: "\(place): the totp secret \(code.secret) is no key (\(reason))"))
        }
        guard let totp else { return .success(1) }
        guard case .string(let text) = actual, let step = totp.step(of: text, near: now) else {
            return .failure(Difference(weight: weight, text: "\(place): expected \(code.summary) valid now, got \(actual.abbreviated())"))
        }
        let earlier = codeSteps.filter { $0.totp == totp }.map(\.step) + (acceptedSteps[totp].map { [$0] } ?? [])
        if let last = earlier.max(), step <= last {
            return .failure(
                Difference(weight: weight, text: "\(place): the TOTP code \(text) is of a step at or before one already used (a replay)"))
        }
        codeSteps.append(TOTPStep(totp: totp, step: step))
        return .success(4)
    }

    /// Literal text scores 4, as does a placeholder whose value is known; text with unknown
    /// placeholders 1; nil when it does not fit.
    func fit(_ template: Template, _ actual: String) -> Int? {
        if !Template.mayHavePlaceholders(template.text) || template.variables.isEmpty { return template.text == actual ? 4 : nil }
        let pattern = "^" + template.pattern(known: known) + "$"
        guard actual.range(of: pattern, options: .regularExpression) != nil else { return nil }
        return template.requiredVariables.allSatisfy { known[$0] != nil } ? 4 : 1
    }

    mutating func fit(_ expected: Matcher, _ actual: JSONValue, path: String) -> Result<Int, Difference> {
        switch expected.kind {
        case .typed(let code as TOTPSpec):
            return fit(code, actual, at: "body \(path)", weight: 5)
        case .typed(let credential as WebAuthnSpec):
            switch passkeys.check(credential, actual, known: known) {
            case .success(nil): return .success(1)
            case .success(let change?):
                passkeyChanges.append(change)
                return .success(4)
            case .failure(let error):
                return .failure(Difference(weight: 5, text: "body \(path): \(credential.summary) is refused: \(error)"))
            }
        case .literal(.string(let text)) where Template.mayHavePlaceholders(text) && !Template(text).variables.isEmpty:
            let template = Template(text)
            if let name = template.soleVariable {
                guard let value = known[name] else { return .success(1) }
                return Matcher.equal(value, actual)
                    ? .success(4)
                    : .failure(
                        Difference(weight: 5, text: "body \(path): expected the value saved as '\(name)', got \(actual.abbreviated())"))
            }
            guard case .string(let string) = actual, let gained = fit(template, string) else {
                return .failure(
                    Difference(weight: 5, text: "body \(path): expected \(JSONValue.string(text)), got \(actual.abbreviated())"))
            }
            return .success(gained)
        case .object(let members):
            guard case .object(let object) = actual else {
                return .failure(Difference(weight: 5, text: "body \(path): expected an object, got \(actual.typeName)"))
            }
            // The same keys, no more (an optional one may be absent), and each value fits. The
            // first miss ends the look; which key it names is worked out only if the
            // difference is shown (most candidates of a route miss, and nobody reads why).
            var score = 0
            var present = 0
            for (key, member) in members {
                guard let value = object[key] else {
                    if member.optional { continue }
                    return .failure(objectDifference(members, object, path: path))
                }
                present += 1
                switch fit(member, value, path: path + "." + key) {
                case .success(let gained): score += gained
                case .failure: return .failure(objectDifference(members, object, path: path))
                }
            }
            guard present == object.count else { return .failure(objectDifference(members, object, path: path)) }
            return .success(score)
        case .array(let elements):
            guard case .array(let array) = actual, array.count == elements.count else {
                return .failure(
                    Difference(weight: 5, text: "body \(path): expected an array of \(elements.count), got \(actual.abbreviated())"))
            }
            var score = 0
            for (index, pair) in zip(elements, array).enumerated() {
                switch fit(pair.0, pair.1, path: "\(path)[\(index)]") {
                case .success(let gained): score += gained
                case .failure(let difference): return .failure(difference)
                }
            }
            return .success(score)
        case .literal(let literal):
            return Matcher.equal(literal, actual)
                ? .success(4) : .failure(Difference(weight: 5, text: "body \(path): expected \(literal), got \(actual.abbreviated())"))
        case .typed(let kind) where kind.alternatives != nil:
            let alternatives = kind.alternatives ?? []
            // The alternative that fits best; what it accepted (codes, passkeys) is kept.
            var best: (score: Int, matcher: RequestMatcher)?
            for alternative in alternatives {
                var trial = self
                if case .success(let gained) = trial.fit(alternative, actual, path: path), gained > (best?.score ?? -1) {
                    best = (gained, trial)
                }
            }
            guard let best else {
                return .failure(Difference(weight: 5, text: "body \(path): expected \(expected.summary), got \(actual.abbreviated())"))
            }
            self = best.matcher
            return .success(best.score)
        default:
            guard let resolved = resolvedAgainstKnown(expected) else { return .success(1) }
            if let mismatch = resolved.mismatches(in: actual, at: "body \(path)").first {
                return .failure(Difference(weight: 5, text: "\(mismatch)"))
            }
            return .success(expected.specificity)
        }
    }

    /// Why `object` does not fit `members`, in the order a reader checks: a key the contract
    /// does not list, then a missing key, then the first value (by key) that does not fit.
    private func objectDifference(_ members: [String: Matcher], _ object: [String: JSONValue], path: String) -> Difference {
        Difference(weight: 5, text: describeObjectMismatch(members, object, path: path))
    }

    private func describeObjectMismatch(_ members: [String: Matcher], _ object: [String: JSONValue], path: String) -> String {
        if let extra = object.keys.sorted().first(where: { members[$0] == nil }) {
            return "body \(path).\(extra): not in the contract's request"
        }
        if let missing = members.keys.sorted().first(where: { object[$0] == nil && members[$0]?.optional != true }) {
            return "body \(path).\(missing): missing"
        }
        var trial = self
        for key in members.keys.sorted() {
            guard let value = object[key], let member = members[key] else { continue }
            if case .failure(let difference) = trial.fit(member, value, path: path + "." + key) { return difference.text }
        }
        return "body \(path): does not fit"
    }

    /// A value as a difference shows it: literal text as written, a matcher by its summary.
    static func describe(_ matcher: Matcher) -> String {
        if case .literal(.string(let text)) = matcher.kind { return text }
        return matcher.summary
    }
}

/// Why a request does not fit an interaction; `weight` says how far it got (higher is
/// closer). The text is made only for the difference that gets reported.
struct Difference: Error {
    let weight: Int
    private let describe: @Sendable () -> String

    init(weight: Int, text: @autoclosure @escaping @Sendable () -> String) {
        self.weight = weight
        self.describe = text
    }

    var text: String { describe() }
}
