import { mkdirSync } from 'node:fs';
import { createLoggers, Egress, pinoRequestLog, templateRequestLog, type Logger, type RequestLog as RequestLines } from '@aduana/shared';
import { Lifecycle } from './platform/lifecycle.js';
import { mountAuthService } from './api/mount-auth-service.js';
import { loadGatewayConfig, type GatewayConfig } from './config.js';
import { openGatewayStore } from './storage/gateway-store.js';
import { Authenticator } from './identity/auth/authenticate.js';
import { PolicyValidator } from './policy/validate-policy.js';
import { TenantRuntimes, evaluationLimits } from './policy/runtime/tenant-runtime.js';
import { HttpServer, type RouteInfo } from './http/server.js';
import { BodyBudget } from './http/body-budget.js';
import { HEALTH_PATHS } from './http/health-paths.js';
import { registerPolicyRoutes } from './api/policies-routes.js';
import { registerUserRoutes } from './api/user-routes.js';
import { registerTenantRoutes } from './api/tenant-routes.js';
import { bootstrap, bootstrapOptions } from './identity/tenants/bootstrap.js';
import { LoginFailures, loginFailureLimits } from './identity/sessions/login-failures.js';
import { PasswordLogin, passwordLoginOptions } from './identity/sessions/password-login.js';
import { SessionPruner } from './identity/sessions/session-pruner.js';
import { buildPackPolicies } from './agents/pack-policies.js';
import { openPostgresRepositories } from './fleet/postgres/open-postgres-repositories.js';
import { databaseOptions } from './fleet/postgres/database.js';
import { registerBundleRoute } from './fleet/bundle/bundle-route.js';
import { registerLedgerIngestRoute } from './fleet/shipping/ledger-ingest-route.js';
import { registerArchiveEventRoutes } from './fleet/shipping/archive-event-routes.js';
import { PgLedgerArchive } from './fleet/postgres/pg-ledger-archive.js';
import { PgControlChain } from './fleet/postgres/pg-control-chain.js';
import { adminActionEntry, type RecordAdminAction } from './governance/admin-actions.js';
import { decisionResolvedEntry } from './governance/audit-trail.js';
import { planChangedEntry } from './identity/tenants/plan-change.js';
import type { DecisionRecord } from './governance/decisions/decision-store.js';
import type { LedgerInput } from './ledger/index.js';
import { registerAgentRoutes } from './api/agents-routes.js';
import { registerDecisionAdminRoutes } from './api/decision-routes.js';
import { registerUpstreamRoutes } from './api/upstream-routes.js';
import { registerRequestLogRoutes } from './api/request-log-routes.js';
import { sidecarGuard } from './fleet/sidecar-auth.js';
import { PgAgentActivity } from './fleet/postgres/pg-agent-activity.js';
import { PgAgentDirectory } from './fleet/agents/pg-agent-directory.js';
import { registerAgentReportRoute } from './fleet/agents/agent-report-route.js';
import { PgDecisionArchive } from './fleet/decisions/pg-decision-archive.js';
import { ArchiveConsoleData } from './fleet/control/archive-console-data.js';
import { archiveConsoleLedger } from './fleet/control/archive-console-ledger.js';
import { registerTelemetryQueryRoutes } from './api/telemetry-routes.js';
import { PgTelemetryStore } from './fleet/telemetry/pg-telemetry-store.js';
import { pgTelemetryQueries } from './fleet/telemetry/pg-telemetry-queries.js';
import { registerTelemetryShipRoute } from './fleet/telemetry/telemetry-ship-route.js';
import { TelemetryPruner } from './fleet/telemetry/telemetry-pruner.js';
import { Sanitizer } from './telemetry/sanitizer.js';
import { compileOwnSchemasSoon } from './platform/gateway-ajv.js';

export interface RunningControlPlane {
  readonly url: string;
  readonly authUrl: string;
  /** The routes each port serves (read-only; the fallbacks for unknown paths are not listed). */
  readonly routes: { readonly api: readonly RouteInfo[]; readonly auth: readonly RouteInfo[] };
  readonly bootstrapToken: string | null;
  close(): Promise<void>;
}

export interface ControlPlaneOptions {
  config?: GatewayConfig;
  logger?: Logger;
}

/**
 * `aduana control` (docs/fleet.md): the governance API and the authentication service on PostgreSQL, plus the fleet
 * routes sidecars call (bundle, ledger, agent reports, telemetry), agents, held decisions, telemetry queries and the console. No proxy and no /v1/decide: sidecars serve those. Stateless apart from
 * per-replica counters (the plan rate limit's buckets and failed-login counts) kept in a local LMDB under DATA_DIR, so
 * several replicas behind a load balancer serve one database.
 */
export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<RunningControlPlane> {
  const config = options.config ?? loadGatewayConfig();
  if (!config.databaseUrl) throw new Error('DATABASE_URL: `aduana control` needs a PostgreSQL URL');
  const made = options.logger ? null : createLoggers('aduana-control', { level: config.logLevel, buffered: true });
  const logger = options.logger ?? made!.logger;
  // Request lines by template through the loggers made here; through a caller's logger's own `info`.
  const requestLog = made ? templateRequestLog(made.requestLog) : pinoRequestLog(logger);
  // Every part opened below registers how it closes: `close` and a start that fails part-way close the same parts, the
  // last opened first; the logs last of all.
  const life = new Lifecycle((err, part) => logger.error({ err, part }, 'a part of the control plane did not close cleanly'));
  life.onClose('logs', async () => {
    requestLog.flush();
    await new Promise<void>((resolve) => logger.flush(() => resolve()));
  });
  return life.start(() => openControlPlane(config, config.databaseUrl, logger, requestLog, life));
}

/** The control plane's parts, each registered with `life` as it is opened. */
async function openControlPlane(config: GatewayConfig, databaseUrl: string, logger: Logger, requestLog: RequestLines, life: Lifecycle): Promise<RunningControlPlane> {
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  // Its one outbound HTTP is to the identity provider (OIDC sign-in): through the egress proxy when one is set.
  const egress = life.own('egress', new Egress({ httpsProxy: config.httpsProxy, httpProxy: config.httpProxy, noProxy: config.noProxy }));
  const db = life.own(
    'database',
    await openPostgresRepositories(databaseUrl, {
      ...databaseOptions(config),
      sessionTtlMs: config.sessionTtlHours * 3_600_000,
      listenRetryMs: config.databaseListenRetryMs,
    }),
  );
  const local = life.own('local store', openGatewayStore(config.dataDir));
  const { tenants, tokens, policies, users, sessions } = db;
  const runtimes = new TenantRuntimes(tenants, policies, local.counters, evaluationLimits(config));
  const policyValidator = new PolicyValidator();
  runtimes.sets.usePackPolicies(buildPackPolicies(policyValidator));
  const authenticator = new Authenticator({ tokens, sessions, users });
  const loginFailures = new LoginFailures(loginFailureLimits(config));
  const passwordLogin = new PasswordLogin(users, sessions, loginFailures, passwordLoginOptions(config));
  const archive = new PgLedgerArchive(db.pool);
  const sessionPruner = life.own('session pruner', new SessionPruner(sessions, config.sessionPruneIntervalS * 1000, logger));
  // Agents and held decisions (docs/fleet.md, "Agents and decisions").
  const activity = new PgAgentActivity(db.pool);
  const agents = new PgAgentDirectory(db.agents, activity, { intervalMs: config.heartbeatIntervalS * 1000, requireRegistered: config.requireRegisteredAgents, maxPerTenant: config.agentsMaxPerTenant });
  const decisions = new PgDecisionArchive(db.pool);
  // Admin actions, plan changes and resolutions made here are chained, once stored, in the control plane's own chain
  // of the tenant (docs/ledger.md, "Admin actions"). A resolution also reaches its sidecar through the bundle.
  const controlChain = new PgControlChain(db.pool);
  const chain = async (tenantId: string, entry: LedgerInput): Promise<void> => {
    await controlChain.append(tenantId, entry);
  };
  const onDecisionResolved = (d: DecisionRecord): Promise<void> => chain(d.tenant_id, decisionResolvedEntry(d));
  const onAdminAction: RecordAdminAction = (tenantId, input, traceId) => chain(tenantId, adminActionEntry(input, { trace_id: traceId }));
  const resolutionsWindowMs = config.fleetBundleResolutionsWindowS * 1000;
  // Telemetry the sidecars ship, queried as at a sidecar (docs/fleet.md, "Telemetry").
  const telemetryStore = new PgTelemetryStore(db.pool);
  // One redaction for ingest here and what sidecars ship; compiled at first use, so a control plane nobody sends logs
  // to does not hold the recognizers.
  const sanitizer = new Sanitizer();
  const telemetryPruner = life.own('telemetry pruner', new TelemetryPruner(telemetryStore, config.telemetryRetentionDays * 86_400_000, config.telemetryPruneIntervalS * 1000, logger));
  const boot = await bootstrap(config.dataDir, tenants, tokens, logger, bootstrapOptions(config));

  const access = {
    authenticate: (ctx: Parameters<Authenticator['authenticate']>[0]) => authenticator.authenticate(ctx),
    admit: (p: Parameters<TenantRuntimes['admission']['admit']>[0]) => runtimes.admission.admit(p),
  };
  const budget = new BodyBudget(config.bodyBytesInFlightMax, config.tenantBodyBytesInFlightMax);
  // The fleet routes take a sidecar's token (fleet/sidecar-auth.ts), not a PAT.
  const api = new HttpServer({ logger, requestLog, access, guards: { sidecar: sidecarGuard(db.sidecarTokens) }, budget, defaultMaxBody: config.apiBodyLimit, serviceName: 'control' });
  for (const path of HEALTH_PATHS) api.route('get', path, { auth: 'public', body: 'none' }, () => ({ status: 200, body: { status: 'ok', service: 'aduana-control', bundle_revision: db.changes.revision() } }));
  registerPolicyRoutes(api, { policies, policyValidator, runtimes, config, onAdminAction });
  registerUserRoutes(api, { users, tenants, config, onAdminAction });
  // Chained here, and it travels in the bundle: each sidecar chains it too when it takes it.
  registerTenantRoutes(api, { tenants, runtimes, onPlanChanged: (tenantId, change, traceId) => chain(tenantId, planChangedEntry(change, { trace_id: traceId })) });
  registerBundleRoute(api, {
    repos: db,
    changes: db.changes,
    agentProfiles: (tenantId) => db.agents.list(tenantId).map(({ agent_id, name, policy_pack, risk_budget, suspended }) => ({ agent_id, name, policy_pack, risk_budget, suspended })),
    resolutions: (tenantId) => db.resolutions.recent(tenantId, Date.now() - resolutionsWindowMs, config.fleetBundleResolutionsMax),
    requestLog: (tenantId) => db.requestLogSettings.settings(tenantId),
    routes: (tenantId) => db.routes.state(tenantId),
  });
  // Set here, carried in the bundle; each sidecar samples with its own REQUEST_LOG_KEY and keeps the samples.
  registerRequestLogRoutes(api, { requestLog: db.requestLogSettings, onAdminAction });
  // Set here, carried in the bundle. Credentials are each sidecar's own (its store or ADUANA_CREDENTIAL_*): the
  // control plane holds none, so a name is taken as written and a sidecar that cannot resolve it says so.
  registerUpstreamRoutes(api, { routes: db.routes, credentialNames: null, onAdminAction });
  registerAgentRoutes(api, { agents, config, onAdminAction });
  registerDecisionAdminRoutes(api, { decisions, config, onDecisionResolved });
  registerAgentReportRoute(api, { activity, tenants, maxBody: config.fleetAgentReportBodyLimit, maxAgents: config.fleetAgentReportMax });
  registerLedgerIngestRoute(api, { archive, maxBody: config.fleetLedgerBodyLimit, maxEntries: config.fleetLedgerBatchMax });
  registerTelemetryShipRoute(api, { store: telemetryStore, tenants, sanitizer, maxBody: config.fleetTelemetryBodyLimit, maxItems: config.fleetTelemetryBatchMax });
  registerTelemetryQueryRoutes(api, pgTelemetryQueries(telemetryStore, config.telemetryRetentionDays, sanitizer), config);
  registerArchiveEventRoutes(api, archive, { defaultLimit: config.listDefaultLimit, maxLimit: config.listMaxLimit });
  api.finish();
  const auth = mountAuthService(
    { logger, requestLog, access, budget, defaultMaxBody: config.apiBodyLimit },
    { authenticator, tokens, config, runtimes, passwordLogin, sessions, users, tenants, logger, egress, onAdminAction },
    { sessions, passwordLogin, config, policies, policyValidator, runtimes, decisions, onDecisionResolved, onAdminAction, ledger: archiveConsoleLedger(archive, controlChain), tokens, users, tenants, requestLogSettings: db.requestLogSettings, routes: db.routes },
    new ArchiveConsoleData(decisions, agents, config.consoleScanLimit),
  );
  life.onClose('servers', () => Promise.all([api.close(), auth.close()]));

  const port = await api.listen(config.host, config.port);
  const authPort = await auth.listen(config.host, config.authPort);
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  logger.info({ port, authPort }, 'control plane listening');
  sessionPruner.start();
  telemetryPruner.start();
  compileOwnSchemasSoon();
  return {
    url: `http://${host}:${port}`,
    authUrl: `http://${host}:${authPort}`,
    routes: Object.freeze({ api: api.routes, auth: auth.routes }),
    bootstrapToken: boot?.adminToken ?? null,
    close: () => life.close(),
  };
}
