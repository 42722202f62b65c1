import type { Database } from 'lmdb';
import type { HttpResponse } from 'uWebSockets.js';
import { ROLE_SCOPES, type Principal } from '../../src/identity/auth/principal.js';
import { GatewayError } from '../../src/errors.js';
import { RequestContext } from '../../src/http/request-context.js';
import type { PackName } from '../../src/policy/packs.js';
import type { PolicyRecord } from '../../src/policy/policy-record.js';
import { ENDPOINTS, type EndpointKind } from '../../src/proxy/endpoints.js';
import { ProxyContext } from '../../src/proxy/proxy-context.js';
import { PROXY_HEADERS } from '../../src/proxy/proxy-headers.js';
import { TenantRuntimes } from '../../src/policy/runtime/tenant-runtime.js';
import type { PolicyRepository, TenantRepository } from '../../src/storage/repositories.js';

// One proxied call's context for unit tests of the proxy's stages, as Envoy tests a filter with mock callbacks: no
// server, no socket, no upstream, no LMDB. Policy sets are really compiled; only storage is left out.

export const TENANT = 't1';

/** An operator's PAT (runtime:write), bound to no agent. */
export const OPERATOR: Principal = Object.freeze({ kind: 'pat', id: 'pat_1', tenantId: TENANT, role: 'operator', scopes: ROLE_SCOPES.operator, userId: '', email: '', agentId: null });

export interface CallOptions {
  /** x-svc-agent-id ('bot' unless given). */
  agentId?: string;
  /** The Authorization header, as the HTTP layer copies it. */
  authorization?: string;
  /** Values of the headers the proxy routes declare (x-svc-session-id, x-forwarded-authorization, …). */
  headers?: Readonly<Record<string, string>>;
  /** The request body: a string as it came, anything else as its JSON. None: no body read. */
  body?: unknown;
  /** Who authentication found (OPERATOR unless given; null: not authenticated yet). */
  principal?: Principal | null;
}

/** A call on one of the proxy's endpoints, over a RequestContext whose uWS response nothing here touches. */
export function proxyContext(kind: EndpointKind, o: CallOptions = {}): ProxyContext {
  const http = new RequestContext({} as HttpResponse, { traceId: '0'.repeat(32), parentId: '0'.repeat(16), spanId: '1'.repeat(16), flags: '01' }, 0);
  http.agentId = o.agentId ?? 'bot';
  http.authorization = o.authorization ?? '';
  http.headerNames = PROXY_HEADERS;
  http.headerValues = PROXY_HEADERS.map((h) => o.headers?.[h] ?? '');
  if (o.body !== undefined) http.rawBody = Buffer.from(typeof o.body === 'string' ? o.body : JSON.stringify(o.body));
  const c = new ProxyContext(http, ENDPOINTS[kind]);
  c.principal = o.principal === undefined ? OPERATOR : o.principal;
  return c;
}

/** A stored policy of the tenant, as the policy store would hold it once its rules were checked. */
export function policyRecord(type: PolicyRecord['type'], rules: Record<string, unknown>, id = `pol_${type}`): PolicyRecord {
  return { id, tenant_id: TENANT, name: type, type, risk: 50, enabled: true, rules, created_at: '', updated_at: '', pack_key: null } as unknown as PolicyRecord;
}

/**
 * The real TenantRuntimes (policy sets compiled on first use, evaluation-time budget, judge) over in-memory stand-ins
 * for its stores: the tenant's policies are `policies`, a pack adds `packs[pack]`, no spend is stored.
 */
export function tenantRuntimes(policies: readonly PolicyRecord[], packs: Partial<Record<PackName, readonly PolicyRecord[]>> = {}, maxTextChars = 1 << 20): TenantRuntimes {
  const stored = { version: () => 1, all: (tenantId: string) => policies.filter((p) => p.tenant_id === tenantId) } as unknown as PolicyRepository;
  const counters = { getRange: () => [] } as unknown as Database;
  const limits = { maxPolicies: 1000, maxPatterns: 200, maxPatternSize: 200, maxProgramSize: 5000, maxTextChars, evalBurstMs: 2000, evalPerSecondMs: 250 };
  const runtimes = new TenantRuntimes({} as TenantRepository, stored, counters, limits);
  runtimes.sets.usePackPolicies((pack) => packs[pack] ?? []);
  return runtimes;
}

/** The GatewayError `run` answers with (a stage's local reply); fails the test when it returns or throws anything else. */
export function refusal(run: () => unknown): GatewayError {
  try {
    run();
  } catch (err) {
    if (err instanceof GatewayError) return err;
    throw err;
  }
  throw new Error('expected a GatewayError, but the call went on');
}
