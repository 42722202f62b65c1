import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';
import { MockAnthropic } from './helpers/mock-anthropic.js';
import { MockGemini } from './helpers/mock-gemini.js';
import { MockResponses } from './helpers/mock-responses.js';
import { MockUpstream } from './helpers/mock-upstream.js';

// A tool_access policy judges the tool calls an LLM answer names: a denied one refuses the answer as an output filter
// does (403 whole, an in-band error event in a stream), so the call never reaches the agent. The official SDKs, against
// mocks of each provider on loopback.

let t: TestGateway;
let responsesGw: TestGateway;
let openai: MockUpstream;
let claude: MockAnthropic;
let gemini: MockGemini;
let responses: MockResponses;
let n = 0;

interface Tenant {
  id: string;
  operator: string;
  viewer: string;
  policyId: string;
}

/** A fresh tenant whose only policy denies `drop_*` tools. */
async function tenantDenyingDrops(gw: TestGateway): Promise<Tenant> {
  const id = `tools-${++n}`;
  const tok = await gw.tenant(id);
  const p = await call(gw.url, 'POST', '/v1/policies', { token: tok.admin, body: { name: 'no drops', type: 'tool_access', risk: 80, rules: { deny: ['drop_*'], action: 'DENY' } } });
  if (p.status !== 200) throw new Error(`policy rejected: ${p.text}`);
  return { id, operator: tok.operator, viewer: tok.viewer, policyId: p.body.id as string };
}

/** The call's ledger entry (committed just after the answer: polled for) shows the verdict and the rule. */
async function expectRecorded(gw: TestGateway, tenant: Tenant, decisionId: string | null | undefined, verdict: string, rule: string): Promise<void> {
  expect(decisionId).toMatch(/^dec_/);
  const entry = () => gw.gw.deps.ledger.list(tenant.id, { limit: 20 }).events.find((e) => e.metadata['decision_id'] === decisionId);
  await expect.poll(entry, { timeout: 5000 }).toBeDefined();
  expect(entry()!.decision).toMatchObject({ execution_status: verdict, rule });
  if (rule) expect(entry()!.decision!.triggered).toContainEqual(expect.objectContaining({ policy_id: rule, type: 'tool_access', action: 'DENY' }));
}

beforeAll(async () => {
  [openai, claude, gemini, responses] = await Promise.all([new MockUpstream().start(), new MockAnthropic().start(), new MockGemini().start(), new MockResponses().start()]);
  t = await startTestGateway({ upstreamBaseUrl: openai.url, upstreamAnthropicBaseUrl: claude.url, upstreamGeminiBaseUrl: gemini.url });
  // The Responses mock is an OpenAI base URL of its own.
  responsesGw = await startTestGateway({ upstreamBaseUrl: responses.baseUrl });
});
afterAll(async () => {
  await t?.close();
  await responsesGw?.close();
  await Promise.all([openai?.close(), claude?.close(), gemini?.close(), responses?.close()]);
});
beforeEach(() => {
  openai.reset();
  claude.reset();
  gemini.reset();
  responses.reset();
});

const sdk = (gw: TestGateway, token: string) =>
  new OpenAI({ apiKey: token, baseURL: `${gw.url}/v1/proxy`, maxRetries: 0, defaultHeaders: { 'x-svc-agent-id': 'tool-agent', 'x-forwarded-authorization': 'Bearer sk-provider' } });
const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'tidy the database' }] };

describe('OpenAI chat completions', () => {
  it('a whole answer calling a denied tool is a 403 naming the policy; an allowed tool passes', async () => {
    const a = await tenantDenyingDrops(t);
    openai.next({ toolCalls: [{ name: 'read_table', arguments: '{"t":"users"}' }] });
    const ok = await sdk(t, a.operator).chat.completions.create(chat).withResponse();
    expect(ok.data.choices[0]!.message.tool_calls![0]).toMatchObject({ type: 'function', function: { name: 'read_table' } });
    expect(ok.response.headers.get('x-svc-verdict')).toBe('ALLOWED');
    await expectRecorded(t, a, ok.response.headers.get('x-svc-trace-id'), 'ALLOW', '');

    openai.next({ toolCalls: [{ name: 'read_table', arguments: '{}' }, { name: 'drop_table', arguments: '{"t":"users"}' }] });
    const err = await sdk(t, a.operator).chat.completions.create(chat).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.PermissionDeniedError);
    const e = err as InstanceType<typeof OpenAI.PermissionDeniedError>;
    expect(e.error).toMatchObject({ type: 'svc_policy_violation', rule: a.policyId });
    expect(e.headers?.get('x-svc-verdict')).toBe('DENIED');
    expect(e.headers?.get('x-svc-rule')).toBe(a.policyId);
    expect(JSON.stringify(e.error)).not.toContain('{"t":"users"}');
    await expectRecorded(t, a, e.headers?.get('x-svc-trace-id'), 'DENY', a.policyId);

    openai.next({ toolCalls: [{ name: 'drop_table', arguments: '{}' }] });
    const raw = await call(t.url, 'POST', '/v1/proxy/chat/completions', { token: a.operator, headers: { 'x-svc-agent-id': 'tool-agent' }, body: chat });
    expect(raw.status).toBe(403);
    expect(raw.body).toMatchObject({ verdict: 'DENIED', policy: { id: a.policyId, type: 'tool_access', action: 'DENY' } });
    expect(raw.text).not.toContain('call_0');
  });

  it('a stream naming a denied tool is cut with an error event before the tool call reaches the client; an allowed one streams', async () => {
    const a = await tenantDenyingDrops(t);
    openai.next({ content: '', toolCalls: [{ name: 'read_table', arguments: '', chunks: ['{"t":', '"users"}'] }] });
    const names: string[] = [];
    let args = '';
    for await (const chunk of await sdk(t, a.operator).chat.completions.create({ ...chat, stream: true })) {
      for (const tc of chunk.choices[0]?.delta?.tool_calls ?? []) {
        if (tc.function?.name) names.push(tc.function.name);
        args += tc.function?.arguments ?? '';
      }
    }
    expect(names).toEqual(['read_table']);
    expect(args).toBe('{"t":"users"}');

    openai.next({ chunks: ['Dropping ', 'it now.'], toolCalls: [{ name: 'drop_table', arguments: '', chunks: ['{"t":', '"users"}'] }] });
    const { data: stream, response } = await sdk(t, a.operator).chat.completions.create({ ...chat, stream: true }).withResponse();
    let text = '';
    const seen: string[] = [];
    const streamErr = await (async () => {
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? '';
        for (const tc of chunk.choices[0]?.delta?.tool_calls ?? []) seen.push(tc.function?.name ?? '', tc.function?.arguments ?? '');
      }
    })().then(() => null, (e: unknown) => e);
    expect(streamErr).toBeInstanceOf(OpenAI.APIError);
    expect((streamErr as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ type: 'svc_policy_violation', rule: a.policyId });
    // The text before the call was relayed; the call itself, name or arguments, never was.
    expect(text).toBe('Dropping it now.');
    expect(seen).toEqual([]);
    await expectRecorded(t, a, response.headers.get('x-svc-trace-id'), 'DENY', a.policyId);
  });
});

describe('Anthropic messages', () => {
  const client = (token: string) =>
    new Anthropic({ apiKey: token, baseURL: `${t.url}/v1/proxy/anthropic`, maxRetries: 0, defaultHeaders: { 'x-svc-agent-id': 'tool-agent', 'x-forwarded-api-key': 'sk-ant' } });
  const ask = { model: 'claude-sonnet-4-20250514', max_tokens: 256, messages: [{ role: 'user' as const, content: 'tidy the database' }] };

  it('a tool_use block of a denied tool refuses the whole answer; an allowed one passes', async () => {
    const a = await tenantDenyingDrops(t);
    claude.next({ text: 'Reading.', toolUses: [{ name: 'read_table', input: { t: 'users' } }] });
    const ok = await client(a.operator).messages.create(ask).withResponse();
    expect(ok.data.content[1]).toMatchObject({ type: 'tool_use', name: 'read_table', input: { t: 'users' } });
    await expectRecorded(t, a, ok.response.headers.get('x-svc-trace-id'), 'ALLOW', '');

    claude.next({ text: 'Dropping.', toolUses: [{ name: 'drop_table', input: { t: 'users' } }] });
    const err = await client(a.operator).messages.create(ask).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.PermissionDeniedError);
    const e = err as InstanceType<typeof Anthropic.PermissionDeniedError>;
    expect(e.status).toBe(403);
    expect(e.headers?.get('x-svc-rule')).toBe(a.policyId);
    await expectRecorded(t, a, e.headers?.get('x-svc-trace-id'), 'DENY', a.policyId);
  });

  it('a stream is cut with an error event at the content_block_start of a denied tool_use', async () => {
    const a = await tenantDenyingDrops(t);
    claude.next({ text: 'Dropping.', toolUses: [{ name: 'drop_table', input: { t: 'users' } }] });
    const seen: string[] = [];
    const err = await (async () => {
      for await (const ev of await client(a.operator).messages.create({ ...ask, stream: true })) {
        if (ev.type === 'content_block_start') seen.push(ev.content_block.type);
      }
    })().then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect(seen).toEqual(['text']);
  });
});

describe('OpenAI Responses', () => {
  it('a function_call item of a denied tool refuses the whole answer; an allowed one passes', async () => {
    const a = await tenantDenyingDrops(responsesGw);
    responses.next({ functionCalls: [{ name: 'read_table', arguments: '{"t":"users"}' }] });
    const ok = await sdk(responsesGw, a.operator).responses.create({ model: 'gpt-4.1', input: 'tidy the database' }).withResponse();
    expect(ok.data.output[0]).toMatchObject({ type: 'function_call', name: 'read_table' });
    await expectRecorded(responsesGw, a, ok.response.headers.get('x-svc-trace-id'), 'ALLOW', '');

    responses.next({ text: 'Dropping.', functionCalls: [{ name: 'drop_table', arguments: '{"t":"users"}' }] });
    const err = await sdk(responsesGw, a.operator).responses.create({ model: 'gpt-4.1', input: 'tidy the database' }).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.PermissionDeniedError);
    const e = err as InstanceType<typeof OpenAI.PermissionDeniedError>;
    expect(e.error).toMatchObject({ type: 'svc_policy_violation', rule: a.policyId });
    await expectRecorded(responsesGw, a, e.headers?.get('x-svc-trace-id'), 'DENY', a.policyId);
  });

  it('a stream is cut with an error event at the output_item.added of a denied function_call', async () => {
    const a = await tenantDenyingDrops(responsesGw);
    responses.next({ text: 'Dropping.', functionCalls: [{ name: 'drop_table', arguments: '{"t":"users"}' }] });
    const types: string[] = [];
    const err = await (async () => {
      const stream = await sdk(responsesGw, a.operator).responses.create({ model: 'gpt-4.1', input: 'tidy the database', stream: true });
      for await (const ev of stream) types.push(ev.type === 'response.output_item.added' ? `added:${ev.item.type}` : ev.type);
    })().then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(types).toContain('added:message');
    expect(types).not.toContain('added:function_call');
    expect(types).not.toContain('response.function_call_arguments.delta');
  });
});

describe('Gemini', () => {
  const client = (token: string) =>
    new GoogleGenAI({ apiKey: token, httpOptions: { baseUrl: `${t.url}/v1/proxy/gemini`, headers: { 'x-svc-agent-id': 'tool-agent', 'x-forwarded-api-key': 'google-key' } } });

  it('a functionCall part of a denied tool refuses the whole answer; an allowed one passes', async () => {
    const a = await tenantDenyingDrops(t);
    gemini.next({ functionCalls: [{ name: 'read_table', args: { t: 'users' } }] });
    const ok = await client(a.operator).models.generateContent({ model: 'gemini-2.0-flash', contents: 'tidy the database' });
    expect(ok.functionCalls).toEqual([expect.objectContaining({ name: 'read_table', args: { t: 'users' } })]);
    const allowed = gemini.received.length;
    expect(allowed).toBe(1);

    gemini.next({ functionCalls: [{ name: 'drop_table', args: { t: 'users' } }] });
    const err = await client(a.operator).models.generateContent({ model: 'gemini-2.0-flash', contents: 'tidy the database' }).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(403);
    expect((err as ApiError).message).toContain('blocked by policy');
    // The SDK's error carries no headers: the decision is found through the tenant's latest entries.
    // (The policy's creation is chained too, as an admin action without a decision.)
    const calls = () => t.gw.deps.ledger.list(a.id, { limit: 5 }).events.filter((e) => e.decision !== null);
    await expect.poll(() => calls().length, { timeout: 5000 }).toBe(2);
    const [denied, allowedEntry] = calls().sort((x, y) => y.seq - x.seq);
    expect(allowedEntry!.decision).toMatchObject({ execution_status: 'ALLOW', rule: '' });
    expect(denied!.decision).toMatchObject({ execution_status: 'DENY', rule: a.policyId });
  });

  it('a stream is cut with an error at the chunk carrying a denied functionCall', async () => {
    const a = await tenantDenyingDrops(t);
    gemini.next({ chunks: ['Dropping ', 'it.'], functionCalls: [{ name: 'drop_table', args: { t: 'users' } }] });
    let text = '';
    const calls: string[] = [];
    const err = await (async () => {
      for await (const chunk of await client(a.operator).models.generateContentStream({ model: 'gemini-2.0-flash', contents: 'tidy the database' })) {
        text += chunk.text ?? '';
        for (const fc of chunk.functionCalls ?? []) calls.push(fc.name ?? '');
      }
    })().then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(text).toBe('Dropping it.');
    expect(calls).toEqual([]);
  });
});
