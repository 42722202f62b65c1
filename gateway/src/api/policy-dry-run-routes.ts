import { GatewayError } from '../errors.js';
import type { HttpServer } from '../http/server.js';
import { assertOwnTenant } from '../http/list-params.js';
import { assertValid, OwnSchema } from '../http/gateway-ajv.js';
import { fromLedgerError } from '../ledger/events/ledger-errors.js';
import type { Ledger, LedgerEntry } from '../ledger/index.js';
import { dryRun } from '../policy/dry-run.js';
import type { PolicyRecord } from '../policy/policy-record.js';
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

/**
 * `POST /v1/policies/dry-run` (admin): a candidate policy (new, or an edit of `policy_id` in `PUT`'s form) validated
 * as a change would be, the tenant's set compiled with it, and the tenant's last `limit` recorded actions judged again
 * with it (policy/dry-run.ts says what can be). Nothing is stored or installed: the policies, their version and the
 * ledger are as they were.
 */
export function registerPolicyDryRunRoutes(server: HttpServer, deps: Pick<GatewayDeps, 'policies' | 'policyValidator' | 'runtimes' | 'ledger'>): void {
  const { policies, policyValidator, runtimes, ledger } = deps;
  server.route('post', '/v1/policies/dry-run', { auth: 'pat', scope: 'admin:manage', body: 'json' }, (ctx) => {
    const tenantId = ctx.auth.tenantId;
    assertValid(BODY, ctx.body);
    const body = ctx.body as { policy: unknown; policy_id?: string; limit?: number; tenant_id?: string };
    assertOwnTenant(ctx, body.tenant_id);
    const all = policies.all(tenantId);
    let candidate: PolicyRecord;
    if (body.policy_id !== undefined) {
      const current = policies.get(tenantId, body.policy_id);
      if (!current) throw new GatewayError('not_found', 'policy not found');
      candidate = { ...current, ...policyValidator.patch(body.policy, current.type) } as PolicyRecord;
    } else {
      const input = policyValidator.create(body.policy);
      const now = new Date().toISOString();
      candidate = { ...input, id: CANDIDATE_ID, tenant_id: tenantId, created_at: now, updated_at: now, pack_key: null } as PolicyRecord;
    }
    // The set a save would install must compile within the limits (400 otherwise); it is not installed.
    const set = [...all.filter((p) => p.id !== candidate.id), candidate];
    runtimes.compile(tenantId, policies.version(tenantId) + 1, set);
    const entries = recordedActions(ledger, tenantId, body.limit ?? DRY_RUN_DEFAULT);
    const names = new Map(all.map((p) => [p.id, p.name]));
    const { actions, totals } = dryRun(candidate, entries, names);
    return {
      status: 200,
      body: {
        candidate: { id: body.policy_id ?? null, name: candidate.name, type: candidate.type, enabled: candidate.enabled },
        policy_version: runtimes.policySet(tenantId).label,
        totals,
        actions,
      },
    };
  });
}

/** The tenant's last `limit` chained actions (entries with a decision), newest first. */
function recordedActions(ledger: Ledger, tenantId: string, limit: number): LedgerEntry[] {
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
