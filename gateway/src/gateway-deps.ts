import type { Egress, Logger } from '@aduana/shared';
import type { GatewayConfig } from './config.js';
import type { GatewayStore } from './storage/gateway-store.js';
import type { Authenticator } from './identity/auth/authenticate.js';
import type { PolicyValidator } from './policy/validate-policy.js';
import type { TenantRuntimes } from './policy/runtime/tenant-runtime.js';
import type { DecisionStore, DecisionRecord } from './governance/decisions/decision-store.js';
import type { DecisionEngine } from './governance/decisions/decision-engine.js';
import type { DecideRequestValidator } from './governance/decisions/decide-request.js';
import type { EventsLedger } from './ledger/index.js';
import type { AuditTrail } from './governance/audit-trail.js';
import type { RecordAdminAction } from './governance/admin-actions.js';
import type { EventIngestor } from './governance/events/event-ingestor.js';
import type { IngestValidator } from './governance/events/ingest-event.js';
import type { MetricStore } from './telemetry/metric-store.js';
import type { PolicyRepository, SessionRepository, TenantRepository, TokenRepository, UserRepository } from './storage/repositories.js';
import type { PasswordLogin } from './identity/sessions/password-login.js';
import type { AgentRegistry } from './agents/agent-registry.js';
import type { TelemetryService } from './telemetry/telemetry-service.js';
import type { PrometheusMetrics } from './telemetry/prometheus-metrics.js';
import type { CredentialStore } from './credentials/credential-store.js';
import type { RouteStore } from './proxy/routing/route-store.js';

/** Everything route modules need, built once at start by createGateway. */
export interface GatewayDeps {
  readonly config: GatewayConfig;
  readonly logger: Logger;
  /** How outbound HTTP leaves: straight, or through the egress proxy (HTTPS_PROXY, NO_PROXY), decided at start. */
  readonly egress: Egress;
  readonly store: GatewayStore;
  readonly tenants: TenantRepository;
  readonly tokens: TokenRepository;
  readonly authenticator: Authenticator;
  readonly policies: PolicyRepository;
  readonly policyValidator: PolicyValidator;
  readonly runtimes: TenantRuntimes;
  readonly decisions: DecisionStore;
  readonly engine: DecisionEngine;
  readonly decideValidator: DecideRequestValidator;
  readonly ledger: EventsLedger;
  readonly audit: AuditTrail;
  readonly ingestor: EventIngestor;
  readonly ingestValidator: IngestValidator;
  readonly metrics: MetricStore;
  readonly users: UserRepository;
  readonly sessions: SessionRepository;
  readonly passwordLogin: PasswordLogin;
  readonly agents: AgentRegistry;
  readonly telemetry: TelemetryService;
  readonly prometheus: PrometheusMetrics;
  /** The tenants' provider credentials, sealed under CREDENTIALS_KEY, and ADUANA_CREDENTIAL_* (docs/routing.md). */
  readonly credentials: CredentialStore;
  /** The tenants' routes (docs/routing.md); its `onChange` is told of every committed change. */
  readonly routes: RouteStore;
  /** Called after a held decision is resolved (the ledger records it). */
  onDecisionResolved(d: DecisionRecord): Promise<void>;
  /** Called after an admin action is stored: the ledger records it (at a control plane, its own chain of the tenant). */
  onAdminAction: RecordAdminAction;
}
