import type { MessagePort } from 'node:worker_threads';
import type { TemplatedApp } from 'uWebSockets.js';
import { adoptIdState, createLoggers, Egress, secretBoxFrom, templateRequestLog, type Logger, type RequestLog as RequestLines } from '@aduana/shared';
import { Lifecycle } from '../platform/lifecycle.js';
import type { GatewayConfig } from '../config.js';
import { openGatewayStore } from '../storage/gateway-store.js';
import { TenantStore } from '../identity/tenants/tenant-store.js';
import { TokenStore } from '../identity/auth/token-store.js';
import { UserStore } from '../identity/users/user-store.js';
import { SessionStore } from '../identity/sessions/session-store.js';
import { Authenticator } from '../identity/auth/authenticate.js';
import { PolicyStore } from '../policy/policy-store.js';
import { PolicyValidator } from '../policy/validate-policy.js';
import { TenantRuntimes, evaluationLimits, type LimitMemory } from '../policy/runtime/tenant-runtime.js';
import { buildPackPolicies } from '../agents/pack-policies.js';
import { AgentRegistry } from '../agents/agent-registry.js';
import { ThreadedLedger } from '../governance/writer/threaded-ledger.js';
import { DecisionStore } from '../governance/decisions/decision-store.js';
import { AuditTrail } from '../governance/audit-trail.js';
import { DecisionEngine } from '../governance/decisions/decision-engine.js';
import { CallerAdmission } from '../governance/caller-admission.js';
import { DecideRequestValidator } from '../governance/decisions/decide-request.js';
import { BodyBudget } from '../http/body-budget.js';
import { HttpServer } from '../http/server.js';
import { EventIngestor } from '../governance/events/event-ingestor.js';
import { IngestValidator } from '../governance/events/ingest-event.js';
import type { SharedTableMemory } from '../platform/shared-table.js';
import type { FromRequestThread, ObservedDecision } from './request-thread-protocol.js';
import { mountAgentsCalls } from '../api/mount-agents-calls.js';
import { RouteStore } from '../proxy/routing/route-store.js';
import { ROUTE_CHANGES } from '../proxy/routing/router.js';
import { CredentialStore } from '../credentials/credential-store.js';
import { StoredResponses } from '../proxy/stored/stored-responses.js';
import { REQUEST_LOG_CHANGES, RequestLog } from '../request-log/request-log.js';
import { NoticeHandlers, type ThreadNotice } from '../platform/notice-slot.js';
import { TENANT_RUNTIME_CHANGES } from '../policy/runtime/runtime-notices.js';
import { CREDENTIAL_CHANGES } from '../storage/credential-revision.js';
import { AGENT_PROFILES } from '../agents/agent-registry.js';

/** What a request thread that judges requests itself is started with (workerData): plain data, shared memory, a port. */
export interface JudgingSetup {
  readonly config: GatewayConfig;
  /** The process's limit counters (threads/shared-table.ts): the same records as the main thread's. */
  readonly limits: LimitMemory;
  readonly bodyBudget: SharedTableMemory;
  /** The main thread's ledger attached this port: the process's one writer thread writes what this thread chains. */
  readonly ledger: MessagePort;
  /** The main thread's id state: ids made on any thread sort in the order they were made (decisions' lists). */
  readonly ids: SharedArrayBuffer;
  /** The responses the provider stores, remembered by any thread a moment ago (StoredResponses). */
  readonly recentResponses: SharedTableMemory;
}

export interface JudgingThread {
  readonly app: TemplatedApp;
  /** The routes it serves, "method pattern". */
  readonly routes: readonly string[];
  openRequests(): number;
  apply(notice: ThreadNotice): void;
  /**
   * Resolves once every ledger and decision write this thread handed over so far is committed; what the main thread
   * keeps of its decisions is sent before.
   */
  barrier(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The part of the gateway a request thread runs: the agents' calls (`/v1/decide`, event ingestion and the proxy's
 * calls; api/mount-agents-calls.ts) on the agents' port, with this thread's own copies of what only caches (compiled
 * policy sets, plans, cached principals, request-log rates, a replica of the agents' profiles, kept current by the
 * main thread's notices) and its own upstream pools and evaluation worker, over the same LMDB environment, the same
 * shared limit counters and the same ledger writer as the main thread. Decisions are told to the main thread, whose
 * observers (telemetry, agents' last contact and risk) keep what one owner must. It has no other route: the agents'
 * port answers them 404, as the main thread's app on that port does.
 */
export function startJudgingThread(setup: JudgingSetup, post: (msg: FromRequestThread) => void): Promise<JudgingThread> {
  adoptIdState(setup.ids);
  const { logger, requestLog } = createLoggers('aduana-gateway', { level: setup.config.logLevel, buffered: true });
  const requestLines = templateRequestLog(requestLog);
  // What it opens closes in reverse, on close and on a build that fails part-way (platform/lifecycle.ts).
  const life = new Lifecycle((err, part) => logger.error({ err, part }, 'a part of a request thread did not close cleanly'));
  life.onClose('logs', async () => {
    requestLines.flush();
    await new Promise<void>((resolve) => logger.flush(() => resolve()));
    await new Promise<void>((resolve) => requestLog.flush(() => resolve()));
  });
  return life.start(async () => openJudgingThread(setup, post, logger, requestLines, life));
}

function openJudgingThread(setup: JudgingSetup, post: (msg: FromRequestThread) => void, logger: Logger, requestLines: RequestLines, life: Lifecycle): JudgingThread {
  const { config } = setup;
  const store = life.own('store', openGatewayStore(config.dataDir));
  const tenants = new TenantStore(store);
  const runtimes = new TenantRuntimes(tenants, new PolicyStore(store), store.counters, evaluationLimits(config), Date.now, setup.limits);
  runtimes.sets.usePackPolicies(buildPackPolicies(new PolicyValidator()));
  const authenticator = new Authenticator({ tokens: new TokenStore(store), sessions: new SessionStore(store, config.sessionTtlHours * 3_600_000), users: new UserStore(store) }, Date.now, store.credentials);
  const agents = new AgentRegistry(store.agents, {
    intervalMs: config.heartbeatIntervalS * 1000,
    requireRegistered: config.requireRegisteredAgents,
    maxPerTenant: config.agentsMaxPerTenant,
    flushMs: config.agentFlushMs,
    replica: true,
  });
  const ledger = life.own('ledger', new ThreadedLedger(store.root, { keyDir: config.dataDir, onError: (err, context) => logger.error({ err, context }, 'ledger background error') }, setup.ledger));
  life.onClose('spend', () => runtimes.limits.flushSpend());
  const decisions = new DecisionStore(store, ledger.decisionWrites);
  const audit = new AuditTrail(decisions, ledger, logger);

  // What the main thread keeps, told once per turn.
  let observed: ObservedDecision[] = [];
  let answered: (readonly [string, number])[] = [];
  let appended: number[] = [];
  let breakers: [string, string, number][] = [];
  let scheduled = false;
  const tell = (): void => {
    if (!scheduled) return;
    scheduled = false;
    post({ t: 'observed', decisions: observed, answered, appended, breakers });
    observed = [];
    answered = [];
    appended = [];
    if (breakers.length > 0) breakers = [];
  };
  const soon = (): void => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(tell);
  };
  audit.observe((d, latencyMs, outcome, costBrl, route) => {
    observed.push({ d, latencyMs, outcome, costBrl, route });
    soon();
  });
  audit.timeAppends((seconds) => {
    appended.push(seconds);
    soon();
  });

  const server = new HttpServer({
    logger,
    requestLog: requestLines,
    access: { authenticate: (ctx) => authenticator.authenticate(ctx), admit: (p) => runtimes.admission.admit(p), agentId: config.sidecarAgentId },
    budget: new BodyBudget(config.bodyBytesInFlightMax, config.tenantBodyBytesInFlightMax, setup.bodyBudget),
    defaultMaxBody: config.apiBodyLimit,
    serviceName: 'gateway',
    agentsPort: 'only',
    onAnswered: (serviceName, seconds) => {
      answered.push([serviceName, seconds]);
      soon();
    },
  });
  const egress = life.own('egress', new Egress({ httpsProxy: config.httpsProxy, httpProxy: config.httpProxy, noProxy: config.noProxy }));
  const callSamples = new RequestLog(store, secretBoxFrom(config.requestLogKey, 'requestLogKey', 'REQUEST_LOG_KEY'), logger);
  // Events are chained through the same writer, and answered once flushed, as on the main thread.
  const proxy = mountAgentsCalls(server, config, {
    engine: new DecisionEngine(runtimes.limits, audit, new CallerAdmission(agents, runtimes.sets)),
    decideValidator: new DecideRequestValidator(),
    ingestor: new EventIngestor(runtimes, ledger, audit),
    ingestValidator: new IngestValidator(),
    runtimes,
    agents,
    audit,
    stored: new StoredResponses(store.storedResponses, setup.recentResponses),
    egress,
    logger,
    requestLog: callSamples.keyed ? callSamples : null,
    sharedLimits: false,
    stepTimes: null,
    routes: {
      source: new RouteStore(store.routes),
      credentials: new CredentialStore(store.providerCredentials, config.credentialsKey),
      onBreakerOpened: (tenantId, target, untilMs) => {
        breakers.push([tenantId, target, untilMs]);
        soon();
      },
    },
  });
  life.own('proxy', proxy);
  server.finish();
  // What its requests did that the main thread keeps, told before anything closes.
  life.onClose('observed', tell);
  // What this thread caches, kept current by the main thread's notices (platform/notice-slot.ts).
  const notices = new NoticeHandlers()
    .on(TENANT_RUNTIME_CHANGES, ({ tenantId, what }) => (what === 'policies' ? runtimes.sets.forget(tenantId) : runtimes.admission.refreshPlan(tenantId)))
    .on(CREDENTIAL_CHANGES, () => store.credentials.changedElsewhere())
    .on(REQUEST_LOG_CHANGES, (tenantId) => callSamples.reload(tenantId))
    .on(AGENT_PROFILES, (agent) => agents.replicate(agent))
    .on(ROUTE_CHANGES, (tenantId) => proxy.router?.forget(tenantId));


  return {
    app: server.app,
    routes: server.routes.map((r) => `${r.method} ${r.pattern}`),
    openRequests: () => server.inFlight,
    apply(notice: ThreadNotice) {
      try {
        notices.apply(notice);
      } catch (err) {
        logger.error({ err, slot: notice.slot }, 'a request thread could not apply a notice');
      }
    },
    barrier: async () => {
      // Told first, on the same port as the answer: the main thread has them before it hears the barrier passed.
      tell();
      // The ledger's writes, and this thread's own (request-log samples, spend totals).
      await Promise.all([ledger.barrier(), store.root.committed]);
    },
    close: () => life.close(),
  };
}
