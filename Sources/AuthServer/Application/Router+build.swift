import AuthCore
import Hummingbird

/// The routes of authd, one controller per feature, generic over the storage so the
/// composition root picks it.
///
/// ```swift
/// let router = buildRouter(login: login, sessions: sessions, accounts: accounts, recovery: nil, factors: factors,
///                          passkeys: nil, provider: provider, federation: federation, emailSignIn: nil, issuer: issuer, readiness: storage.readiness, pool: pool,
///                          browserSessions: browserSessions, configuration: configuration)
/// ```
public func buildRouter<Storage: AuthStorage>(
    login: LoginService<Storage>,
    sessions: SessionService<Storage>,
    accounts: AccountService<Storage>,
    recovery: AccountRecoveryService<Storage>?,
    factors: SecondFactorService<Storage>,
    passkeys: PasskeyService<Storage>?,
    provider: OpenIDProvider<Storage>,
    federation: FederatedLogin<Storage>,
    emailSignIn: EmailSignIn<Storage>? = nil,
    issuer: AccessTokenIssuer,
    readiness: some ReadinessProbe,
    pool: BlockingWorkPool,
    browserSessions: BrowserSessions,
    configuration: AppConfiguration
) -> Router<AuthRequestContext> {
    let router = Router(context: AuthRequestContext.self)
    if configuration.tls != nil {
        router.add(middleware: StrictTransportSecurityMiddleware())
    }
    // Without trusted proxies the context's socket peer is the client: nothing to rewrite.
    if configuration.trustedProxies != .none {
        router.add(middleware: ClientAddressMiddleware(trusted: configuration.trustedProxies))
    }
    router.add(middleware: RequestLogMiddleware())
    router.add(middleware: HTTPMetricsMiddleware(metrics: configuration.metrics))
    let routes = RouteMethods()
    router.add(middleware: ErrorMiddleware(routes: routes))
    router.add(middleware: BodyDeadlineMiddleware(timeout: configuration.bodyTimeout))

    let maxBodySize = configuration.maxBodySize
    router.addRoutes(LoginController(login: login, maxBodySize: maxBodySize).routes)
    let endSession = LogoutController(provider: provider, sessions: browserSessions, pages: .builtIn, maxBodySize: maxBodySize)
    router.addRoutes(SessionController(sessions: sessions, maxBodySize: maxBodySize, endSession: endSession.endSession).routes)
    router.addRoutes(
        AccountController(
            login: login, sessions: sessions, accounts: accounts, throttle: login.throttle, signUpOpen: configuration.signUpOpen,
            recovery: recovery, maxBodySize: maxBodySize
        ).routes
    )
    router.addRoutes(FederationController(federation: federation, sessions: sessions, maxBodySize: maxBodySize).routes)
    if let recovery {
        router.addRoutes(RecoveryController(recovery: recovery, maxBodySize: maxBodySize).routes)
        router.addRoutes(
            AccountPagesController(recovery: recovery, sessions: browserSessions, pages: .builtIn, maxBodySize: maxBodySize).routes)
    }
    if let emailSignIn {
        router.addRoutes(EmailSignInController(email: emailSignIn, maxBodySize: maxBodySize).routes)
        router.addRoutes(
            EmailSignInPagesController(
                email: emailSignIn, factors: factors, sessions: browserSessions, pages: .builtIn, maxBodySize: maxBodySize
            ).routes)
    }
    router.addRoutes(
        SecondFactorController(factors: factors, sessions: sessions, issuer: configuration.issuer, maxBodySize: maxBodySize).routes)
    if let passkeys {
        router.addRoutes(PasskeyController(passkeys: passkeys, sessions: sessions, maxBodySize: maxBodySize).routes)
    }
    if let testClock = configuration.testClock {
        router.addRoutes(TestClockController(clock: testClock, maxBodySize: maxBodySize).routes)
    }
    router.addRoutes(KeyController(issuer: issuer, maxAge: configuration.jwksMaxAge).routes)
    router.addRoutes(
        OAuthController(
            parties: RelyingPartyService(sessions: sessions, throttle: login.throttle), provider: provider, maxBodySize: maxBodySize
        ).routes)
    router.addRoutes(
        AuthorizeController(
            provider: provider, login: login, factors: factors, passkeys: passkeys, signUp: configuration.signUpOpen ? accounts : nil,
            recovery: recovery, federation: federation, emailSignIn: emailSignIn, sessions: browserSessions, pages: .builtIn,
            issuer: configuration.issuer, publicURL: configuration.publicURL, maxBodySize: maxBodySize
        ).routes)
    router.addRoutes(UserInfoController(provider: provider, maxBodySize: maxBodySize).routes)
    router.addRoutes(endSession.routes)
    router.addRoutes(
        MetadataController(
            issuer: configuration.issuer, publicURL: configuration.publicURL, https: configuration.tls != nil,
            trustedProxies: configuration.trustedProxies, maxAge: configuration.jwksMaxAge
        ).routes
    )
    router.addRoutes(
        OperationsController(
            readiness: readiness, pool: pool, registry: configuration.metricsRegistry, metrics: configuration.metrics
        ).routes(metrics: configuration.metricsListen == nil)
    )
    routes.record(router.routes)
    return router
}

/// The router of the metrics port (``AppConfiguration/metricsListen``): `GET /metrics`, and
/// the one error shape for anything else.
public func buildMetricsRouter(readiness: some ReadinessProbe, pool: BlockingWorkPool, configuration: AppConfiguration) -> Router<
    AuthRequestContext
> {
    let router = Router(context: AuthRequestContext.self)
    let routes = RouteMethods()
    router.add(middleware: ErrorMiddleware(routes: routes))
    router.addRoutes(
        OperationsController(
            readiness: readiness, pool: pool, registry: configuration.metricsRegistry, metrics: configuration.metrics
        ).metricsRoutes
    )
    routes.record(router.routes)
    return router
}
