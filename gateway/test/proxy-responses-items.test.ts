import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { Client, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '@aduana/shared';
import { loadGatewayConfig, startGateway, type RunningGateway } from '../src/index.js';
import { call, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';
import { MockResponses } from './helpers/mock-responses.js';

// The items the provider keeps with each stored response (messages, reasoning, function calls), each under an id a
// later call may name as input, and the stored prompts a call may name: minted under the provider key the tenants share.
// The official openai SDK against the proxy, the sidecar's key going upstream (the agents forward none of their own).

const SHARED_KEY = 'sk-shared-by-every-tenant';
const MODEL = 'gpt-4.1';
type Input = OpenAI.Responses.ResponseInput;

let t: TestGateway;
let mock: MockResponses;
let a: Awaited<ReturnType<TestGateway['tenant']>>;
let b: Awaited<ReturnType<TestGateway['tenant']>>;

function client(token: string, ownKey?: string): OpenAI {
  const headers: Record<string, string> = { 'x-svc-agent-id': 'items-agent' };
  if (ownKey) headers['x-forwarded-authorization'] = `Bearer ${ownKey}`;
  return new OpenAI({ apiKey: token, baseURL: `${t.url}/v1/proxy`, maxRetries: 0, defaultHeaders: headers });
}

/** The error a call raised (null when it was answered). */
function failure(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => null,
    (e: unknown) => e,
  );
}

/** Asserts the SDK raised a 404 naming the field whose item is not the caller's. */
function expectNotYours(err: unknown, field: string): void {
  expect(err).toBeInstanceOf(OpenAI.NotFoundError);
  expect((err as InstanceType<typeof OpenAI.NotFoundError>).message).toContain(`${field}: no item with this id was made through this gateway by your tenant`);
}

/** Every shape of `input` that names an item by id: a reference (typed or not), and output items passed back. */
function namings(ids: { rs: string; msg: string; fc: string; callId: string }): [string, Input][] {
  return [
    ['input[0]', [{ type: 'item_reference', id: ids.msg }]],
    ['input[0]', [{ id: ids.rs } as OpenAI.Responses.ResponseInputItem.ItemReference]],
    ['input[0]', [{ type: 'reasoning', id: ids.rs, summary: [] }]],
    [
      'input[1]',
      [
        { role: 'user', content: 'go on' },
        { type: 'message', role: 'assistant', id: ids.msg, status: 'completed', content: [{ type: 'output_text', text: 'hello', annotations: [] }] },
      ],
    ],
    [
      'input[0]',
      [
        { type: 'function_call', id: ids.fc, call_id: ids.callId, name: 'lookup', arguments: '{}' },
        { type: 'function_call_output', call_id: ids.callId, output: 'found' },
      ],
    ],
  ];
}

beforeAll(async () => {
  mock = await new MockResponses().start();
  t = await startTestGateway({ upstreamBaseUrl: mock.baseUrl, upstreamApiKey: SHARED_KEY, openaiPrompts: JSON.stringify({ 'items-a': ['pmpt_a_1'] }) });
  a = await t.tenant('items-a');
  b = await t.tenant('items-b');
});
afterAll(async () => {
  await t?.close();
  await mock?.close();
});
beforeEach(() => mock.reset());

describe("a response's items are named again only by the tenant whose call made them", () => {
  it("another tenant naming a whole answer's message, reasoning or function call by id gets 404, the provider unasked; the maker's calls go through", async () => {
    mock.next({ summary: ['thinking it over'], text: 'hello', functionCalls: [{ name: 'lookup', arguments: '{}' }] });
    const made = await client(a.operator).responses.create({ model: MODEL, input: 'hi' });
    const [rs, msg, fc] = made.output as [OpenAI.Responses.ResponseReasoningItem, OpenAI.Responses.ResponseOutputMessage, OpenAI.Responses.ResponseFunctionToolCall];
    const ids = { rs: rs.id, msg: msg.id, fc: fc.id!, callId: fc.call_id };
    expect(mock.received).toHaveLength(1);
    for (const [field, input] of namings(ids)) expectNotYours(await failure(client(b.operator).responses.create({ model: MODEL, input })), field);
    const approval = await failure(client(b.operator).responses.create({ model: MODEL, input: [{ type: 'mcp_approval_response', approval_request_id: msg.id, approve: true }] }));
    expectNotYours(approval, 'input[0].approval_request_id');
    expect(mock.received).toHaveLength(1);
    for (const [, input] of namings(ids)) {
      const next = await client(a.operator).responses.create({ model: MODEL, input });
      expect(next.status).toBe('completed');
      expect(mock.received.at(-1)!.body!['input']).toEqual(input);
    }
    expect(mock.received).toHaveLength(1 + namings(ids).length);
    // The provider was reached with the sidecar's key, the one the tenants share.
    expect(mock.received.at(-1)!.headers['authorization']).toBe(`Bearer ${SHARED_KEY}`);
  });

  it("a streamed answer's items are the maker's as each is added, also when the stream is cut after it", async () => {
    mock.next({ summary: ['plan'], chunks: ['Hi ', 'there'], functionCalls: [{ name: 'lookup', arguments: '{"q":1}' }] });
    const stream = await client(a.operator).responses.create({ model: MODEL, input: 'hi', stream: true });
    const added: string[] = [];
    for await (const ev of stream) if (ev.type === 'response.output_item.added') added.push(ev.item.id!);
    expect(added).toHaveLength(3);
    // Cut after the message was added (created, in_progress, output_item.added, content_part.added).
    mock.next({ chunks: ['never', ' seen'], dropAfterEvents: 4 });
    const cut = await client(a.operator).responses.create({ model: MODEL, input: 'again', stream: true });
    const broke = await failure(
      (async () => {
        for await (const ev of cut) if (ev.type === 'response.output_item.added') added.push(ev.item.id!);
      })(),
    );
    expect(broke).toBeInstanceOf(Error);
    expect(added).toHaveLength(4);
    const before = mock.received.length;
    for (const id of added) expectNotYours(await failure(client(b.operator).responses.create({ model: MODEL, input: [{ type: 'item_reference', id }] })), 'input[0]');
    expect(mock.received).toHaveLength(before);
    const refs: Input = added.map((id) => ({ type: 'item_reference', id }));
    const next = await client(a.operator).responses.create({ model: MODEL, input: refs });
    expect(next.status).toBe('completed');
    expect(mock.received.at(-1)!.body!['input']).toEqual(refs);
  });

  it('the input items a stored response lists are its maker\'s to name; an id nobody was handed is a 404', async () => {
    const made = await client(a.operator).responses.create({ model: MODEL, input: 'remember this question' });
    const listed = await client(a.operator).responses.inputItems.list(made.id);
    const id = listed.data[0]!.id;
    expect(id).toMatch(/^msg_in/);
    expectNotYours(await failure(client(b.operator).responses.create({ model: MODEL, input: [{ type: 'item_reference', id }] })), 'input[0]');
    expect((await client(a.operator).responses.create({ model: MODEL, input: [{ type: 'item_reference', id }] })).status).toBe('completed');
    expectNotYours(await failure(client(a.operator).responses.create({ model: MODEL, input: [{ type: 'item_reference', id: 'msg_made_elsewhere' }] })), 'input[0]');
    expect(mock.received.filter((r) => r.method === 'POST')).toHaveLength(2);
  });

  it("with the agent's own provider key the rule is the same, as for previous_response_id: the gateway cannot tell whose key it is", async () => {
    const made = await client(a.operator, 'sk-agent-a-own').responses.create({ model: MODEL, input: 'hi' });
    const msg = made.output[0]!.id!;
    expectNotYours(await failure(client(b.operator, 'sk-agent-b-own').responses.create({ model: MODEL, input: [{ type: 'item_reference', id: msg }] })), 'input[0]');
    expect(await failure(client(b.operator, 'sk-agent-b-own').responses.create({ model: MODEL, input: 'x', previous_response_id: made.id }))).toBeInstanceOf(OpenAI.NotFoundError);
    expect(mock.received).toHaveLength(1);
    expect((await client(a.operator, 'sk-agent-a-own').responses.create({ model: MODEL, input: [{ type: 'item_reference', id: msg }] })).status).toBe('completed');
    expect(mock.received.at(-1)!.headers['authorization']).toBe('Bearer sk-agent-a-own');
  });

  it('a non-string id, a reference or an approval naming none is a 400; an id longer than any minted a 404; nothing forwarded', async () => {
    const h = { 'x-svc-agent-id': 'bad' };
    const cases: [unknown, number, string][] = [
      [[{ type: 'item_reference' }], 400, 'input[0].id: required string'],
      [[{ role: 'user', content: 'x' }, { type: 'item_reference', id: 7 }], 400, 'input[1].id: must be a string'],
      [[{ type: 'mcp_approval_response', approve: true }], 400, 'input[0].approval_request_id: required string'],
      [[{ type: 'item_reference', id: `msg_${'x'.repeat(5000)}` }], 404, 'input[0]: no item'],
    ];
    for (const [input, status, message] of cases) {
      const r = await call(t.url, 'POST', '/v1/proxy/responses', { token: a.operator, headers: h, body: { model: MODEL, input } });
      expect(r.status, JSON.stringify(input).slice(0, 80)).toBe(status);
      expect(r.body.error.message).toContain(message);
      expect(r.headers['x-svc-verdict']).toBeDefined();
    }
    const long = await call(t.url, 'POST', '/v1/proxy/responses', { token: a.operator, headers: h, body: { model: MODEL, input: 'x', previous_response_id: `resp_${'x'.repeat(5000)}` } });
    expect(long.status).toBe(404);
    expect(mock.received).toHaveLength(0);
  });
});

describe('stored prompts: named only where OPENAI_PROMPTS lists them for the tenant', () => {
  it("the listed tenant's call goes through with the prompt; an unlisted id, or another tenant, is a 404 and the provider is not asked", async () => {
    const ok = await client(a.operator).responses.create({ model: MODEL, input: 'hi', prompt: { id: 'pmpt_a_1', version: '2', variables: { city: 'Recife' } } });
    expect(ok.status).toBe('completed');
    expect(mock.received[0]!.body!['prompt']).toEqual({ id: 'pmpt_a_1', version: '2', variables: { city: 'Recife' } });
    const refused = [
      await failure(client(a.operator).responses.create({ model: MODEL, input: 'hi', prompt: { id: 'pmpt_not_listed' } })),
      await failure(client(b.operator).responses.create({ model: MODEL, input: 'hi', prompt: { id: 'pmpt_a_1' } })),
    ];
    for (const err of refused) {
      expect(err).toBeInstanceOf(OpenAI.NotFoundError);
      expect((err as Error).message).toContain('prompt.id: no stored prompt with this id is allowed for your tenant');
    }
    for (const prompt of ['pmpt_a_1', {}, { id: 5 }]) {
      const r = await call(t.url, 'POST', '/v1/proxy/responses', { token: a.operator, headers: { 'x-svc-agent-id': 'bad' }, body: { model: MODEL, input: 'hi', prompt } });
      expect(r.status).toBe(400);
      expect(r.body.error.message).toContain('prompt.id: required string');
    }
    expect(mock.received).toHaveLength(1);
  });

  it('a malformed OPENAI_PROMPTS stops the start, naming the setting', () => {
    for (const bad of ['{', '["pmpt_a"]', '{"Not A Tenant": ["pmpt_a"]}', '{"acme": "pmpt_a"}', '{"acme": ["pmpt a"]}', '{"acme": [7]}']) {
      expect(() => loadGatewayConfig({ OPENAI_PROMPTS: bad }), bad).toThrow(/^OPENAI_PROMPTS/);
    }
    expect(loadGatewayConfig({ OPENAI_PROMPTS: '{"acme": ["pmpt_a", "pmpt_b"]}' }).openaiPrompts).toContain('pmpt_b');
    expect(loadGatewayConfig({}).openaiPrompts).toBe('');
  });
});

describe('item ids across request threads and restarts', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'aduana-items-'));
  const connections: Client[] = [];
  let gw: RunningGateway;
  let tokA = '';
  let tokB = '';

  async function start(): Promise<void> {
    const config = loadGatewayConfig({}, { dataDir, port: 0, authPort: 0, quietBootstrap: true, logLevel: 'silent', upstreamBaseUrl: mock.baseUrl, upstreamApiKey: SHARED_KEY, gatewayThreads: 2, agentPort: 0, ledgerWriter: 'thread' });
    gw = await startGateway({ config, logger: createLogger('test', { level: 'silent' }) });
    await gw.threadsReady();
  }

  /** The SDK on the agents' port, each call on a connection of its own: consecutive calls land on the two threads in turn. */
  function fresh(token: string): OpenAI {
    const perCall = ((input: string | URL, init?: Record<string, unknown>) => {
      const connection = new Client(new URL(String(input)).origin);
      connections.push(connection);
      return undiciFetch(input, { ...init, dispatcher: connection });
    }) as unknown as typeof fetch;
    return new OpenAI({ apiKey: token, baseURL: `${gw.agentsUrl!}/v1/proxy`, maxRetries: 0, defaultHeaders: { 'x-svc-agent-id': 'threads-agent' }, fetch: perCall });
  }

  beforeAll(async () => {
    await start();
    await gw.deps.tenants.create('threads-a', 'enterprise');
    await gw.deps.tenants.create('threads-b', 'enterprise');
    tokA = (await gw.deps.tokens.create({ tenantId: 'threads-a', role: 'operator', name: 'op', expiresInDays: 1 })).token;
    tokB = (await gw.deps.tokens.create({ tenantId: 'threads-b', role: 'operator', name: 'op', expiresInDays: 1 })).token;
  });
  afterAll(async () => {
    await Promise.all(connections.map((c) => c.close()));
    await gw?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("an item one thread handed out is named at once on the other; after a restart it is still the maker's alone", async () => {
    const made: string[] = [];
    for (let round = 0; round < 4; round++) {
      mock.next({ summary: ['why'], chunks: ['a', 'b'] });
      const stream = await fresh(tokA).responses.create({ model: MODEL, input: `round ${round}`, stream: true });
      const ids: string[] = [];
      for await (const ev of stream) if (ev.type === 'response.output_item.added') ids.push(ev.item.id!);
      expect(ids).toHaveLength(2);
      made.push(...ids);
      // The next connection is the other thread's.
      const next = await fresh(tokA).responses.create({ model: MODEL, input: ids.map((id) => ({ type: 'item_reference' as const, id })) });
      expect(next.status).toBe('completed');
      expectNotYours(await failure(fresh(tokB).responses.create({ model: MODEL, input: [{ type: 'item_reference', id: ids[1]! }] })), 'input[0]');
    }
    await gw.close();
    await start();
    const before = mock.received.length;
    expectNotYours(await failure(fresh(tokB).responses.create({ model: MODEL, input: [{ type: 'item_reference', id: made[0]! }] })), 'input[0]');
    expect(mock.received).toHaveLength(before);
    const after = await fresh(tokA).responses.create({ model: MODEL, input: made.map((id) => ({ type: 'item_reference' as const, id })) });
    expect(after.status).toBe('completed');
  });
});
