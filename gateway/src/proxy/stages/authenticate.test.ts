import { generateToken, hashToken } from '@aduana/shared';
import { describe, expect, it } from 'vitest';
import { policyRecord, proxyContext, refusal, TENANT, tenantRuntimes, type CallOptions } from '../../../test/helpers/proxy-context.js';
import type { AgentRegistry } from '../../agents/agent-registry.js';
import { AgentState } from '../../agents/agent-state.js';
import { Authenticator, type AccessControl } from '../../identity/auth/authenticate.js';
import { routeCheck } from '../../http/route-guards.js';
import type { Role } from '../../identity/auth/principal.js';
import type { TokenRecord } from '../../identity/auth/token-store.js';
import { GatewayError } from '../../errors.js';
import type { PackName } from '../../policy/packs.js';
import type { Repositories } from '../../storage/repositories.js';
import { authenticateStage } from './authenticate.js';

// The first stage over a small context: the real authenticator over PATs held in a Map, real compiled policy sets. The
// proxy route's guard runs first, as the server runs it: what it finds, or its refusal, is in the context.

const FILTER = policyRecord('content_filter', { patterns: ['forbidden'], action: 'DENY', target: 'input', case_insensitive: false });
const PACK_FILTER = { ...policyRecord('content_filter', { patterns: ['pack only'], action: 'DENY', target: 'input', case_insensitive: false }, 'pack:FREE_TIER_POLICIES:content_filter'), tenant_id: '' };

/** The registry's request-path call, in memory: agents registered on first use, or as the test set them up. */
class Agents {
  readonly known = new Map<string, AgentState>();
  readonly admitted: string[] = [];

  admit(tenantId: string, agentId: string, now: number): AgentState {
    this.admitted.push(`${tenantId}/${agentId}`);
    let s = this.known.get(agentId);
    if (!s) {
      s = new AgentState(tenantId, agentId);
      this.known.set(agentId, s);
    }
    s.lastSeen = now;
    return s;
  }

  add(agentId: string, set: (s: AgentState) => void): void {
    const s = new AgentState(TENANT, agentId);
    set(s);
    this.known.set(agentId, s);
  }
}

function setUp() {
  const tokens = new Map<string, TokenRecord>();
  const repos = { tokens: { findByHash: (hash: string) => tokens.get(hash) }, sessions: { find: () => undefined }, users: { get: () => undefined } };
  const authenticator = new Authenticator(repos as unknown as Pick<Repositories, 'tokens' | 'sessions' | 'users'>);
  const plan: { admit: () => void | Promise<void> } = { admit: () => undefined };
  const access: AccessControl = { authenticate: (ctx) => authenticator.authenticate(ctx), admit: () => plan.admit() };
  const runtimes = tenantRuntimes([FILTER], { FREE_TIER_POLICIES: [PACK_FILTER] });
  const agents = new Agents();
  const stage = authenticateStage(runtimes.sets, agents as unknown as AgentRegistry);
  const guard = routeCheck('post /v1/proxy/chat/completions', { auth: 'pat', scope: 'runtime:write', refusedBy: 'handler', body: 'none' }, access, {}, null);

  /** A PAT as `aduana token create` would store it; the bearer header that presents it. */
  function mint(role: Role, r: Partial<TokenRecord> = {}): string {
    const token = generateToken('pat');
    const expires = new Date(Date.now() + 86_400_000).toISOString();
    tokens.set(hashToken(token), { id: `pat_${tokens.size}`, tenant_id: TENANT, name: 'bot', role, user_id: '', created_at: '', expires_at: expires, revoked_at: null, last4: token.slice(-4), ...r });
    return `Bearer ${token}`;
  }

  const call = (o: CallOptions) => {
    const c = proxyContext('chat', { ...o, principal: null });
    guard?.(c.http);
    return c;
  };
  return { stage, runtimes, agents, plan, mint, call };
}

describe('authenticate stage', () => {
  it('leaves the principal, the admitted agent and the tenant policy set in the context, and refuses nothing', () => {
    const { stage, runtimes, agents, mint, call } = setUp();
    const c = call({ authorization: mint('operator'), agentId: 'bot' });
    expect(stage.run(c)).toBeUndefined();
    expect(c.principal).toMatchObject({ kind: 'pat', tenantId: TENANT, role: 'operator', agentId: null });
    expect(c.http.principal).toBe(c.principal);
    expect(agents.admitted).toEqual([`${TENANT}/bot`]);
    expect(c.agent).toBe(agents.known.get('bot'));
    expect(c.policySet).toBe(runtimes.sets.policySet(TENANT));
    expect(c.policySet?.records.map((p) => p.id)).toEqual([FILTER.id]);
    expect(c.decisionId).toBe('');
    expect(c.verdict).toBe('ALLOW');
  });

  it("judges an agent with a policy pack by the tenant's policies plus the pack's", () => {
    const { stage, runtimes, agents, mint, call } = setUp();
    const pack: PackName = 'FREE_TIER_POLICIES';
    agents.add('packed', (s) => (s.policyPack = pack));
    const c = call({ authorization: mint('operator'), agentId: 'packed' });
    stage.run(c);
    expect(c.policySet).toBe(runtimes.sets.agentSet(TENANT, pack));
    expect(c.policySet?.records.map((p) => p.id)).toEqual([FILTER.id, PACK_FILTER.id]);
  });

  it('refuses a missing, malformed, unknown, revoked or expired credential with its code, before any agent is admitted', () => {
    const { stage, agents, mint, call } = setUp();
    const unknown = generateToken('pat');
    const cases: [string, string][] = [
      ['', 'unauthenticated'],
      [`Basic ${unknown}`, 'unauthenticated'],
      ['Bearer adu_pat_not-a-token', 'unauthenticated'],
      [`Bearer ${unknown}`, 'unauthenticated'],
      [mint('operator', { revoked_at: new Date().toISOString() }), 'token_revoked'],
      [mint('operator', { expires_at: new Date(Date.now() - 1000).toISOString() }), 'token_expired'],
    ];
    for (const [authorization, code] of cases) {
      const c = call({ authorization, agentId: 'bot' });
      const err = refusal(() => stage.run(c));
      expect({ authorization, code: err.code, status: err.status }).toEqual({ authorization, code, status: 401 });
      expect(c.principal).toBeNull();
      expect(c.agent).toBeNull();
    }
    expect(agents.admitted).toEqual([]);
  });

  it('refuses a token without runtime:write (a viewer) with missing_scope', () => {
    const { stage, agents, mint, call } = setUp();
    const err = refusal(() => stage.run(call({ authorization: mint('viewer'), agentId: 'bot' })));
    expect(err.code).toBe('missing_scope');
    expect(err.status).toBe(403);
    expect(agents.admitted).toEqual([]);
  });

  it('refuses a tenant over its plan before any agent is admitted', () => {
    const { stage, agents, plan, mint, call } = setUp();
    plan.admit = () => {
      throw new GatewayError('rate_limited');
    };
    expect(refusal(() => stage.run(call({ authorization: mint('operator'), agentId: 'bot' }))).code).toBe('rate_limited');
    expect(agents.admitted).toEqual([]);
  });

  it('refuses a call that names no agent with missing_agent_id, leaving the policy set its answer is labelled with', () => {
    const { stage, runtimes, agents, mint, call } = setUp();
    const c = call({ authorization: mint('operator'), agentId: '' });
    const err = refusal(() => stage.run(c));
    expect(err.code).toBe('missing_agent_id');
    expect(err.status).toBe(400);
    expect(c.principal?.tenantId).toBe(TENANT);
    expect(c.policySet).toBe(runtimes.sets.policySet(TENANT));
    expect(c.agent).toBeNull();
    expect(agents.admitted).toEqual([]);
  });

  it('refuses an agent id the ledger could not key (a control character, over 256 UTF-8 bytes); 256 bytes are accepted', () => {
    const { stage, runtimes, agents, mint, call } = setUp();
    const auth = mint('operator');
    for (const agentId of ['bot\n1', 'bot\u007f', 'a'.repeat(257), 'é'.repeat(129)]) {
      const c = call({ authorization: auth, agentId });
      const err = refusal(() => stage.run(c));
      expect({ agentId, code: err.code, message: err.message }).toEqual({ agentId, code: 'invalid_request', message: 'x-svc-agent-id: no control characters, at most 256 bytes' });
      expect(c.policySet).toBe(runtimes.sets.policySet(TENANT));
      expect(c.agent).toBeNull();
    }
    expect(agents.admitted).toEqual([]);
    for (const agentId of ['a'.repeat(256), 'é'.repeat(128)]) {
      const c = call({ authorization: auth, agentId });
      stage.run(c);
      expect(c.agent?.agentId).toBe(agentId);
    }
  });

  it('lets a token bound to an agent act only as that agent (agent_mismatch, rule agent_binding)', () => {
    const { stage, agents, mint, call } = setUp();
    const auth = mint('operator', { agent_id: 'bound' });
    const err = refusal(() => stage.run(call({ authorization: auth, agentId: 'other' })));
    expect(err.code).toBe('agent_mismatch');
    expect(err.rule).toBe('agent_binding');
    expect(agents.admitted).toEqual([]);
    const c = call({ authorization: auth, agentId: 'bound' });
    stage.run(c);
    expect(c.principal?.agentId).toBe('bound');
    expect(c.agent?.agentId).toBe('bound');
  });

  it('denies a suspended agent as a recorded decision: DENY, rule agent_suspended, outcome blocked', () => {
    const { stage, runtimes, agents, mint, call } = setUp();
    agents.add('frozen', (s) => (s.suspended = true));
    const c = call({ authorization: mint('operator'), agentId: 'frozen' });
    const err = refusal(() => stage.run(c));
    expect(err.code).toBe('agent_suspended');
    expect(err.rule).toBe('agent_suspended');
    expect(err.status).toBe(403);
    expect(c.decisionId).toMatch(/^dec_/);
    expect(c.verdict).toBe('DENY');
    expect(c.rule).toBe('agent_suspended');
    expect(c.outcome).toBe('blocked');
    expect(c.agent).toBe(agents.known.get('frozen'));
    expect(c.policySet).toBe(runtimes.sets.policySet(TENANT));
  });
});
