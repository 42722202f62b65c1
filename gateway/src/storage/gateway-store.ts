import { openStore, type RootDatabase } from '@aduana/shared/core';
import type { Database } from 'lmdb';
import { CredentialRevision } from './credential-revision.js';

/**
 * The gateway's LMDB environment (DATA_DIR/gateway) and its named databases. Keys that belong to a tenant always
 * start with the tenant id, so a range read can never cross into another tenant.
 */
export interface GatewayStore {
  readonly root: RootDatabase;
  /** tenant id -> TenantRecord */
  readonly tenants: Database;
  /** sha256(token) -> TokenRecord */
  readonly tokens: Database;
  /** token id -> sha256(token) */
  readonly tokenIds: Database;
  /** [tenant id, policy id] -> PolicyRecord */
  readonly policies: Database;
  /** [tenant id, decision id (ULID)] -> DecisionRecord */
  readonly decisions: Database;
  /** ['id', user id] -> UserRecord; ['email', e-mail] -> user id; ['oidc', issuer, sub] -> user id */
  readonly users: Database;
  /** sha256(session token) -> SessionRecord */
  readonly sessions: Database;
  /** [tenant id, agent id] -> AgentRecord */
  readonly agents: Database;
  /** free-form counters that must survive restarts: [kind, tenant, key, period] -> number */
  readonly counters: Database;
  /** metric samples: [tenant, '\u0001', agent, unix second] -> every measure of that agent in that second (telemetry/metric-slot.ts) */
  readonly metrics: Database;
  /** [tenant, log id] -> LogEntry (PII-redacted) */
  readonly logs: Database;
  /** [tenant, agent, log id] -> 1: the per-agent log index */
  readonly logsByAgent: Database;
  /** [tenant, error event id] -> ErrorEvent */
  readonly errorEvents: Database;
  /** [tenant, issue id] -> ErrorIssue */
  readonly errorIssues: Database;
  /** ['hash', sha256(sidecar token)] -> SidecarTokenRecord; ['id', id] -> sha256 (fleet mode: docs/fleet-storage.md) */
  readonly sidecarTokens: Database;
  /** fleet mode, a sidecar's own keys: 'instance_id' -> string; 'bundle' -> AppliedBundle (the last bundle taken) */
  readonly fleet: Database;
  /** tenant id -> ShipCursor: how far the control plane acknowledged this sidecar's chain (fleet mode) */
  readonly shipCursors: Database;
  /** provider response id -> {tenant, agent, at}: whose call made a response the provider stores (proxy/stored) */
  readonly storedResponses: Database;
  /** sha256(tenant, agent, server, tool, arguments) -> {decision_id, at}: a tool call held for approval (mcp/held-tool-calls.ts) */
  readonly heldToolCalls: Database;
  /** [tenant id, server, MCP session id] -> {agent, at}: whose MCP session it is, and its last use (mcp/mcp-sessions.ts) */
  readonly mcpSessions: Database;
  /** tenant id -> StoredRequestLogSettings: the sampled request log's settings (request-log/request-log-settings.ts) */
  readonly requestLogSettings: Database;
  /** tenant id -> RoutesState: the tenant's routes and their version (proxy/routing/route-store.ts) */
  readonly routes: Database;
  /** [tenant id, decision id] -> RequestSampleRecord: a sampled call's redacted texts, sealed (request-log/request-log.ts) */
  readonly requestSamples: Database;
  /** [tenant id, name] -> a provider credential, its secret sealed under CREDENTIALS_KEY (credentials/credential-store.ts) */
  readonly providerCredentials: Database;
  /** 'revision' -> number, bumped by every change that can end a credential's validity (identity/auth/credential-revision.ts) */
  readonly credentials: CredentialRevision;
  close(): Promise<void>;
}

/** Where the decisions database keeps its record shapes (a key outside every range of tenant keys). */
const DECISION_STRUCTURES = Symbol.for('structures');

export function openGatewayStore(dataDir: string): GatewayStore {
  const root = openStore(dataDir, 'gateway', { maxDbs: 48 });
  // Plain msgpack maps. lmdb-js's default writes a value as a record whose key names travel with it and are set up again
  // on every write (~1.4-2.0 us against ~0.85-0.9 for a map of an agent's ten fields, two bytes larger). Values written
  // that way by earlier builds still read. (lmdb-js hands `useRecords` to msgpackr; its types do not list it.)
  const db = (name: string) => {
    const options: { name: string; useRecords: boolean } = { name, useRecords: false };
    return root.openDB(options);
  };
  return {
    root,
    tenants: db('tenants'),
    tokens: db('tokens'),
    tokenIds: db('token_ids'),
    policies: db('policies'),
    // One record per proxied call, decision and event: msgpack records whose key names are kept once per shape in
    // the database (lmdb-js shared structures) instead of in every value. 317 -> 144 bytes for a decision record, and
    // ~2.5x faster to encode (bench:ledger-disk; docs/benchmarks-history.md, "Disk per ledger entry: decision
    // records"). Records written as plain maps still read.
    decisions: root.openDB({ name: 'decisions', sharedStructuresKey: DECISION_STRUCTURES }),
    users: db('users'),
    sessions: db('sessions'),
    agents: db('agents'),
    counters: db('counters'),
    metrics: db('metrics'),
    logs: db('telemetry_logs'),
    logsByAgent: db('telemetry_logs_by_agent'),
    errorEvents: db('telemetry_error_events'),
    errorIssues: db('telemetry_error_issues'),
    sidecarTokens: db('sidecar_tokens'),
    fleet: db('fleet'),
    shipCursors: db('ledger_ship_cursors'),
    storedResponses: db('stored_responses'),
    heldToolCalls: db('held_tool_calls'),
    mcpSessions: db('mcp_sessions'),
    requestLogSettings: db('request_log_settings'),
    requestSamples: db('request_samples'),
    providerCredentials: db('provider_credentials'),
    routes: db('routes'),
    credentials: new CredentialRevision(db('credential_revision')),
    async close() {
      await root.flushed;
      await root.close();
    },
  };
}
