import { GatewayError } from '../errors.js';
import type { HttpServer } from '../http/server.js';
import { assertOwnTenant } from '../http/list-params.js';
import { assertValid, OwnSchema } from '../platform/gateway-ajv.js';
import { fromLedgerError } from '../ledger/events/ledger-errors.js';
import type { EventsLedger, LedgerEntry } from '../ledger/index.js';
import { dryRun, type DryRunAction, type DryRunTotals } from '../policy/dry-run.js';
import type { PolicyRecord } from '../policy/policy-record.js';
import { patchedPolicy } from '../policy/policy-store.js';
import type { GatewayDeps } from '../gateway-deps.js';

/** Recorded actions a dry run judges by default, and at most. */
export const DRY_RUN_DEFAULT = 100;
export const DRY_RUN_MAX = 1000;
/** Ledger entries read at most to find them (admin actions and resolutions are chained among the actions). */
const MAX_ENTRIES_READ = 20_000;
const PAGE = 500;
/** The id a new policy is judged under (never stored). */
const CANDIDATE_ID = 'pol_candidate';

const BODY = new OwnSchema({
  type: 'object',
  additionalProperties: false,
  required: ['policy'],
  properties: {
    policy: { type: 'object' },
    policy_id: { type: 'string', minLength: 1, maxLength: 64 },
    limit: { type: 'integer', minimum: 1, maximum: DRY_RUN_MAX },
    tenant_id: { type: 'string', minLength: 1, maxLength: 64 },
  },
});

/** The answer of a dry run (`POST /v1/policies/dry-run`, the console's policy editor). */
export interface DryRunAnswer {
  candidate: { id: string | null; name: string; type: string; enabled: boolean };
  policy_version: string;
  totals: DryRunTotals;
  actions: DryRunAction[];
}

/**
 * A dry run of a candidate policy (new, or an edit of `policy_id` in `PUT`'s form), validated as a change would be,
 * the tenant's set compiled with it, and the tenant's last `limit` recorded actions (read by `read`) judged again with
 * it (policy/dry-run.ts says what can be). Nothing is stored or installed: the policies, their version and the ledger
 * are as they were.
 */
export function policyDryRun(deps: Pick<GatewayDeps, 'policies' | 'policyValidator' | 'runtimes'>, tenantId: string, body: unknown, read: (limit: number) => LedgerEntry[]): DryRunAnswer {
  const { policies, policyValidator, runtimes } = deps;
  assertValid(BODY, body);
  const b = body as { policy: unknown; policy_id?: string; limit?: number };
  const all = policies.all(tenantId);
  let candidate: PolicyRecord;
  if (b.policy_id !== undefined) {
    const current = policies.get(tenantId, b.policy_id);
    if (!current) throw new GatewayError('not_found', 'policy not found');
    candidate = patchedPolicy(current, policyValidator.patch(b.policy, current.type));
  } else {
    const input = policyValidator.create(b.policy);
    const now = new Date().toISOString();
    candidate = { ...input, id: CANDIDATE_ID, tenant_id: tenantId, created_at: now, updated_at: now, pack_key: null } as PolicyRecord;
  }
  // The set a save would install must compile within the limits (400 otherwise); it is not installed.
  runtimes.sets.compile(tenantId, policies.version(tenantId) + 1, [...all.filter((p) => p.id !== candidate.id), candidate]);
  const names = new Map(all.map((p) => [p.id, p.name]));
  const { actions, totals } = dryRun(candidate, read(b.limit ?? DRY_RUN_DEFAULT), names);
  return {
    candidate: { id: b.policy_id ?? null, name: candidate.name, type: candidate.type, enabled: candidate.enabled },
    policy_version: runtimes.sets.policySet(tenantId).label,
    totals,
    actions,
  };
}

/** `POST /v1/policies/dry-run` (admin), on a gateway: its ledger holds the recorded actions. */
export function registerPolicyDryRunRoutes(server: HttpServer, deps: Pick<GatewayDeps, 'policies' | 'policyValidator' | 'runtimes' | 'ledger'>): void {
  server.route('post', '/v1/policies/dry-run', { auth: 'pat', scope: 'admin:manage', body: 'json' }, (ctx) => {
    assertOwnTenant(ctx, (ctx.body as Record<string, unknown> | null)?.['tenant_id']);
    const tenantId = ctx.auth.tenantId;
    return { status: 200, body: policyDryRun(deps, tenantId, ctx.body, (limit) => recordedActions(deps.ledger, tenantId, limit)) };
  });
}

/** The tenant's last `limit` chained actions (entries with a decision), newest first. */
export function recordedActions(ledger: EventsLedger, tenantId: string, limit: number): LedgerEntry[] {
  const out: LedgerEntry[] = [];
  let cursor: string | null = null;
  let read = 0;
  try {
    while (out.length < limit && read < MAX_ENTRIES_READ) {
      const page = ledger.list(tenantId, { limit: PAGE, order: 'desc', cursor });
      for (const e of page.events) {
        if (e.decision !== null && typeof e.decision['decision_id'] === 'string' && out.length < limit) out.push(e);
      }
      read += page.events.length;
      if (page.cursor === null) break;
      cursor = page.cursor;
    }
  } catch (err) {
    throw fromLedgerError(err);
  }
  return out;
}
