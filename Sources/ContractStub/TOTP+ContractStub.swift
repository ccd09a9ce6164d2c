import ContractKit

/// The TOTP codes (RFC 6238) a client test sends the stub, with nothing imported beyond
/// `ContractStub`: the stub accepts a code of the secret it answered an enrolment with,
/// once, within one 30-second step of its clock.
///
/// ```swift
/// import ContractStub
///
/// let enrolment = try await api.enrolTOTP()                          // through stub.urlSession
/// let code = try TOTP(secret: enrolment.secret).code(at: Date())     // "123456"-shaped
/// try await api.confirmTOTP(code: code)
/// ```
public typealias TOTP = ContractKit.TOTP
