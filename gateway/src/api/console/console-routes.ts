import { randomBytes } from 'node:crypto';
import { TokenBuckets } from '@aduana/shared';
import { ERRORS, GatewayError, type ErrorCode } from '../../errors.js';
import type { Handler, HttpServer, Reply } from '../../http/server.js';
import { LOGIN_CSRF_COOKIE, SESSION_COOKIE, cookieValue, setCookie } from '../../platform/cookies.js';
import type { RequestContext } from '../../http/request-context.js';
import { resolveDecision } from '../../governance/decisions/resolve-decision.js';
import type { GatewayDeps } from '../../gateway-deps.js';
import { loadConsoleAssets } from './console-assets.js';
import type { ConsoleData } from './console-data.js';
import type { ConsoleLedger } from './console-ledger.js';
import type { DecisionSource } from '../../governance/decisions/decision-source.js';
import { assertCsrf, formBody, viewerOf } from './console-session.js';
import { ADMIN_FORM, ADMIN_PAGE, FORM, PAGE, csrfCheckedPost, htmlReply, seeOther } from './console-route-kit.js';
import type { Viewer } from './pages/layout.js';
import { loginPage } from './pages/login-page.js';
import { RANGES, overviewPage, type RangeName } from './pages/overview-page.js';
import { decisionPage } from './pages/decision-page.js';
import { agentsPage, ledgerPage, policiesPage } from './pages/read-pages.js';
import { candidateCompiler, createPolicy, policyView, updatePolicy } from '../policies-routes.js';
import { policyDryRun } from '../policy-dry-run-routes.js';
import { EDITOR_DEFAULT_LIMIT, NEW_POLICY_JSON, policyEditorPage, type EditorState } from './pages/policy-editor-page.js';
import type { PolicyRecord } from '../../policy/policy-record.js';
import { describeScope } from '../../policy/policy-scope.js';
import { auditPage } from './pages/audit-page.js';
import { costsPage } from './pages/costs-page.js';
import { parseCostRange } from './cost-range.js';
import { usdBrlRate } from '../../proxy/pricing/usd-rate.js';
import { parseAuditQuery } from './audit-query.js';
import { actorOf } from '../../governance/admin-actions.js';
import type { RequestLog } from '../../request-log/request-log.js';
import type { RequestLogSettingsSource } from '../../request-log/request-log-settings.js';
import { registerSettingsRoutes } from './settings-routes.js';
import { registerRoutesEditorRoutes } from './routes-editor-routes.js';
import type { RouteRepository } from '../../proxy/routing/route-store.js';
import { registerDecisionListRoutes } from './decision-list-routes.js';
import { registerLedgerBrowserRoutes } from './ledger-browser-routes.js';
import { registerAccessRoutes, type AccessDeps } from './access-routes.js';

const COOKIE = ['cookie'] as const;
/** A decision id as the gateway makes them (`dec_` and a ULID): anything else names no decision. */
const DECISION_ID = /^dec_[0-9A-Za-z]{1,64}$/;

/** Sign-in failures the form names on its next showing (after a redirect, so a reload never re-posts a password). */
const LOGIN_ERRORS = new Set<ErrorCode>(['invalid_credentials', 'login_throttled', 'login_busy', 'invalid_request']);

/**
 * What the console needs: the embedded gateway's parts, or the control plane's (its decisions are the ones its sidecars
 * shipped, its ledger every shipped chain). At a sidecar its admin forms are refused by the server's route guard, as
 * the API's admin writes are (held decisions are resolved at the control plane).
 */
export type ConsoleDeps = Pick<GatewayDeps, 'passwordLogin' | 'sessions' | 'config' | 'policies' | 'policyValidator' | 'runtimes' | 'onDecisionResolved' | 'onAdminAction'> &
  // Provider credentials: a gateway's (a fleet's control plane keeps none).
  Partial<Pick<GatewayDeps, 'credentials'>> &
  AccessDeps & {
  /** The tenants' routes: the gateway's, or the control plane's for its sidecars. */
  routes: RouteRepository;
  decisions: DecisionSource;
  ledger: ConsoleLedger;
  /** The gateway's sampled request log (console.md, "Request log"); absent at a control plane, which keeps none. */
  requestLog?: RequestLog | undefined;
  /** Where the request log's settings are read and changed: the gateway's request log, or the control plane's table. */
  requestLogSettings: RequestLogSettingsSource;
};

/**
 * The read-only web console on the authentication service's port (docs/authentication.md, "Console"): server-rendered
 * pages, assets served here, strict CSP, session in an HttpOnly SameSite=Strict cookie (checked by the `session`
 * guard, console-session.ts), a CSRF token in every form that changes anything. Every role reads; only admins resolve
 * held decisions.
 */
export function registerConsoleRoutes(server: HttpServer, deps: ConsoleDeps, data: ConsoleData): void {
  const { sessions, passwordLogin, config, policies, ledger, decisions, policyValidator, runtimes } = deps;
  const assets = loadConsoleAssets();
  const secure = config.cookieSecure;
  const idp = config.oidcIssuer !== '';
  const sessionCookie = (token: string, maxAge: number) => setCookie(SESSION_COOKIE, token, { maxAge, path: '/', sameSite: 'Strict', secure });
  // A verification recomputes the tenant's whole chain (and, at the control plane, every shipped one): any viewer may
  // start one, so they are limited per tenant (CONSOLE_VERIFIES_PER_HOUR).
  const verifies = new TokenBuckets({ capacity: config.consoleVerifiesPerHour, refillPerSecond: config.consoleVerifiesPerHour / 3600 });

  /** A page (PAGE) rendered for the signed-in person its guard admitted. */
  const signedIn =
    (render: (v: Viewer, ctx: RequestContext) => Reply | Promise<Reply>): Handler =>
    (ctx) =>
      render(viewerOf(ctx), ctx);

  server.route('get', '/console/assets/:name', { auth: 'public', body: 'none' }, (ctx) => {
    const a = assets.get(ctx.params[0] as string);
    if (!a) throw new GatewayError('route_not_found');
    return { status: 200, raw: a.body, contentType: a.type, headers: { 'cache-control': 'public, max-age=3600', 'x-content-type-options': 'nosniff' } };
  });

  server.route('get', '/console/login', { auth: 'public', body: 'none', headers: COOKIE }, (ctx) => {
    const csrf = randomBytes(24).toString('base64url');
    const cookie = setCookie(LOGIN_CSRF_COOKIE, csrf, { maxAge: 3600, path: '/console', sameSite: 'Strict', secure });
    const code = ctx.query.get('error') as ErrorCode | null;
    const error = code && LOGIN_ERRORS.has(code) ? ERRORS[code].message : undefined;
    return htmlReply(200, loginPage({ csrf, idp, error }), { 'set-cookie': cookie });
  });

  server.route('post', '/console/login', { auth: 'public', body: 'raw', headers: COOKIE }, async (ctx) => {
    const form = formBody(ctx);
    // Before a session exists the form's token must match the one its cookie carries (double submit).
    assertCsrf(form, cookieValue(ctx.header('cookie'), LOGIN_CSRF_COOKIE));
    try {
      const { token, record, deviceCookie } = await passwordLogin.login((form.get('email') ?? '').slice(0, 320), form.get('password') ?? '', ctx.clientAddress(), ctx.header('cookie'));
      return { ...seeOther('/console', sessionCookie(token, Math.floor((Date.parse(record.expires_at) - Date.now()) / 1000))), cookies: [deviceCookie] };
    } catch (err) {
      if (!(err instanceof GatewayError) || !LOGIN_ERRORS.has(err.code)) throw err;
      return seeOther(`/console/login?error=${err.code}`);
    }
  });

  server.route(
    'post',
    '/console/logout',
    FORM,
    csrfCheckedPost(async (v) => {
      await sessions.revoke(v.token);
      return seeOther('/console/login', sessionCookie('', 0));
    }),
  );

  server.route(
    'get',
    '/console',
    PAGE,
    signedIn(async (v, ctx) => {
      const q = ctx.query.get('range') ?? '24h';
      const range: RangeName = q in RANGES ? (q as RangeName) : '24h';
      const now = Date.now();
      const r = RANGES[range];
      return htmlReply(200, overviewPage(v, await data.overview(v.principal.tenantId, now - r.ms, now, r.buckets), range));
    }),
  );

  registerDecisionListRoutes(server, data, policies, config.consoleCsvMaxRows);

  // Why a decision was judged so: its rules by name, redactions, action, ledger entry and inclusion proof.
  server.route(
    'get',
    '/console/decisions/:id',
    { ...PAGE, params: DECISION_ID },
    signedIn(async (v, ctx) => {
      const tenantId = v.principal.tenantId;
      const d = await data.decision(tenantId, (ctx.params[0] as string).slice(0, 64));
      if (!d) throw new GatewayError('not_found', 'decision not found');
      const named = new Map(policies.all(tenantId).map((p) => [p.id, p]));
      const view = ledger.decision ? await ledger.decision(d) : null;
      return htmlReply(200, decisionPage(v, d, named, view, deps.requestLog ? deps.requestLog.lookup(tenantId, d.decision_id) : { kind: 'elsewhere', sidecar: view?.chainId?.split('/')[0] ?? null }));
    }),
  );

  server.route(
    'post',
    '/console/decisions/:id/resolve',
    ADMIN_FORM,
    csrfCheckedPost(async (v, form, ctx) => {
      const resolution = form.get('resolution');
      if (resolution !== 'APPROVED' && resolution !== 'REJECTED') throw new GatewayError('invalid_request', 'resolution: APPROVED or REJECTED');
      const id = ctx.params[0] as string;
      await resolveDecision(decisions, (d) => deps.onDecisionResolved(d), v.principal, id, resolution, (form.get('note') ?? '').slice(0, 2000));
      return seeOther(`/console/decisions?since=all&resolved=${encodeURIComponent(id)}`);
    }),
  );

  server.route(
    'get',
    '/console/agents',
    PAGE,
    signedIn(async (v) => htmlReply(200, agentsPage(v, await data.listAgents(v.principal.tenantId, Date.now())))),
  );

  // Tokens and cost by model, agent and UTC day: one pass over the newest decisions (CONSOLE_SCAN_LIMIT).
  const usd = usdBrlRate(config.usdBrlRate);
  server.route(
    'get',
    '/console/costs',
    PAGE,
    signedIn(async (v, ctx) => {
      const r = parseCostRange(ctx.query, Date.now());
      return htmlReply(200, costsPage(v, await data.costs(v.principal.tenantId, r.fromMs, r.toMs), r.shown, usd));
    }),
  );

  server.route(
    'get',
    '/console/policies',
    PAGE,
    signedIn((v) => htmlReply(200, policiesPage(v, policies.all(v.principal.tenantId)))),
  );

  // Admins switch a policy on or off (the one policy change the console makes; the rest is the API's).
  server.route(
    'post',
    '/console/policies/:id/toggle',
    ADMIN_FORM,
    csrfCheckedPost(async (v, _form, ctx) => {
      const tenantId = v.principal.tenantId;
      const current = policies.get(tenantId, ctx.params[0] as string);
      if (!current) throw new GatewayError('not_found', 'policy not found');
      const patch = policyValidator.patch({ enabled: !current.enabled }, current.type);
      const { record, compiled } = await policies.update(tenantId, current, patch, candidateCompiler(runtimes.sets, tenantId));
      runtimes.sets.install(compiled);
      await deps.onAdminAction(tenantId, { actor: actorOf(v.principal), action: 'policy.updated', target: record.id, before: policyView(current), after: policyView(record) }, ctx.trace.traceId);
      return seeOther('/console/policies');
    }),
  );

  // The policy editor (admins): a policy's JSON validated as the API validates it, a dry run, save (policy-editor-page.ts).
  server.route(
    'get',
    '/console/policies/editor',
    ADMIN_PAGE,
    signedIn((v, ctx) => {
      const id = ctx.query.get('id');
      const current = id === null ? undefined : policies.get(v.principal.tenantId, id);
      if (id !== null && !current) throw new GatewayError('not_found', 'policy not found');
      const json = current ? JSON.stringify({ name: current.name, risk: current.risk, enabled: current.enabled, rules: current.rules, ...(current.scope === undefined ? {} : { scope: current.scope }) }, null, 2) : NEW_POLICY_JSON;
      return htmlReply(200, policyEditorPage(v, editorState(current, json, EDITOR_DEFAULT_LIMIT)));
    }),
  );

  server.route(
    'post',
    '/console/policies/editor',
    ADMIN_FORM,
    csrfCheckedPost(async (v, form, ctx) => {
      const tenantId = v.principal.tenantId;
      const policyId = form.get('policy_id') || null;
      const current = policyId === null ? undefined : policies.get(tenantId, policyId);
      if (policyId !== null && !current) throw new GatewayError('not_found', 'policy not found');
      const json = (form.get('policy') ?? '').slice(0, 200_000);
      const limitText = form.get('limit') ?? '';
      const limit = /^\d{1,4}$/.test(limitText) ? Number(limitText) : EDITOR_DEFAULT_LIMIT;
      const state = editorState(current, json, limit);
      let policy: unknown;
      try {
        policy = JSON.parse(json);
      } catch (err) {
        return htmlReply(400, policyEditorPage(v, { ...state, error: `The policy is not JSON: ${err instanceof Error ? err.message : String(err)}` }));
      }
      // The editor shows a scoped policy's scope: taken out of the JSON, the policy applies everywhere again.
      if (current?.scope !== undefined && policy !== null && typeof policy === 'object' && !Array.isArray(policy) && !('scope' in policy)) (policy as Record<string, unknown>)['scope'] = null;
      try {
        if (form.get('op') === 'save') {
          const saved = policyId === null ? await createPolicy(deps, tenantId, policy, v.principal, ctx.trace.traceId) : await updatePolicy(deps, tenantId, policyId, policy, v.principal, ctx.trace.traceId);
          return seeOther(`/console/policies#policy-${encodeURIComponent(saved.record.id)}`);
        }
        const read = ledger.recordedActions;
        if (!read) throw new GatewayError('invalid_request', 'the dry run needs a gateway\'s recorded actions');
        const body = { policy, limit, ...(policyId === null ? {} : { policy_id: policyId }) };
        return htmlReply(200, policyEditorPage(v, { ...state, result: policyDryRun(deps, tenantId, body, (n) => read(tenantId, n)) }));
      } catch (err) {
        // The validator's message, shown above the policy as typed.
        if (!(err instanceof GatewayError) || err.code !== 'invalid_request') throw err;
        return htmlReply(400, policyEditorPage(v, { ...state, error: err.message }));
      }
    }),
  );

  /** The editor as first shown, or re-shown with what was typed. */
  function editorState(current: PolicyRecord | undefined, json: string, limit: number): EditorState {
    return {
      policyId: current?.id ?? null,
      policyName: current?.name ?? null,
      scope: current === undefined ? null : describeScope(current.scope),
      json,
      limit,
      error: '',
      result: null,
      dryRunAvailable: ledger.recordedActions !== undefined,
    };
  }

  // Who changed what (the admin actions chained in the tenant's ledger): read-only, every role.
  server.route(
    'get',
    '/console/audit',
    PAGE,
    signedIn(async (v, ctx) => {
      const q = parseAuditQuery(ctx.query);
      return htmlReply(200, auditPage(v, ledger.auditTrail ? await ledger.auditTrail(v.principal.tenantId, q.filter) : null, q.shown, q.tzo));
    }),
  );

  registerSettingsRoutes(server, deps);

  registerRoutesEditorRoutes(server, deps);

  registerAccessRoutes(server, deps);

  registerLedgerBrowserRoutes(server, ledger);

  server.route(
    'post',
    '/console/ledger/verify',
    FORM,
    csrfCheckedPost(async (v) => {
      const t = v.principal.tenantId;
      const allowed = verifies.take(t);
      if (!allowed.allowed) {
        throw new GatewayError('rate_limited', `too many ledger verifications for this tenant; retry in ${allowed.retryAfterS} s`, '', { 'retry-after': String(allowed.retryAfterS) });
      }
      const report = await ledger.verify(t);
      const { size, checkpoint } = await ledger.summary(t);
      return htmlReply(200, ledgerPage(v, size, checkpoint, report));
    }),
  );
}
