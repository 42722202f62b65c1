import { GatewayError } from '../errors.js';
import type { HttpServer } from '../http/server.js';
import { assertOwnTenant, cursorParam, limitParam, queryTenant } from '../http/list-params.js';
import { PACKS, PACK_NAMES, type PackName } from '../policy/packs.js';
import type { PolicyRecord } from '../policy/policy-record.js';
import type { GatewayDeps } from '../gateway-deps.js';
import type { CompileCandidate } from '../policy/policy-store.js';
import type { PolicySet } from '../policy/compile-policy-set.js';
import type { CompiledSets } from '../policy/runtime/compiled-sets.js';
import { actorOf } from '../governance/admin-actions.js';
import type { Principal } from '../identity/auth/principal.js';

/** The public view of a policy (the stored record minus internal bookkeeping); `scope` only on a scoped one. */
export function policyView(p: PolicyRecord) {
  return { id: p.id, name: p.name, type: p.type, risk: p.risk, enabled: p.enabled, rules: p.rules, ...(p.scope === undefined ? {} : { scope: p.scope }), created_at: p.created_at, updated_at: p.updated_at };
}

/**
 * The list's `enabled` filter: the active policies by default (what the tenant enforces), `false` the disabled ones,
 * `all` every policy.
 */
function enabledFilter(value: string | null): boolean | null {
  if (value === null || value === 'true') return true;
  if (value === 'false') return false;
  if (value === 'all') return null;
  throw new GatewayError('invalid_request', 'enabled: true (the default), false or all');
}

export function registerPolicyRoutes(server: HttpServer, deps: Pick<GatewayDeps, 'policies' | 'policyValidator' | 'runtimes' | 'config' | 'onAdminAction'>): void {
  const { policies, policyValidator, runtimes, config, onAdminAction } = deps;

  server.route('get', '/v1/policies', { auth: 'pat', scope: 'runtime:read', body: 'none' }, (ctx) => {
    queryTenant(ctx);
    const limit = limitParam(ctx, config.listDefaultLimit, config.listMaxLimit);
    const page = policies.page(ctx.auth.tenantId, limit, cursorParam(ctx), enabledFilter(ctx.query.get('enabled')));
    return { status: 200, body: { data: page.data.map(policyView), cursor: page.cursor, total: page.total, policy_version: `v${policies.version(ctx.auth.tenantId)}` } };
  });

  server.route('get', '/v1/policies/:id', { auth: 'pat', scope: 'runtime:read', body: 'none' }, (ctx) => {
    const p = policies.get(ctx.auth.tenantId, ctx.params[0] as string);
    if (!p) throw new GatewayError('not_found', 'policy not found');
    return { status: 200, body: policyView(p) };
  });

  server.route('post', '/v1/policies', { auth: 'pat', scope: 'admin:manage', body: 'json' }, async (ctx) => {
    assertOwnTenant(ctx, (ctx.body as Record<string, unknown> | null)?.['tenant_id']);
    const { record: rec, set } = await createPolicy(deps, ctx.auth.tenantId, stripTenant(ctx.body), ctx.auth, ctx.trace.traceId);
    return { status: 200, body: { id: rec.id, name: rec.name, created_at: rec.created_at, policy_version: set.label }, headers: { 'x-svc-policy': set.label } };
  });

  server.route('put', '/v1/policies/:id', { auth: 'pat', scope: 'admin:manage', body: 'json' }, async (ctx) => {
    const id = ctx.params[0] as string;
    if (!policies.get(ctx.auth.tenantId, id)) throw new GatewayError('not_found', 'policy not found');
    assertOwnTenant(ctx, (ctx.body as Record<string, unknown> | null)?.['tenant_id']);
    const { record: next, set } = await updatePolicy(deps, ctx.auth.tenantId, id, stripTenant(ctx.body), ctx.auth, ctx.trace.traceId);
    return { status: 200, body: { ...policyView(next), policy_version: set.label }, headers: { 'x-svc-policy': set.label } };
  });

  server.route('delete', '/v1/policies/:id', { auth: 'pat', scope: 'admin:manage', body: 'none' }, async (ctx) => {
    const tenantId = ctx.auth.tenantId;
    const current = policies.get(tenantId, ctx.params[0] as string);
    if (!current) throw new GatewayError('not_found', 'policy not found');
    const compiled = await policies.remove(tenantId, current.id, candidateCompiler(runtimes.sets, tenantId));
    const set = compiled ? runtimes.sets.install(compiled) : runtimes.sets.policySet(tenantId);
    await onAdminAction(tenantId, { actor: actorOf(ctx.auth), action: 'policy.deleted', target: current.id, before: policyView(current), after: null }, ctx.trace.traceId);
    return { status: 204, headers: { 'x-svc-policy': set.label } };
  });

  server.route('post', '/v1/policies/apply-pack', { auth: 'pat', scope: 'admin:manage', body: 'json' }, async (ctx) => {
    const body = ctx.body as { pack?: unknown; tenant_id?: unknown } | null;
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw new GatewayError('invalid_request', 'body must be an object {pack}');
    assertOwnTenant(ctx, body.tenant_id);
    if (typeof body.pack !== 'string' || !PACK_NAMES.includes(body.pack as PackName)) {
      throw new GatewayError('invalid_request', `pack: must be one of ${PACK_NAMES.join(', ')}`);
    }
    const extra = Object.keys(body).filter((k) => k !== 'pack' && k !== 'tenant_id');
    if (extra.length) throw new GatewayError('invalid_request', `unknown field "${extra[0]}"`);
    const pack = body.pack as PackName;
    const items = PACKS[pack].map((p) => ({
      key: p.key,
      input: { name: p.name, type: p.type, risk: p.risk, enabled: true, rules: policyValidator.rules(p.type, p.rules) },
    }));
    const { created, existing, compiled } = await policies.applyPack(ctx.auth.tenantId, items, candidateCompiler(runtimes.sets, ctx.auth.tenantId));
    const set = compiled ? runtimes.sets.install(compiled) : runtimes.sets.policySet(ctx.auth.tenantId);
    // The pack's name is the target; `after` the policies it created (none when all were there already).
    await onAdminAction(ctx.auth.tenantId, { actor: actorOf(ctx.auth), action: 'policy.pack_applied', target: pack, before: null, after: created.map(policyView) }, ctx.trace.traceId);
    return {
      status: 200,
      body: { pack, created: created.map(policyView), existing: existing.map(policyView), policy_version: set.label },
      headers: { 'x-svc-policy': set.label },
    };
  });
}

type PolicyWriteDeps = Pick<GatewayDeps, 'policies' | 'policyValidator' | 'runtimes' | 'onAdminAction'>;

/**
 * A new policy, validated, compiled with the tenant's set, stored, installed and chained as an admin action: what
 * `POST /v1/policies` and the console's policy editor do.
 */
export async function createPolicy(deps: PolicyWriteDeps, tenantId: string, body: unknown, actor: Pick<Principal, 'id' | 'userId'>, traceId: string): Promise<{ record: PolicyRecord; set: PolicySet }> {
  const input = deps.policyValidator.create(body);
  const { record, compiled } = await deps.policies.create(tenantId, input, candidateCompiler(deps.runtimes.sets, tenantId));
  const set = deps.runtimes.sets.install(compiled);
  await deps.onAdminAction(tenantId, { actor: actorOf(actor), action: 'policy.created', target: record.id, before: null, after: policyView(record) }, traceId);
  return { record, set };
}

/** A policy's edit (`PUT /v1/policies/{id}`'s body), as `createPolicy` does a new one; 404 for an unknown id. */
export async function updatePolicy(deps: PolicyWriteDeps, tenantId: string, id: string, body: unknown, actor: Pick<Principal, 'id' | 'userId'>, traceId: string): Promise<{ record: PolicyRecord; set: PolicySet }> {
  const current = deps.policies.get(tenantId, id);
  if (!current) throw new GatewayError('not_found', 'policy not found');
  const patch = deps.policyValidator.patch(body, current.type);
  const { record, compiled } = await deps.policies.update(tenantId, current, patch, candidateCompiler(deps.runtimes.sets, tenantId));
  const set = deps.runtimes.sets.install(compiled);
  await deps.onAdminAction(tenantId, { actor: actorOf(actor), action: 'policy.updated', target: record.id, before: policyView(current), after: policyView(record) }, traceId);
  return { record, set };
}

/** Every change compiles the tenant's whole candidate set before it commits (400 and nothing stored when it cannot). */
export function candidateCompiler(sets: CompiledSets, tenantId: string): CompileCandidate<PolicySet> {
  return (candidate, version) => sets.compile(tenantId, version, candidate);
}

function stripTenant(body: unknown): unknown {
  if (body && typeof body === 'object' && !Array.isArray(body) && 'tenant_id' in body) {
    const { tenant_id: _t, ...rest } = body as Record<string, unknown>;
    return rest;
  }
  return body;
}
