// Over 300 lines on purpose: the embedded gateway's composition root. Every part is built here once, in the order
// they depend on each other, started after listening and closed in reverse; read top to bottom, it is the process.
import { mkdirSync } from 'node:fs';
import { createLoggers, Egress, idState, pinoRequestLog, secretBoxFrom, templateRequestLog, type Logger, type RequestLog as RequestLines } from '@aduana/shared';
import { loadGatewayConfig, type GatewayConfig } from './config.js';
import { openGatewayStore } from './storage/gateway-store.js';
import { TenantStore } from './identity/tenants/tenant-store.js';
import { TokenStore } from './identity/auth/token-store.js';
import { Authenticator } from './identity/auth/authenticate.js';
import { PolicyStore } from './policy/policy-store.js';
import { PolicyValidator } from './policy/validate-policy.js';
import { TenantRuntimes, createLimitMemory, evaluationLimits } from './policy/runtime/tenant-runtime.js';
import { DecisionStore } from './governance/decisions/decision-store.js';
import { DecisionEngine } from './governance/decisions/decision-engine.js';
import { CallerAdmission } from './governance/caller-admission.js';
import { DecideRequestValidator } from './governance/decisions/decide-request.js';
import { HttpServer, type RouteInfo } from './http/server.js';
import { BodyBudget, createBodyBudgetMemory } from './http/body-budget.js';
import { registerPolicyRoutes } from './api/policies-routes.js';
import { registerPolicyDryRunRoutes } from './api/policy-dry-run-routes.js';
import { registerDecisionAdminRoutes } from './api/decision-routes.js';
import { registerHealthRoutes } from './api/health-routes.js';
import { bootstrap, bootstrapOptions } from './identity/tenants/bootstrap.js';
import type { GatewayDeps } from './gateway-deps.js';
import { LedgerRetention } from './ledger/index.js';
import { openGatewayLedger } from './gateway-ledger.js';
import { AuditTrail } from './governance/audit-trail.js';
import { EventIngestor } from './governance/events/event-ingestor.js';
import { IngestValidator } from './governance/events/ingest-event.js';
import { registerEventReadRoutes } from './api/events-routes.js';
import { registerTelemetryRoutes } from './api/telemetry-routes.js';
import { MetricStore } from './telemetry/metric-store.js';
import { UserStore } from './identity/users/user-store.js';
import { SessionStore } from './identity/sessions/session-store.js';
import { StoredResponses, createRecentResponses } from './proxy/stored/stored-responses.js';
import { LoginFailures, loginFailureLimits } from './identity/sessions/login-failures.js';
import { PasswordLogin, passwordLoginOptions } from './identity/sessions/password-login.js';
import { SessionPruner } from './identity/sessions/session-pruner.js';
import { registerUserRoutes } from './api/user-routes.js';
import { registerTenantRoutes } from './api/tenant-routes.js';
import { localConsoleLedger } from './api/console/console-ledger.js';
import { DecisionConsoleData } from './api/console/console-data.js';
import { AGENT_PROFILES, AgentRegistry } from './agents/agent-registry.js';
import { HeartbeatMonitor } from './agents/heartbeat-monitor.js';
import { buildPackPolicies } from './agents/pack-policies.js';
import { registerAgentRoutes } from './api/agents-routes.js';
import { TelemetryService } from './telemetry/telemetry-service.js';
import { LogStore } from './telemetry/log-store.js';
import { ErrorStore } from './telemetry/error-store.js';
import { PrometheusMetrics } from './telemetry/prometheus-metrics.js';
import { ScrapeCredential } from './telemetry/scrape-credential.js';
import { scrapeGuard } from './telemetry/scrape-guard.js';
import { SidecarMode } from './fleet/sidecar/sidecar-mode.js';
import { compileOwnSchemasSoon } from './platform/gateway-ajv.js';
import { REQUEST_LOG_CHANGES, RequestLog } from './request-log/request-log.js';
import { RequestLogPruner } from './request-log/request-log-pruner.js';
import { registerRequestLogRoutes } from './api/request-log-routes.js';
import { CredentialStore } from './credentials/credential-store.js';
import { registerCredentialRoutes } from './api/credentials-routes.js';
import { registerUpstreamRoutes } from './api/upstream-routes.js';
import { RouteStore } from './proxy/routing/route-store.js';
import { ROUTE_CHANGES } from './proxy/routing/router.js';
import { RequestThreads } from './threads/request-threads.js';
import { gatewayThreadCount } from './platform/thread-count.js';
import type { NoticeSlot } from './platform/notice-slot.js';
import { Lifecycle } from './platform/lifecycle.js';
import { TENANT_RUNTIME_CHANGES } from './policy/runtime/runtime-notices.js';
import { CREDENTIAL_CHANGES } from './storage/credential-revision.js';
import { mountAgentsCalls } from './api/mount-agents-calls.js';
import { mountMcp } from './api/mount-mcp.js';
import { mountAuthService } from './api/mount-auth-service.js';
import { ThreadedLedger } from './governance/writer/threaded-ledger.js';

export interface RunningGateway {
  /** http://host:port of the governance API and proxy. */
  readonly url: string;
  /** The agents' port (AGENT_PORT), or null without one. */
  readonly agentsUrl: string | null;
  /** http://host:port of the authentication service. */
  readonly authUrl: string;
  readonly deps: GatewayDeps;
  /** The routes each port serves (read-only; the fallbacks for unknown paths are not listed). */
  readonly routes: { readonly api: readonly RouteInfo[]; readonly auth: readonly RouteInfo[] };
  /** Request body bytes held in memory right now, both ports together (a gauge). */
  bodyBytesInFlight(): number;
  /** Fleet mode: the sidecar's bundle state and instance id; null in the embedded default. */
  readonly sidecar: SidecarMode | null;
  /** Ledger retention's schedule (runs only with LEDGER_RETENTION_DAYS > 0). */
  readonly retention: LedgerRetention;
  /** The sampled request log and its retention sweep (REQUEST_LOG_PRUNE_INTERVAL_S). */
  readonly requestLog: { readonly log: RequestLog; readonly pruner: RequestLogPruner };
  /** The admin token, when this start bootstrapped an empty data dir. */
  readonly bootstrapToken: string | null;
  /**
   * Resolves once what request threads did so far (decisions, their ledger entries and decision records, what
   * telemetry and the agents' registry keep of them) is seen here; at once without request threads. The HTTP routes
   * that read these wait for it themselves; this is for callers of `deps` (tests, an embedding process).
   */
  threadsCaughtUp(): Promise<void>;
  /** Resolves once the request threads take connections (they join after the gateway listens); at once without them. */
  threadsReady(): Promise<void>;
  /** Stops accepting, finishes in-flight requests, flushes LMDB. */
  close(): Promise<void>;
}

export interface GatewayOptions {
  config?: GatewayConfig;
  logger?: Logger;
  /** The one-line-per-request log (default: a redaction-free logger on the same destination as `logger`). */
  requestLog?: Logger;
}

/** Builds every part once (stores, validators, compiled schemas), registers routes, listens. */
export async function startGateway(options: GatewayOptions = {}): Promise<RunningGateway> {
  const config = options.config ?? loadGatewayConfig();
  const loggers = options.logger ? { logger: options.logger, requestLog: options.requestLog ?? options.logger } : createLoggers('aduana-gateway', { level: config.logLevel, buffered: true });
  const { logger, requestLog } = loggers;
  // A logger made here writes request lines by template; one given by the caller through its own `info`.
  const requestLines = options.logger ? pinoRequestLog(requestLog) : templateRequestLog(requestLog);
  // Every part opened below registers how it closes: `close` and a start that fails part-way close the same parts, the
  // last opened first; the logs last of all.
  const life = new Lifecycle((err, part) => logger.error({ err, part }, 'a part of the gateway did not close cleanly'));
  const started = { listening: false };
  life.onClose('logs', async () => {
    if (started.listening) logger.info('gateway stopped');
    requestLines.flush();
    await new Promise<void>((resolve) => logger.flush(() => resolve()));
    await new Promise<void>((resolve) => requestLog.flush(() => resolve()));
  });
  return life.start(() => openGateway(config, logger, requestLines, life, started));
}

/** The gateway's parts, each registered with `life` as it is opened; `started.listening` once it listens. */
async function openGateway(config: GatewayConfig, logger: Logger, requestLines: RequestLines, life: Lifecycle, started: { listening: boolean }): Promise<RunningGateway> {
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  // Every outbound HTTP connection (providers, MCP servers, telemetry, the control plane, the TSA) leaves through this:
  // straight, or through the company's egress proxy (HTTPS_PROXY, HTTP_PROXY, NO_PROXY), decided now.
  const egress = life.own('egress', new Egress({ httpsProxy: config.httpsProxy, httpProxy: config.httpProxy, noProxy: config.noProxy }));
  const store = life.own('store', openGatewayStore(config.dataDir));
  const tenants = new TenantStore(store);
  const tokens = new TokenStore(store);
  const policies = new PolicyStore(store);
  // The process's limit counters, in shared memory: request threads count against the same records (docs/architecture.md,
  // "Limits in shared memory").
  const limitMemory = createLimitMemory();
  const runtimes = new TenantRuntimes(tenants, policies, store.counters, evaluationLimits(config), Date.now, limitMemory);
  // Request threads are told what changed here of what they cache (set once they started).
  let notifyThreads: (<T>(slot: NoticeSlot<T>, value: T) => void) | null = null;
  // Where the ledger's and the decision index's writes are made (LEDGER_WRITER; docs/architecture.md, "Threads").
  const { ledger, decisionWrites, ready: ledgerReady, onThread: ledgerOnThread } = openGatewayLedger(config, store, tenants, egress, logger);
  // Pending group commits are written and flushed before the environment closes.
  life.own('ledger', ledger);
  const decisions = new DecisionStore(store, decisionWrites);
  const audit = new AuditTrail(decisions, ledger, logger);
  const metrics = new MetricStore(store.metrics);
  const users = new UserStore(store);
  const sessions = new SessionStore(store, config.sessionTtlHours * 3_600_000);
  const sessionPruner = life.own('session pruner', new SessionPruner(sessions, config.sessionPruneIntervalS * 1000, logger));
  // The opt-in sampled request log (docs/console.md, "Request log"): its records sealed under REQUEST_LOG_KEY.
  const callSamples = new RequestLog(store, secretBoxFrom(config.requestLogKey, 'requestLogKey', 'REQUEST_LOG_KEY'), logger);
  const requestLogPruner = life.own('request log pruner', new RequestLogPruner(callSamples, config.requestLogPruneIntervalS * 1000, logger));
  // Provider credentials routes name (docs/routing.md, "Provider credentials"): sealed under CREDENTIALS_KEY.
  const credentials = new CredentialStore(store.providerCredentials, config.credentialsKey);
  const authenticator = new Authenticator({ tokens, sessions, users }, Date.now, store.credentials);
  const loginFailures = new LoginFailures(loginFailureLimits(config));
  const passwordLogin = new PasswordLogin(users, sessions, loginFailures, passwordLoginOptions(config));
  const policyValidator = new PolicyValidator();
  runtimes.sets.usePackPolicies(buildPackPolicies(policyValidator));
  const agents = new AgentRegistry(store.agents, {
    intervalMs: config.heartbeatIntervalS * 1000,
    requireRegistered: config.requireRegisteredAgents,
    maxPerTenant: config.agentsMaxPerTenant,
    flushMs: config.agentFlushMs,
    // A pack is compiled when an agent gets it, not on its first request (a set that cannot compile answers then).
    onPack: (tenantId, pack) => {
      try {
        runtimes.sets.agentSet(tenantId, pack);
      } catch (err) {
        logger.warn({ err, tenantId, pack }, "an agent's policy set cannot be compiled");
      }
    },
    onProfile: (agent) => notifyThreads?.(AGENT_PROFILES, agent),
  });
  // A sidecar takes its tenants, tokens, users, policies and agents from its control plane (docs/fleet.md).
  // The tenants' routes (docs/routing.md); a sidecar's come in its bundle, and it resolves their credentials itself.
  const routes = new RouteStore(store.routes);
  const routing = { changed: (tenantId: string) => routes.onChange?.(tenantId), has: (tenantId: string, name: string) => credentials.has(tenantId, name) };
  const sidecar = config.controlPlaneUrl ? life.own('sidecar', await SidecarMode.open(config, store, runtimes, agents, ledger, logger, decisions, (d) => audit.recordResolution(d), egress, callSamples, routing)) : null;
  // Spend totals, metrics and agents' last contact written before the sidecar saves what it has not shipped yet.
  life.onClose('flushes', () => Promise.all([runtimes.limits.flushSpend(), metrics.flush(), agents.flush()]));
  // Retention (off by default). A sidecar's entries are released only once its control plane acknowledged them: the
  // shipper resumes from that cursor, and a local export past it must not let an unshipped entry go.
  const retention = life.own('retention', new LedgerRetention(ledger, {
    days: config.ledgerRetentionDays,
    intervalMs: config.ledgerPruneIntervalS * 1000,
    ...(sidecar ? { releasedThrough: (tenantId: string) => sidecar.shipper.ackedThrough(tenantId) } : {}),
    onPruned: (result) => logger.info(result, 'ledger entries pruned by retention'),
    onError: (err, tenantId) => logger.error({ err, tenantId }, 'ledger retention failed for a tenant'),
  }));
  // Loaded only with Redis configured: ioredis subclasses String, which leaves String.prototype in dictionary mode for
  // the whole process and every optimised property load on a string slower (docs/benchmarks-history.md, "Winning it
  // back, second pass").
  const shared = config.redisUrl
    ? new (await import('./fleet/limits/shared-limits.js')).SharedLimits(
        {
          url: config.redisUrl,
          commandTimeoutMs: config.redisCommandTimeoutMs,
          connectTimeoutMs: config.redisConnectTimeoutMs,
          reconnectMaxMs: config.redisReconnectMaxMs,
          spendSyncMs: config.redisSpendSyncMs,
        },
        runtimes.limits,
        logger,
        (tenantId) => metrics.record(tenantId, 'limits.redis_fallbacks', '', 1, Date.now()),
      )
    : null;
  if (shared) {
    life.own('shared limits', shared);
    runtimes.useSharedLimits(shared);
  }
  // The agents' port's request threads (GATEWAY_THREADS − 1), launched now so they build their apps while the rest is
  // built; the port's acceptor hands them connections as it hands the main thread's agents' app. There are none
  // without an agents' port, nor where the agents' calls need what only this thread holds: a ledger written inline
  // (theirs write through the writer thread), a sidecar's bundle, the Redis client, the step timings' histogram
  // (docs/architecture.md, "Threads").
  const writer = ledger instanceof ThreadedLedger && sidecar === null && shared === null && config.agentPort >= 0 && !config.proxyStepTimings ? ledger : null;
  const threadCount = gatewayThreadCount(config.gatewayThreads, writer !== null);
  // Memory every thread shares: the body bytes in flight, and which tenant made each response the provider stores.
  const bodyMemory = createBodyBudgetMemory();
  const recentResponses = createRecentResponses();
  const threads =
    writer !== null && threadCount > 1
      ? RequestThreads.launch({
          count: threadCount - 1,
          logger,
          graceMs: 10_000,
          judging: () => ({ config, limits: limitMemory, bodyBudget: bodyMemory, ledger: writer.attach(), ids: idState(), recentResponses }),
          onObserved: (msg) => {
            for (const o of msg.decisions) {
              // The agent's last contact (registered on first use, as here), then the observers: telemetry, its risk.
              try {
                agents.admit(o.d.tenant_id, o.d.agent_id, Date.now());
              } catch {
                // Refused here as there (unregistered, over the limit): the thread refused it before deciding.
              }
              audit.observed(o.d, o.latencyMs, o.outcome, o.costBrl, o.route);
            }
            for (const [tenantId, target, untilMs] of msg.breakers) prometheus.routes.breakerOpened(tenantId, target, untilMs);
            for (const [server, seconds] of msg.answered) prometheus.requestDone(server, seconds);
            for (const seconds of msg.appended) prometheus.ledgerAppended(seconds);
          },
        })
      : null;
  // Closed with the gateway's port when it listened with them; here when the start failed before.
  if (threads !== null) life.own('request threads', threads);
  let telemetryRef: TelemetryService | null = null;
  const prometheus = new PrometheusMetrics({
    ledgerSize: (tenantId) => ledger.head(tenantId).size,
    ledgerTenants: () => ledger.tenants(),
    queues: () => telemetryRef?.queues() ?? [],
    ...(shared ? { sharedLimits: () => ({ fallbacks: shared.fallbacks, connected: shared.connected }) } : {}),
  });
  const telemetry = await TelemetryService.create(
    {
      otlpEndpoint: config.otlpEndpoint,
      otlpHeaders: config.otlpHeaders,
      sentryDsn: config.sentryDsn,
      queueMax: config.telemetryQueueMax,
      queueMaxBytes: config.telemetryQueueMaxBytes,
      batchMax: config.telemetryBatchMax,
      flushMs: config.telemetryFlushMs,
      retryBaseMs: config.telemetryRetryBaseMs,
      retryMaxMs: config.telemetryRetryMaxMs,
      exportTimeoutMs: config.telemetryExportTimeoutMs,
      dispatcher: egress.dispatcher,
      retentionDays: config.telemetryRetentionDays,
      pruneIntervalS: config.telemetryPruneIntervalS,
    },
    { logs: new LogStore(store.logs, store.logsByAgent), errors: new ErrorStore(store.errorEvents, store.errorIssues) },
    metrics,
    prometheus,
    agents,
    logger,
  );
  telemetryRef = telemetry;
  life.own('telemetry', telemetry);
  sidecar?.shipTelemetry(metrics, telemetry);
  audit.observe(telemetry.onDecision);
  audit.timeAppends((seconds) => prometheus.ledgerAppended(seconds));
  const heartbeats = new HeartbeatMonitor(agents, telemetry.onMissedHeartbeats, () => Promise.all([metrics.flush(), agents.flush()]));
  life.onClose('heartbeats', () => heartbeats.stop());
  const deps: GatewayDeps = {
    config,
    logger,
    egress,
    store,
    tenants,
    tokens,
    authenticator,
    policies,
    policyValidator,
    runtimes,
    decisions,
    engine: new DecisionEngine(runtimes.limits, audit, new CallerAdmission(agents, runtimes.sets)),
    decideValidator: new DecideRequestValidator(),
    ledger,
    audit,
    ingestor: new EventIngestor(runtimes, ledger, audit),
    ingestValidator: new IngestValidator(),
    metrics,
    users,
    sessions,
    passwordLogin,
    agents,
    telemetry,
    prometheus,
    credentials,
    routes,
    onDecisionResolved: (d) => audit.recordResolution(d),
    onAdminAction: (tenantId, action, traceId) => audit.recordAdminAction(tenantId, action, traceId),
  };

  const boot = sidecar ? null : await bootstrap(config.dataDir, tenants, tokens, logger, bootstrapOptions(config));

  const access = {
    authenticate: sidecar
      ? (ctx: Parameters<Authenticator['authenticate']>[0]) => {
          sidecar.requireBundle();
          return authenticator.authenticate(ctx);
        }
      : (ctx: Parameters<Authenticator['authenticate']>[0]) => authenticator.authenticate(ctx),
    admit: (p: Parameters<TenantRuntimes['admission']['admit']>[0]) => runtimes.admission.admit(p),
    agentId: config.sidecarAgentId,
  };
  const routeGuard = sidecar ? { routeGuard: sidecar.routeGuard } : {};
  // One budget for both ports: the memory they share is one process's.
  const budget = new BodyBudget(config.bodyBytesInFlightMax, config.tenantBodyBytesInFlightMax, bodyMemory);
  const onAnswered = (server: string, seconds: number) => prometheus.requestDone(server, seconds);
  // Prometheus is scraped with a tenant's token without a sidecar's bundle check: its own series, or a 401.
  const scrapeAccess = { authenticate: (ctx: Parameters<Authenticator['authenticate']>[0]) => authenticator.authenticate(ctx), admit: access.admit };
  const apiGuards = { scrape: scrapeGuard(ScrapeCredential.fromSetting(config.metricsScrapeToken), scrapeAccess) };
  const api = new HttpServer({ logger, requestLog: requestLines, access, guards: apiGuards, budget, defaultMaxBody: config.apiBodyLimit, serviceName: 'gateway', onAnswered, ...routeGuard, ...(config.agentPort >= 0 ? { agentsPort: 'also' as const } : {}) });
  registerHealthRoutes(api, deps, sidecar);
  registerPolicyRoutes(api, deps);
  registerPolicyDryRunRoutes(api, deps);
  registerDecisionAdminRoutes(api, deps);
  registerEventReadRoutes(api, deps);
  registerTelemetryRoutes(api, deps);
  registerUserRoutes(api, deps);
  registerTenantRoutes(api, { tenants, runtimes, onPlanChanged: (tenantId, change, traceId) => audit.recordPlanChange(tenantId, change, { trace_id: traceId }) });
  registerAgentRoutes(api, deps);
  registerRequestLogRoutes(api, { requestLog: callSamples, onAdminAction: deps.onAdminAction });
  registerCredentialRoutes(api, { credentials, onAdminAction: deps.onAdminAction });
  registerUpstreamRoutes(api, { routes: deps.routes, credentialNames: (tenantId, name) => credentials.has(tenantId, name), onAdminAction: deps.onAdminAction });
  // Which tenant made each response the provider stores: request threads believe each other's from shared memory.
  const stored = new StoredResponses(store.storedResponses, recentResponses);
  // The agents' calls, mounted as each request thread mounts them: also served on the agents' port.
  const proxy = mountAgentsCalls(api, config, {
    engine: deps.engine,
    decideValidator: deps.decideValidator,
    ingestor: deps.ingestor,
    ingestValidator: deps.ingestValidator,
    runtimes,
    agents,
    audit,
    stored,
    egress,
    logger,
    // Without a key nothing can be enabled: the calls skip the sampler. A sidecar samples with its own key, as its
    // control plane's bundle says.
    requestLog: callSamples.keyed ? callSamples : null,
    sharedLimits: shared !== null,
    stepTimes: config.proxyStepTimings ? prometheus.proxyStepTimes() : null,
    // The tenants' routes (docs/routing.md): a call whose model has a route goes to its targets.
    routes: { source: deps.routes, credentials, onBreakerOpened: (tenantId, target, untilMs) => prometheus.routes.breakerOpened(tenantId, target, untilMs) },
  });
  life.own('proxy', proxy);
  // A tenant's changed routes are compiled again on its next call (request threads are told below, once they run).
  deps.routes.onChange = (tenantId) => {
    proxy.router?.forget(tenantId);
    prometheus.routes.routesChanged(tenantId);
  };
  const mcp = mountMcp(api, config, { store, runtimes, agents, audit, decisions, requestLog: callSamples.keyed ? callSamples : null, egress, logger });
  if (mcp !== null) life.own('MCP gateway', mcp);
  api.finish();

  const auth = mountAuthService(
    { logger, requestLog: requestLines, access, budget, defaultMaxBody: config.apiBodyLimit, onAnswered, ...routeGuard },
    deps,
    { ...deps, ledger: localConsoleLedger(ledger), requestLog: callSamples, requestLogSettings: callSamples },
    new DecisionConsoleData(decisions, agents, config.consoleScanLimit),
  );
  // Closed first: no new request, those in flight answered (request threads with the agents' port), then the rest.
  life.onClose('servers', () => Promise.all([api.close(), auth.close()]));

  if (threads !== null) {
    // From now on the threads are told of every change to what they cache (a thread still being built applies what it
    // was told once it is), and every route but the agents' calls waits for what they wrote.
    const judging = threads;
    notifyThreads = (slot, value) => judging.notify(slot, value);
    runtimes.sets.onChange = (tenantId) => judging.notify(TENANT_RUNTIME_CHANGES, { tenantId, what: 'policies' });
    runtimes.admission.onChange = (tenantId) => judging.notify(TENANT_RUNTIME_CHANGES, { tenantId, what: 'plan' });
    store.credentials.onChange = () => judging.notify(CREDENTIAL_CHANGES, null);
    callSamples.onChange = (tenantId) => judging.notify(REQUEST_LOG_CHANGES, tenantId);
    deps.routes.onChange = (tenantId) => {
      proxy.router?.forget(tenantId);
      prometheus.routes.routesChanged(tenantId);
      judging.notify(ROUTE_CHANGES, tenantId);
    };
    api.useJudgingThreads(judging);
    auth.useJudgingThreads(judging);
  }
  await ledgerReady;
  const port = await api.listen(config.host, config.port);
  const agentPort = config.agentPort >= 0 ? await api.listenAgents(config.host, config.agentPort, threads) : null;
  const authPort = await auth.listen(config.host, config.authPort);
  started.listening = true;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  logger.info({ port, agentPort, authPort, dataDir: config.dataDir, egressProxy: egress.proxied, ledgerWriter: ledgerOnThread ? 'thread' : 'inline', threads: threadCount }, 'gateway listening');
  // The main thread serves from the start; each request thread takes connections once its app is built and serves
  // the agents' routes the main thread serves.
  const threadsServing =
    threads?.ready(api.agentsRoutes).then(
      () => api.acceptThreads(),
      (err: unknown) => logger.error({ err }, 'request threads failed to start; the main thread serves alone'),
    ) ?? Promise.resolve();
  heartbeats.start();
  telemetry.start();
  sidecar?.start();
  sessionPruner.start();
  requestLogPruner.start();
  retention.start();
  // Request schemas not needed to start are compiled in the turns after listening (http/gateway-ajv.ts).
  compileOwnSchemasSoon();

  return {
    url: `http://${host}:${port}`,
    agentsUrl: agentPort === null ? null : `http://${host}:${agentPort}`,
    authUrl: `http://${host}:${authPort}`,
    deps,
    routes: Object.freeze({ api: api.routes, auth: auth.routes }),
    bodyBytesInFlight: () => budget.bytesInFlight,
    sidecar,
    retention,
    requestLog: { log: callSamples, pruner: requestLogPruner },
    bootstrapToken: boot?.adminToken ?? null,
    threadsReady: () => threadsServing,
    threadsCaughtUp: () => threads?.barrier() ?? Promise.resolve(),
    close: () => life.close(),
  };
}
