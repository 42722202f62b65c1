import { GatewayError } from '../errors.js';
import type { HttpServer } from '../http/server.js';
import { assertOwnTenant, limitParam, queryTenant } from '../http/list-params.js';
import { assertValid, OwnSchema } from '../platform/gateway-ajv.js';
import type { DecisionRecord } from '../governance/decisions/decision-store.js';
import type { GatewayDeps } from '../gateway-deps.js';
import type { GatewayConfig } from '../config.js';
import type { DecisionSource } from '../governance/decisions/decision-source.js';
import { resolveDecision } from '../governance/decisions/resolve-decision.js';
import type { DecideOutcome } from '../governance/decisions/decision-engine.js';

const validateResolve = new OwnSchema({
  type: 'object',
  additionalProperties: false,
  required: ['resolution'],
  properties: { resolution: { type: 'string', enum: ['APPROVED', 'REJECTED'] }, note: { type: 'string', maxLength: 2000 } },
});

/** The audit decision record (docs/decisions.md), plus why (rule, triggered policies) and how a held decision was resolved. */
function decisionView(d: DecisionRecord) {
  return {
    decision_id: d.decision_id,
    tenant_id: d.tenant_id,
    agent_id: d.agent_id,
    execution_status: d.execution_status,
    risk_score: d.risk_score,
    event_type: d.event_type,
    trace_id: d.trace_id,
    created_at: d.created_at,
    rule: d.rule,
    policy_version: d.policy_version,
    triggered: d.triggered.map((t) => ({ policy_id: t.policyId, type: t.type, action: t.action, risk: t.risk, reason: t.reason })),
    resolution: d.resolution,
  };
}

/** What the admin decision routes need: the embedded decision store, or the control plane's archive. */
export interface DecisionAdminDeps {
  decisions: DecisionSource;
  config: Pick<GatewayConfig, 'listDefaultLimit' | 'listMaxLimit'>;
  onDecisionResolved(d: DecisionRecord): Promise<void>;
}

function decideAnswer({ envelope, evaluation, policyLabel }: DecideOutcome) {
  // The rule behind a verdict other than ALLOW (agent_suspended included), as the proxy's x-svc-rule.
  const headers: Record<string, string> = evaluation.verdict !== 'ALLOW' && evaluation.rule ? { 'x-svc-policy': policyLabel, 'x-svc-rule': evaluation.rule } : { 'x-svc-policy': policyLabel };
  return { status: 200, body: { envelope, trace_id: envelope.trace_id }, headers };
}

/** `POST /v1/decide`: an agents' call, mounted with the others (mount-agents-calls.ts). */
export function registerDecideRoute(server: HttpServer, deps: Pick<GatewayDeps, 'engine' | 'decideValidator'>): void {
  const { engine, decideValidator } = deps;

  server.route('post', '/v1/decide', { auth: 'pat', scope: 'runtime:write', body: 'json', agentsCall: 'any-thread' }, (ctx) => {
    const req = decideValidator.parse(ctx.body);
    assertOwnTenant(ctx, req.tenant_id);
    const outcome = engine.decide(ctx.auth, req, ctx.trace.traceId, ctx.startedAt, ctx.rawBody);
    // A promise only when rate_limit windows are counted on Redis (docs/fleet.md, "Shared limits").
    return outcome instanceof Promise ? outcome.then(decideAnswer) : decideAnswer(outcome);
  });
}

/** `GET /admin/decisions`, `GET /admin/decisions/{id}`, `POST /admin/decisions/{id}/resolve` (docs/decisions.md). */
export function registerDecisionAdminRoutes(server: HttpServer, deps: DecisionAdminDeps): void {
  const { decisions, config } = deps;

  server.route('get', '/admin/decisions', { auth: 'pat', scope: 'runtime:read', body: 'none' }, async (ctx) => {
    queryTenant(ctx);
    const limit = limitParam(ctx, config.listDefaultLimit, config.listMaxLimit);
    return { status: 200, body: { data: (await decisions.recent(ctx.auth.tenantId, limit)).map(decisionView) } };
  });

  server.route('get', '/admin/decisions/:id', { auth: 'pat', scope: 'runtime:read', body: 'none' }, async (ctx) => {
    const d = await decisions.get(ctx.auth.tenantId, ctx.params[0] as string);
    if (!d) throw new GatewayError('not_found', 'decision not found');
    return { status: 200, body: decisionView(d) };
  });

  server.route('post', '/admin/decisions/:id/resolve', { auth: 'pat', scope: 'admin:manage', body: 'json' }, async (ctx) => {
    assertValid(validateResolve, ctx.body);
    const body = ctx.body as { resolution: 'APPROVED' | 'REJECTED'; note?: string };
    const resolved = await resolveDecision(decisions, (d) => deps.onDecisionResolved(d), ctx.auth, ctx.params[0] as string, body.resolution, body.note ?? '');
    return { status: 200, body: decisionView(resolved) };
  });
}
