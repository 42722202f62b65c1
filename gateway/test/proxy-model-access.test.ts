import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import OpenAI, { AzureOpenAI } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LedgerEntry } from '../src/ledger/index.js';
import { call, expectEnvelope, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';
import { MockAnthropic } from './helpers/mock-anthropic.js';
import { MockGemini } from './helpers/mock-gemini.js';
import { MockUpstream } from './helpers/mock-upstream.js';

// A model_access policy holds a tenant's agents to some models by the name each call asks for, in every wire format:
// the official SDKs (unchanged but for base URL and key) against mocks of each provider on loopback. A refused call is
// the provider's own 403 shape naming the policy, nothing reaches the provider, and the ledger records the rule.

let t: TestGateway;
let openai: MockUpstream;
let claude: MockAnthropic;
let gemini: MockGemini;
let n = 0;

const AGENT = 'model-agent';
const API_VERSION = '2024-10-21';

interface Tenant {
  id: string;
  admin: string;
  operator: string;
  policyId: string;
}

/** A fresh tenant whose only policy is a model_access policy of these rules (none: no policy). */
async function tenantWith(rules: Record<string, unknown> | null): Promise<Tenant> {
  const id = `models-${++n}`;
  const tok = await t.tenant(id);
  let policyId = '';
  if (rules !== null) {
    const p = await call(t.url, 'POST', '/v1/policies', { token: tok.admin, body: { name: 'held models', type: 'model_access', risk: 70, rules } });
    expect(p.status, p.text).toBe(200);
    policyId = p.body.id as string;
  }
  return { id, admin: tok.admin, operator: tok.operator, policyId };
}

/** The tenant's chained calls and decisions (entries with a decision), newest first, once `count` are there. */
async function decided(tenant: Tenant, count: number): Promise<LedgerEntry[]> {
  const list = () => t.gw.deps.ledger.list(tenant.id, { limit: 50, order: 'desc' }).events.filter((e) => e.decision !== null);
  await expect.poll(() => list().length, { timeout: 5000 }).toBeGreaterThanOrEqual(count);
  return list();
}

/** The entry of the call whose decision id is `decisionId` (x-svc-trace-id), once chained. */
async function entryOf(tenant: Tenant, decisionId: string | null | undefined): Promise<LedgerEntry> {
  expect(decisionId).toMatch(/^dec_/);
  const find = () => t.gw.deps.ledger.list(tenant.id, { limit: 50 }).events.find((e) => e.metadata['decision_id'] === decisionId);
  await expect.poll(find, { timeout: 5000 }).toBeDefined();
  return find()!;
}

/** A refused call's entry: DENY by the policy, its model_access trigger, and the model as asked. */
function expectRefusedEntry(e: LedgerEntry, tenant: Tenant, model: string): void {
  expect(e.decision).toMatchObject({ execution_status: 'DENY', rule: tenant.policyId });
  expect(e.decision!['triggered']).toEqual([expect.objectContaining({ policy_id: tenant.policyId, type: 'model_access', action: 'DENY', risk: 70 })]);
  expect(e.payload).toMatchObject({ model, outcome: 'blocked', upstream_status: 0 });
}

const thrown = (p: Promise<unknown>): Promise<unknown> => p.then(() => null, (e: unknown) => e);

beforeAll(async () => {
  [openai, claude, gemini] = await Promise.all([new MockUpstream().start(), new MockAnthropic().start(), new MockGemini().start()]);
  // One OpenAI mock answers OpenAI's paths and Azure's deployment paths alike.
  t = await startTestGateway({ upstreamBaseUrl: openai.url, upstreamAzureBaseUrl: new URL(openai.url).origin, upstreamAnthropicBaseUrl: claude.url, upstreamGeminiBaseUrl: gemini.url });
});
afterAll(async () => {
  await t?.close();
  await Promise.all([openai?.close(), claude?.close(), gemini?.close()]);
});
beforeEach(() => {
  openai.reset();
  claude.reset();
  gemini.reset();
});

const sdk = (token: string, headers: Record<string, string> = { 'x-svc-agent-id': AGENT }) =>
  new OpenAI({ apiKey: token, baseURL: `${t.url}/v1/proxy`, maxRetries: 0, defaultHeaders: { ...headers, 'x-forwarded-authorization': 'Bearer sk-provider' } });
const chat = (model: string) => ({ model, messages: [{ role: 'user' as const, content: 'hello' }] });

describe('OpenAI: chat completions, Responses, embeddings', () => {
  it('an allowed model passes; another is the SDK\'s PermissionDeniedError naming the policy, never sent upstream, recorded with the rule', async () => {
    const a = await tenantWith({ allow: ['gpt-4o-mini', 'text-embedding-3-*'], action: 'DENY' });
    openai.next({ content: 'hi there' });
    const ok = await sdk(a.operator).chat.completions.create(chat('gpt-4o-mini')).withResponse();
    expect(ok.data.choices[0]!.message.content).toBe('hi there');
    expect(ok.response.headers.get('x-svc-verdict')).toBe('ALLOWED');
    expect(openai.received.map((r) => r.body?.['model'])).toEqual(['gpt-4o-mini']);
    expect((await entryOf(a, ok.response.headers.get('x-svc-trace-id'))).decision).toMatchObject({ execution_status: 'ALLOW', rule: '' });

    const err = await thrown(sdk(a.operator).chat.completions.create(chat('gpt-4o')));
    expect(err).toBeInstanceOf(OpenAI.PermissionDeniedError);
    const e = err as InstanceType<typeof OpenAI.PermissionDeniedError>;
    expect(e.message).toBe('403 request blocked by policy: model "gpt-4o" matches no allowed name');
    expect(e.error).toMatchObject({ type: 'svc_policy_violation', code: 403, rule: a.policyId });
    expect(e.headers.get('x-svc-verdict')).toBe('DENIED');
    expect(e.headers.get('x-svc-rule')).toBe(a.policyId);
    expectRefusedEntry(await entryOf(a, e.headers.get('x-svc-trace-id')), a, 'gpt-4o');

    // A stream is refused before it starts; the Responses API and embeddings name their model the same way.
    expect(await thrown(sdk(a.operator).chat.completions.create({ ...chat('o3'), stream: true }))).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(await thrown(sdk(a.operator).responses.create({ model: 'gpt-4.1', input: 'hello' }))).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(await thrown(sdk(a.operator).embeddings.create({ model: 'text-embedding-ada-002', input: 'vector me' }))).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(openai.received).toHaveLength(1);
    openai.next({});
    expect((await sdk(a.operator).embeddings.create({ model: 'text-embedding-3-small', input: 'vector me' })).data).toHaveLength(1);
    expect(openai.received.map((r) => r.path)).toEqual(['/chat/completions', '/embeddings']);

    // The proxy's 403 body: the envelope, the verdict and the policy beside it.
    const raw = await call(t.url, 'POST', '/v1/proxy/chat/completions', { token: a.operator, headers: { 'x-svc-agent-id': AGENT }, body: chat('gpt-4o') });
    expect(raw.status).toBe(403);
    expect(raw.body).toMatchObject({ error: { type: 'svc_policy_violation', rule: a.policyId }, verdict: 'DENIED', policy: { id: a.policyId, type: 'model_access', action: 'DENY' } });
    expect(openai.received).toHaveLength(2);
  });

  it('case and full-width variants of a denied model are that model; of an allowed one, allowed (and sent as written)', async () => {
    const a = await tenantWith({ deny: ['gpt-4o'], action: 'DENY' });
    for (const model of ['GPT-4O', 'Gpt-4o', 'ｇｐｔ－４ｏ', 'ＧＰＴ-4o']) {
      const err = await thrown(sdk(a.operator).chat.completions.create(chat(model)));
      expect(err, model).toBeInstanceOf(OpenAI.PermissionDeniedError);
      expect((err as Error).message).toContain(JSON.stringify(model));
    }
    expect(openai.received).toHaveLength(0);
    openai.next({ content: 'fine' });
    await sdk(a.operator).chat.completions.create(chat('gpt-4o-mini'));

    const b = await tenantWith({ allow: ['gpt-4o-mini'], action: 'DENY' });
    openai.next({ content: 'fine' });
    await sdk(b.operator).chat.completions.create(chat('GPT-4o-Mini'));
    expect(openai.received.map((r) => r.body?.['model'])).toEqual(['gpt-4o-mini', 'GPT-4o-Mini']);
  });

  it('REQUIRE_APPROVAL: the call is held (403, the decision awaits review), as any held proxied call', async () => {
    const a = await tenantWith({ deny: ['o1*'], action: 'REQUIRE_APPROVAL' });
    const err = (await thrown(sdk(a.operator).chat.completions.create(chat('o1-preview')))) as InstanceType<typeof OpenAI.PermissionDeniedError>;
    expect(err).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(err.message).toMatch(/matches a denied name \(REQUIRE_APPROVAL: decision dec_\w+ awaits review\)/);
    expect((await entryOf(a, err.headers.get('x-svc-trace-id'))).decision).toMatchObject({ execution_status: 'REQUIRE_APPROVAL', rule: a.policyId });
    expect(openai.received).toHaveLength(0);
  });
});

describe('Azure OpenAI: the deployment in the path is the model Azure serves', () => {
  const azure = (token: string, deployment: string) =>
    new AzureOpenAI({ endpoint: `${t.url}/v1/proxy/azure`, apiKey: token, apiVersion: API_VERSION, deployment, maxRetries: 0, defaultHeaders: { 'x-svc-agent-id': AGENT, 'x-forwarded-api-key': 'azure-key' } });

  it('both the deployment and the body\'s model must pass; the deployment is recorded', async () => {
    const a = await tenantWith({ allow: ['gpt-4o-mini', 'mini-*'], action: 'DENY' });
    openai.next({ content: 'from azure' });
    const ok = await azure(a.operator, 'mini-prod').chat.completions.create(chat('gpt-4o-mini')).withResponse();
    expect(ok.data.choices[0]!.message.content).toBe('from azure');
    expect((await entryOf(a, ok.response.headers.get('x-svc-trace-id'))).payload).toMatchObject({ model: 'gpt-4o-mini', deployment: 'mini-prod' });

    // An allowed model in the body does not make a deployment of another model allowed, nor the reverse.
    const byDeployment = await thrown(azure(a.operator, 'gpt4o-prod').chat.completions.create(chat('gpt-4o-mini')));
    expect(byDeployment).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((byDeployment as Error).message).toBe('403 request blocked by policy: model "gpt4o-prod" matches no allowed name');
    const byModel = await thrown(azure(a.operator, 'mini-prod').embeddings.create({ model: 'text-embedding-3-large', input: 'x' }));
    expect(byModel).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(openai.received.map((r) => r.url)).toEqual([`/openai/deployments/mini-prod/chat/completions?api-version=${API_VERSION}`]);

    // A body naming no model: the deployment alone is judged.
    const path = (d: string) => `/v1/proxy/azure/openai/deployments/${d}/chat/completions?api-version=${API_VERSION}`;
    const headers = { 'api-key': a.operator, 'x-svc-agent-id': AGENT, 'x-forwarded-api-key': 'azure-key' };
    const body = { messages: [{ role: 'user', content: 'hi' }] };
    openai.next({ content: 'ok' });
    expect((await call(t.url, 'POST', path('mini-eu'), { headers, body })).status).toBe(200);
    const refused = await call(t.url, 'POST', path('big-eu'), { headers, body });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ verdict: 'DENIED', policy: { id: a.policyId, type: 'model_access' } });
    expect(openai.received).toHaveLength(2);
  });
});

describe('Anthropic messages', () => {
  const client = (token: string) => new Anthropic({ apiKey: token, baseURL: `${t.url}/v1/proxy/anthropic`, maxRetries: 0, defaultHeaders: { 'x-svc-agent-id': AGENT, 'x-forwarded-api-key': 'sk-ant' } });
  const ask = (model: string) => ({ model, max_tokens: 64, messages: [{ role: 'user' as const, content: 'hello' }] });

  it("an allowed model passes; another is Anthropic's permission_error with our block beside it, never sent", async () => {
    const a = await tenantWith({ allow: ['claude-3-5-haiku*'], action: 'DENY' });
    claude.next({ text: 'Hello.' });
    const ok = await client(a.operator).messages.create(ask('claude-3-5-haiku-latest'));
    expect(ok.content[0]).toMatchObject({ type: 'text', text: 'Hello.' });

    const err = await thrown(client(a.operator).messages.create(ask('claude-opus-4-1')));
    expect(err).toBeInstanceOf(Anthropic.PermissionDeniedError);
    const e = err as InstanceType<typeof Anthropic.PermissionDeniedError>;
    expect(e.apiMessage).toBe('request blocked by policy: model "claude-opus-4-1" matches no allowed name');
    expect(e.error).toMatchObject({ type: 'error', error: { type: 'permission_error', code: 403, rule: a.policyId }, verdict: 'DENIED', policy: { id: a.policyId, type: 'model_access', action: 'DENY' } });
    expectRefusedEntry(await entryOf(a, e.headers?.get('x-svc-trace-id')), a, 'claude-opus-4-1');
    // Counting tokens names a model too.
    expect(await thrown(client(a.operator).messages.countTokens({ model: 'CLAUDE-OPUS-4-1', messages: [{ role: 'user', content: 'hi' }] }))).toBeInstanceOf(Anthropic.PermissionDeniedError);
    expect(claude.received).toHaveLength(1);
  });
});

describe('Gemini: the model in the path', () => {
  const client = (token: string) => new GoogleGenAI({ apiKey: token, httpOptions: { baseUrl: `${t.url}/v1/proxy/gemini`, headers: { 'x-svc-agent-id': AGENT, 'x-forwarded-api-key': 'google-key' } } });

  it("an allowed model passes; another is Google's PERMISSION_DENIED naming the policy, never sent", async () => {
    const a = await tenantWith({ allow: ['gemini-2.0-flash*'], action: 'DENY' });
    gemini.next({ text: 'Olá.' });
    expect((await client(a.operator).models.generateContent({ model: 'gemini-2.0-flash', contents: 'hello' })).text).toBe('Olá.');

    const err = await thrown(client(a.operator).models.generateContent({ model: 'gemini-2.5-pro', contents: 'hello' }));
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(403);
    const body = (JSON.parse((err as ApiError).message) as { error: Record<string, unknown> }).error;
    expect(body).toMatchObject({ code: 403, status: 'PERMISSION_DENIED', message: 'request blocked by policy: model "gemini-2.5-pro" matches no allowed name', rule: a.policyId });
    expect(await thrown(client(a.operator).models.generateContentStream({ model: 'gemini-2.5-pro', contents: 'hello' }))).toBeInstanceOf(ApiError);
    expect(await thrown(client(a.operator).models.embedContent({ model: 'text-embedding-004', contents: 'vector me' }))).toBeInstanceOf(ApiError);
    expect(gemini.received).toHaveLength(1);
    // The SDK's error carries no headers: the newest decision is the refused stream's, the one before the call's.
    const [, , refused] = await decided(a, 4);
    expectRefusedEntry(refused!, a, 'gemini-2.5-pro');
  });
});

describe('routes: the name the agent asked for is judged, not what a route resolves it to', () => {
  it('an alias routed to a model the policy would refuse passes when the alias is allowed, and is refused when the alias is denied', async () => {
    const a = await tenantWith({ allow: ['fast', 'gpt-4o-mini'], action: 'DENY' });
    const put = await call(t.url, 'PUT', '/v1/routes', {
      token: a.admin,
      body: { targets: { main: { provider: 'openai', base_url: openai.url } }, models: { fast: { strategy: 'fallback', targets: [{ target: 'main', model: 'gpt-4o' }] } } },
    });
    expect(put.status, put.text).toBe(200);
    openai.next({ content: 'routed' });
    const ok = await sdk(a.operator).chat.completions.create(chat('fast')).withResponse();
    expect(ok.data.choices[0]!.message.content).toBe('routed');
    expect(ok.response.headers.get('x-svc-target')).toBe('main');
    expect(openai.received.map((r) => r.body?.['model'])).toEqual(['gpt-4o']);
    expect((await entryOf(a, ok.response.headers.get('x-svc-trace-id'))).payload).toMatchObject({ model: 'gpt-4o', route: { model: 'fast', target: 'main' } });
    // Asked for by its own name, the routed model is refused.
    expect(await thrown(sdk(a.operator).chat.completions.create(chat('gpt-4o')))).toBeInstanceOf(OpenAI.PermissionDeniedError);

    const edit = await call(t.url, 'PUT', `/v1/policies/${a.policyId}`, { token: a.admin, body: { rules: { deny: ['FAST'], action: 'DENY' } } });
    expect(edit.status, edit.text).toBe(200);
    const err = await thrown(sdk(a.operator).chat.completions.create(chat('Fast')));
    expect(err).toBeInstanceOf(OpenAI.PermissionDeniedError);
    const refused = await entryOf(a, (err as InstanceType<typeof OpenAI.PermissionDeniedError>).headers.get('x-svc-trace-id'));
    expectRefusedEntry(refused, a, 'Fast');
    // Refused before the router: no attempt was made, and the entry has no route.
    expect(refused.payload['route']).toBeUndefined();
    expect(openai.received).toHaveLength(1);
  });
});

describe('a virtual key: a token bound to its agent, in a tenant holding its agents to some models', () => {
  it('the bound token acts only as its agent, and its calls are held to the allowed models', async () => {
    const a = await tenantWith({ allow: ['gpt-4o-mini'], action: 'DENY' });
    const issued = await call(t.authUrl, 'POST', '/token', { token: a.admin, body: { name: 'support bot', role: 'operator', agent_id: 'support-bot' } });
    expect(issued.status, issued.text).toBe(200);
    const key = issued.body.token as string;
    // No x-svc-agent-id: the call is the bound agent's.
    const err = (await thrown(sdk(key, {}).chat.completions.create(chat('gpt-4o')))) as InstanceType<typeof OpenAI.PermissionDeniedError>;
    expect(err).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((await entryOf(a, err.headers.get('x-svc-trace-id'))).metadata['agent_id']).toBe('support-bot');
    const other = (await thrown(sdk(key, { 'x-svc-agent-id': 'another-bot' }).chat.completions.create(chat('gpt-4o-mini')))) as InstanceType<typeof OpenAI.PermissionDeniedError>;
    expect(other).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(other.error).toMatchObject({ rule: 'agent_binding' });
    openai.next({ content: 'ok' });
    await sdk(key, {}).chat.completions.create(chat('gpt-4o-mini'));
    expect(openai.received).toHaveLength(1);
  });
});

describe('validation', () => {
  it('bad rules are refused with 400 naming the field, on create and on update, and nothing changes', async () => {
    const a = await tenantWith({ deny: ['gpt-4o'], action: 'DENY' });
    const cases: [object, RegExp][] = [
      [{ action: 'DENY' }, /rules: .*"allow" or "deny"/],
      [{ allow: [], action: 'DENY' }, /rules\.allow:/],
      [{ deny: [''], action: 'DENY' }, /rules\.deny\.0:/],
      [{ deny: ['m'.repeat(201)], action: 'DENY' }, /rules\.deny\.0:/],
      [{ allow: Array.from({ length: 101 }, (_, i) => `m${i}`), action: 'DENY' }, /rules\.allow:/],
      [{ deny: [42], action: 'DENY' }, /rules\.deny\.0:/],
      [{ deny: ['gpt-4o'], action: 'FLAG' }, /rules\.action: must be one of DENY, REQUIRE_APPROVAL/],
      [{ deny: ['gpt-4o'] }, /rules: missing required field "action"/],
      [{ deny: ['gpt-4o'], models: ['x'], action: 'DENY' }, /rules: unknown field "models"/],
    ];
    const before = await call(t.url, 'GET', '/v1/policies', { token: a.admin });
    for (const [rules, message] of cases) {
      const created = await call(t.url, 'POST', '/v1/policies', { token: a.admin, body: { name: 'bad', type: 'model_access', risk: 10, rules } });
      expect(expectEnvelope(created, 400, 'invalid_request').message, JSON.stringify(rules)).toMatch(message);
      const updated = await call(t.url, 'PUT', `/v1/policies/${a.policyId}`, { token: a.admin, body: { rules } });
      expect(expectEnvelope(updated, 400, 'invalid_request').message, JSON.stringify(rules)).toMatch(message);
    }
    expect((await call(t.url, 'GET', '/v1/policies', { token: a.admin })).body).toEqual(before.body);
  });
});

describe('dry run', () => {
  it('judges a model_access candidate on the recorded proxied calls by the model each asked for; decisions name none', async () => {
    const a = await tenantWith(null);
    const put = await call(t.url, 'PUT', '/v1/routes', {
      token: a.admin,
      body: { targets: { main: { provider: 'openai', base_url: openai.url } }, models: { fast: { strategy: 'fallback', targets: [{ target: 'main', model: 'gpt-4o-mini' }] } } },
    });
    expect(put.status, put.text).toBe(200);
    openai.next({ content: 'a' }, { content: 'b' }, { content: 'c' });
    const direct = await sdk(a.operator).chat.completions.create(chat('gpt-4o-mini')).withResponse();
    const routed = await sdk(a.operator).chat.completions.create(chat('fast')).withResponse();
    const azure = await call(t.url, 'POST', `/v1/proxy/azure/openai/deployments/big-eu/chat/completions?api-version=${API_VERSION}`, {
      headers: { 'api-key': a.operator, 'x-svc-agent-id': AGENT, 'x-forwarded-api-key': 'k' },
      body: chat('gpt-4o-mini'),
    });
    expect(azure.status, azure.text).toBe(200);
    claude.next({ text: 'd' });
    const anthropic = await new Anthropic({ apiKey: a.operator, baseURL: `${t.url}/v1/proxy/anthropic`, maxRetries: 0, defaultHeaders: { 'x-svc-agent-id': AGENT, 'x-forwarded-api-key': 'k' } }).messages
      .create({ model: 'claude-3-5-haiku-latest', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    const decision = await call(t.url, 'POST', '/v1/decide', { token: a.operator, body: { agent_id: AGENT, action: { type: 'tool_call', target: 'gpt-4o-mini' } } });
    await decided(a, 5);
    const head = (await call(t.url, 'GET', '/v1/events/verify', { token: a.admin })).body.head;

    const r = await call(t.url, 'POST', '/v1/policies/dry-run', { token: a.admin, body: { policy: { name: 'no mini', type: 'model_access', risk: 70, rules: { deny: ['GPT-4O-MINI', 'big-*'], action: 'DENY' } } } });
    expect(r.status, r.text).toBe(200);
    const byId = new Map<string, Record<string, unknown>>(r.body.actions.map((x: Record<string, unknown>) => [x['decision_id'], x]));
    expect(byId.get(direct.response.headers.get('x-svc-trace-id')!)).toMatchObject({ old_verdict: 'ALLOW', new_verdict: 'DENY', new_rule: 'no mini', changed: true, why: 'model "gpt-4o-mini" matches a denied name' });
    // Routed: judged by the alias asked for, not the model that answered (gpt-4o-mini, which the candidate denies).
    expect(byId.get(routed.response.headers.get('x-svc-trace-id')!)).toMatchObject({ new_verdict: 'ALLOW', changed: false, rejudged: true, why: 'model "fast" passes the candidate' });
    // Azure: the recorded deployment is judged beside the body's model.
    expect(byId.get(azure.headers['x-svc-trace-id']!)).toMatchObject({ new_verdict: 'DENY', changed: true });
    expect(byId.get(anthropic.response.headers.get('x-svc-trace-id')!)).toMatchObject({ new_verdict: 'ALLOW', changed: false, rejudged: true });
    expect(byId.get(decision.body.envelope.decision_id)).toMatchObject({ new_verdict: 'ALLOW', rejudged: true, why: 'no model was asked for: a model_access policy does not judge it' });
    expect(r.body.totals).toMatchObject({ actions: 5, rejudged: 5, changed: 2, changes: { 'ALLOW→DENY': 2 } });
    // Nothing was saved.
    expect((await call(t.url, 'GET', '/v1/events/verify', { token: a.admin })).body.head).toEqual(head);
    expect((await call(t.url, 'GET', '/v1/policies', { token: a.admin })).body.data).toEqual([]);
  });
});
