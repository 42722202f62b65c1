import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { createOpenAI } from '@ai-sdk/openai';
import { ChatOpenAI } from '@langchain/openai';
import { generateText, jsonSchema, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '@aduana/shared/local-servers';
import { call, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';
import { MockAnthropic } from './helpers/mock-anthropic.js';
import { MockGemini } from './helpers/mock-gemini.js';
import { entryWithPromptTokens } from './helpers/proxy-ledger.js';
import type { RouteSpec } from '../src/proxy/routing/route-spec.js';
import { PriceTable } from '../src/proxy/pricing/price-table.js';

// OpenAI chat completions served by Anthropic and Gemini (docs/translation.md): the official openai SDK, LangChain's
// ChatOpenAI and the Vercel AI SDK's .chat(), unchanged but for base URL and key, against mock providers that refuse,
// as the real ones do, any request their documented schema does not allow (provider-request-schemas.ts).

const CLAUDE_KEY = 'sk-ant-translation-secret-aaaaaaaa';
const GEMINI_KEY = 'AIza-translation-secret-bbbbbbbbbb';
const EMAIL_IN = 'ana.silva@example.com';
const EMAIL_OUT = 'joao.pereira@example.org';

let t: TestGateway;
let claude: MockAnthropic;
let gemini: MockGemini;
let tok: Awaited<ReturnType<TestGateway['tenant']>>;
let dead = '';
let promptTokens = 5000;
/** A distinct prompt token count per call, to find its ledger entry. */
const nextTokens = (): number => ++promptTokens;

const headers = { 'x-svc-agent-id': 'translated-agent' };
const openai = () => new OpenAI({ apiKey: tok.operator, baseURL: `${t.url}/v1/proxy`, maxRetries: 0, defaultHeaders: headers });

function routes(): RouteSpec {
  return {
    targets: {
      'openai-main': { provider: 'openai', base_url: dead, credential: 'openai-key' },
      'claude-main': { provider: 'anthropic', base_url: claude.url, credential: 'claude-key' },
      'gemini-main': { provider: 'gemini', base_url: gemini.url, credential: 'gemini-key' },
    },
    models: {
      'claude-sonnet-4-5': { strategy: 'fallback', targets: ['claude-main'] },
      'gemini-2.5-pro': { strategy: 'fallback', targets: ['gemini-main'] },
      'gpt-4o': { strategy: 'fallback', targets: ['openai-main', { target: 'claude-main', model: 'claude-sonnet-4-5' }, { target: 'gemini-main', model: 'gemini-2.5-pro' }] },
    },
    // Anthropic's 529 (overloaded) is retried when listed, as docs/translation.md says.
    retry: { attempts: 3, on: [429, 500, 502, 503, 504, 529, 'connect', 'timeout'], backoff_ms: { base: 1, max: 5 } },
  };
}

beforeAll(async () => {
  claude = await new MockAnthropic({ schema: true }).start();
  gemini = await new MockGemini({ schema: true }).start();
  dead = `http://127.0.0.1:${await freeLoopbackPort()}/v1`;
  t = await startTestGateway({ credentialsKey: 'ee'.repeat(32) });
  tok = await t.tenant('translated');
  for (const [name, secret] of [['openai-key', 'sk-openai-translation'], ['claude-key', CLAUDE_KEY], ['gemini-key', GEMINI_KEY]] as const) {
    expect((await call(t.url, 'PUT', `/v1/credentials/${name}`, { token: tok.admin, body: { secret } })).status).toBe(201);
  }
  const put = await call(t.url, 'PUT', '/v1/routes', { token: tok.admin, body: routes() });
  expect(put.status, put.text).toBe(200);
  const pii = await call(t.url, 'POST', '/v1/policies', { token: tok.admin, body: { name: 'pii', type: 'pii_redaction', risk: 20, rules: { action: 'REDACT', target: 'both' } } });
  expect(pii.status, pii.text).toBe(200);
});
afterAll(async () => {
  await t?.close();
  await claude?.close();
  await gemini?.close();
});
beforeEach(() => {
  claude.reset();
  gemini.reset();
});

/** The mock's 400s never reach a passing test unnoticed, but say why when one does. */
function lastBody(mock: MockAnthropic | MockGemini): Record<string, unknown> {
  const got = mock.received.at(-1);
  if (!got?.body) throw new Error('the provider received nothing');
  return got.body;
}

describe('the official openai SDK, served by Anthropic', () => {
  it('plain chat: the answer, its model and usage; PII redacted both ways; cost on the serving model; the attempt says it was translated', async () => {
    const tokens = nextTokens();
    claude.next({ text: `Write to ${EMAIL_OUT}.`, usage: { input_tokens: tokens, output_tokens: 9 } });
    const { data, response } = await openai()
      .chat.completions.create({ model: 'claude-sonnet-4-5', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: `I am ${EMAIL_IN}. Who do I write to?` }] })
      .withResponse();
    expect(data.object).toBe('chat.completion');
    expect(data.choices[0]!.message.content).toBe('Write to [REDACTED:EMAIL].');
    expect(data.choices[0]!.finish_reason).toBe('stop');
    expect(data.usage).toMatchObject({ prompt_tokens: tokens, completion_tokens: 9, total_tokens: tokens + 9 });
    expect(response.headers.get('x-svc-target')).toBe('claude-main');
    const sent = lastBody(claude);
    expect(claude.received.at(-1)!.path).toBe('/v1/messages');
    expect(claude.received.at(-1)!.headers['x-api-key']).toBe(CLAUDE_KEY);
    expect(JSON.stringify(sent)).not.toContain(EMAIL_IN);
    expect(sent['system']).toBeDefined();
    expect(sent['max_tokens']).toBeGreaterThan(0);
    const e = await entryWithPromptTokens(t.url, tok.admin, tokens);
    expect(e.payload).toMatchObject({ endpoint: 'chat', model: 'claude-sonnet-4-5' });
    expect(e.payload['cost_brl']).toBeCloseTo(new PriceTable().cost('claude-sonnet-4-5', tokens, 9).brl, 9);
    const route = e.payload['route'] as { attempts: Record<string, unknown>[] };
    expect(route.attempts.map(({ ms: _ms, ...a }) => a)).toEqual([{ credential: 'claude-key', model: 'claude-sonnet-4-5', provider: 'anthropic', status: 200, target: 'claude-main' }]);
  });

  it('a streamed answer: role first, the text in deltas with PII held back and redacted, finish_reason, usage when asked', async () => {
    const tokens = nextTokens();
    claude.next({ chunks: ['Contact joao.per', 'eira@exa', 'mple.org now'], usage: { input_tokens: tokens, output_tokens: 4 } });
    const stream = await openai().chat.completions.create({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'contact?' }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | null | undefined = null;
    const roles: string[] = [];
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      if (choice?.delta.role) roles.push(choice.delta.role);
      text += choice?.delta.content ?? '';
      finish = choice?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(roles).toEqual(['assistant']);
    expect(text).toBe('Contact [REDACTED:EMAIL] now');
    expect(finish).toBe('stop');
    expect(usage).toMatchObject({ prompt_tokens: tokens, completion_tokens: 4 });
    expect(lastBody(claude)['stream']).toBe(true);
  });

  it('a two-turn tool loop with two parallel tool calls, whole then streamed: ids kept, results sent back as the provider wants them', async () => {
    const tools: OpenAI.ChatCompletionTool[] = [
      { type: 'function', function: { name: 'weather', description: 'the weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
    ];
    claude.next({ toolUses: [{ id: 'toolu_01', name: 'weather', input: { city: 'Recife' } }, { id: 'toolu_02', name: 'weather', input: { city: 'Porto' } }] });
    const first = await openai().chat.completions.create({ model: 'claude-sonnet-4-5', tools, messages: [{ role: 'user', content: 'Weather in Recife and Porto?' }] });
    const calls = first.choices[0]!.message.tool_calls!;
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect(calls.map((c) => [c.id, c.type === 'function' ? c.function.name : '', c.type === 'function' ? JSON.parse(c.function.arguments) : null])).toEqual([
      ['toolu_01', 'weather', { city: 'Recife' }],
      ['toolu_02', 'weather', { city: 'Porto' }],
    ]);
    const sentTools = lastBody(claude)['tools'] as { name: string; input_schema: unknown }[];
    expect(sentTools[0]).toMatchObject({ name: 'weather', input_schema: { type: 'object' } });
    // Turn two, streamed: the results go back; the provider's schema check refuses them unless they answer the calls.
    claude.next({ chunks: ['Sunny in Recife, ', 'rain in Porto.'] });
    const stream = await openai().chat.completions.create({
      model: 'claude-sonnet-4-5',
      tools,
      stream: true,
      messages: [
        { role: 'user', content: 'Weather in Recife and Porto?' },
        first.choices[0]!.message,
        { role: 'tool', tool_call_id: 'toolu_01', content: '31 °C, sunny' },
        { role: 'tool', tool_call_id: 'toolu_02', content: '14 °C, rain' },
      ],
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Sunny in Recife, rain in Porto.');
    const turn = lastBody(claude)['messages'] as { role: string; content: { type: string; tool_use_id?: string }[] }[];
    expect(turn.at(-1)!.role).toBe('user');
    expect(turn.at(-1)!.content.map((b) => [b.type, b.tool_use_id])).toEqual([
      ['tool_result', 'toolu_01'],
      ['tool_result', 'toolu_02'],
    ]);
  });

  it('tool calls streamed: each call opens with its index, id and name, then its arguments in pieces', async () => {
    claude.next({ toolUses: [{ id: 'toolu_11', name: 'weather', input: { city: 'Recife' } }, { id: 'toolu_12', name: 'weather', input: { city: 'Porto' } }] });
    const stream = await openai().chat.completions.create({
      model: 'claude-sonnet-4-5',
      stream: true,
      tools: [{ type: 'function', function: { name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
      messages: [{ role: 'user', content: 'Weather in Recife and Porto?' }],
    });
    const byIndex = new Map<number, { id?: string; name?: string; args: string }>();
    let finish: string | null = null;
    for await (const chunk of stream) {
      for (const d of chunk.choices[0]?.delta.tool_calls ?? []) {
        const seen = byIndex.get(d.index) ?? { args: '' };
        if (d.id) {
          expect(seen.id).toBeUndefined();
          seen.id = d.id;
          seen.name = d.function?.name;
        }
        seen.args += d.function?.arguments ?? '';
        byIndex.set(d.index, seen);
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect([...byIndex.entries()].map(([i, c]) => [i, c.id, c.name, JSON.parse(c.args)])).toEqual([
      [0, 'toolu_11', 'weather', { city: 'Recife' }],
      [1, 'toolu_12', 'weather', { city: 'Porto' }],
    ]);
    expect(finish).toBe('tool_calls');
  });

  it('an image part, as a data URL and as an https URL, reaches the provider in its own image shape', async () => {
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==';
    claude.next({ text: 'a pixel' });
    await openai().chat.completions.create({
      model: 'claude-sonnet-4-5',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What are these?' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
            { type: 'image_url', image_url: { url: 'https://images.example.com/cat.png' } },
          ],
        },
      ],
    });
    const content = (lastBody(claude)['messages'] as { content: { type: string; source?: Record<string, unknown> }[] }[])[0]!.content;
    expect(content.filter((b) => b.type === 'image').map((b) => b.source)).toEqual([
      { type: 'base64', media_type: 'image/png', data: png },
      { type: 'url', url: 'https://images.example.com/cat.png' },
    ]);
  });

  it("JSON mode with a schema goes to Anthropic's structured output; a bare json_object, which it cannot guarantee, is refused", async () => {
    claude.next({ text: '{"city":"Recife"}' });
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
    const r = await openai().chat.completions.create({
      model: 'claude-sonnet-4-5',
      response_format: { type: 'json_schema', json_schema: { name: 'city', schema, strict: true } },
      messages: [{ role: 'user', content: 'A city.' }],
    });
    expect(JSON.parse(r.choices[0]!.message.content!)).toEqual({ city: 'Recife' });
    expect(lastBody(claude)['output_config']).toMatchObject({ format: { type: 'json_schema', schema } });
    const loose = await openai()
      .chat.completions.create({ model: 'claude-sonnet-4-5', response_format: { type: 'json_object' }, messages: [{ role: 'user', content: 'A city.' }] })
      .then(() => null, (e: unknown) => e);
    expect(loose).toBeInstanceOf(OpenAI.BadRequestError);
    expect((loose as Error).message).toMatch(/response_format.*claude-main/);
  });

  it("a provider's error is OpenAI's, so the SDK raises its own class; nothing the agent cannot express is dropped silently", async () => {
    // Retried while the route allows (1 + 3 attempts), then the last answer is relayed.
    const limited429 = { status: 429, errorMessage: 'Number of request tokens has exceeded your per-minute rate limit', headers: { 'retry-after': '0' } };
    claude.next(limited429, limited429, limited429, limited429);
    const limited = await openai()
      .chat.completions.create({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hi' }] })
      .then(() => null, (e: unknown) => e);
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    expect((limited as Error).message).toContain('per-minute rate limit');
    const many = await openai()
      .chat.completions.create({ model: 'claude-sonnet-4-5', n: 2, messages: [{ role: 'user', content: 'hi' }] })
      .then(() => null, (e: unknown) => e);
    expect(many).toBeInstanceOf(OpenAI.BadRequestError);
    expect((many as Error).message).toMatch(/\bn\b.*claude-main/);
    expect(claude.received).toHaveLength(4);
    // The refused call is in the ledger: refused, its one target tried once and found unable to express it.
    const recent = await call(t.url, 'GET', '/v1/events?limit=5&order=desc', { token: tok.admin });
    const refused = (recent.body.events as { payload: Record<string, unknown> }[]).find((e) => e.payload['outcome'] === 'refused');
    expect((refused?.payload['route'] as { attempts: Record<string, unknown>[] }).attempts.map(({ ms: _ms, ...a }) => a)).toEqual([
      { error: 'untranslatable', model: 'claude-sonnet-4-5', provider: 'anthropic', target: 'claude-main' },
    ]);
  });

  it('a stream broken midway ends the agent\'s stream with an error, and the call is recorded as cut', async () => {
    const tokens = nextTokens();
    claude.next({ chunks: ['one ', 'two ', 'three'], usage: { input_tokens: tokens, output_tokens: 3 }, dropAfterEvents: 5 });
    const stream = await openai().chat.completions.create({ model: 'claude-sonnet-4-5', stream: true, messages: [{ role: 'user', content: 'count' }] });
    let text = '';
    const err = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    })().then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect('one two three'.startsWith(text)).toBe(true);
    expect(text).not.toBe('one two three');
  });
});

describe('the official openai SDK, served by Gemini', () => {
  it('plain chat and JSON mode: the answer, usage on the serving model, the generation config Gemini takes', async () => {
    const tokens = nextTokens();
    gemini.next({ text: '{"city":"Recife"}', usage: { promptTokenCount: tokens, candidatesTokenCount: 6 } });
    const r = await openai().chat.completions.create({ model: 'gemini-2.5-pro', response_format: { type: 'json_object' }, temperature: 0.2, messages: [{ role: 'user', content: 'A city, as JSON.' }] });
    expect(JSON.parse(r.choices[0]!.message.content!)).toEqual({ city: 'Recife' });
    expect(r.usage).toMatchObject({ prompt_tokens: tokens, completion_tokens: 6 });
    expect(gemini.received.at(-1)!.path).toBe('/v1beta/models/gemini-2.5-pro:generateContent');
    expect(gemini.received.at(-1)!.headers['x-goog-api-key']).toBe(GEMINI_KEY);
    expect(lastBody(gemini)['generationConfig']).toMatchObject({ responseMimeType: 'application/json', temperature: 0.2 });
    const e = await entryWithPromptTokens(t.url, tok.admin, tokens);
    expect(e.payload).toMatchObject({ model: 'gemini-2.5-pro' });
  });

  it('a streamed answer with PII, and a two-turn tool loop with two parallel calls whose results go back by name', async () => {
    gemini.next({ chunks: ['Mail joao.per', 'eira@example.org'] });
    const stream = await openai().chat.completions.create({ model: 'gemini-2.5-pro', stream: true, messages: [{ role: 'user', content: `I am ${EMAIL_IN}` }] });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Mail [REDACTED:EMAIL]');
    expect(gemini.received.at(-1)!.path).toBe('/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse');
    expect(JSON.stringify(lastBody(gemini))).not.toContain(EMAIL_IN);

    const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } } }];
    gemini.next({ functionCalls: [{ name: 'weather', args: { city: 'Recife' } }, { name: 'weather', args: { city: 'Porto' } }] });
    const first = await openai().chat.completions.create({ model: 'gemini-2.5-pro', tools, messages: [{ role: 'user', content: 'Weather?' }] });
    const calls = first.choices[0]!.message.tool_calls!;
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect(calls).toHaveLength(2);
    expect(new Set(calls.map((c) => c.id)).size).toBe(2);
    gemini.next({ text: 'Sunny and rainy.' });
    const second = await openai().chat.completions.create({
      model: 'gemini-2.5-pro',
      tools,
      messages: [
        { role: 'user', content: 'Weather?' },
        first.choices[0]!.message,
        { role: 'tool', tool_call_id: calls[0]!.id, content: '{"temp":31}' },
        { role: 'tool', tool_call_id: calls[1]!.id, content: 'rain' },
      ],
    });
    expect(second.choices[0]!.message.content).toBe('Sunny and rainy.');
    const contents = lastBody(gemini)['contents'] as { role: string; parts: Record<string, { name?: string }>[] }[];
    expect(contents.at(-1)!.parts.map((p) => p['functionResponse']?.name)).toEqual(['weather', 'weather']);
  });

  it('an image part as a data URL goes inline; streamed tool calls arrive whole, each with its index, id and name', async () => {
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==';
    gemini.next({ functionCalls: [{ name: 'describe', args: { what: 'pixel' } }, { name: 'describe', args: { what: 'cat' } }] });
    const stream = await openai().chat.completions.create({
      model: 'gemini-2.5-pro',
      stream: true,
      tools: [{ type: 'function', function: { name: 'describe', parameters: { type: 'object', properties: { what: { type: 'string' } } } } }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Describe both' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } }] }],
    });
    const byIndex = new Map<number, { id?: string; name?: string; args: string }>();
    for await (const chunk of stream) {
      for (const d of chunk.choices[0]?.delta.tool_calls ?? []) {
        const seen = byIndex.get(d.index) ?? { args: '' };
        seen.id ??= d.id;
        seen.name ??= d.function?.name;
        seen.args += d.function?.arguments ?? '';
        byIndex.set(d.index, seen);
      }
    }
    expect([...byIndex.entries()].map(([i, c]) => [i, c.name, JSON.parse(c.args)])).toEqual([
      [0, 'describe', { what: 'pixel' }],
      [1, 'describe', { what: 'cat' }],
    ]);
    expect(new Set([...byIndex.values()].map((c) => c.id)).size).toBe(2);
    const parts = (lastBody(gemini)['contents'] as { parts: Record<string, unknown>[] }[])[0]!.parts;
    expect(parts[1]).toEqual({ inlineData: { mimeType: 'image/png', data: png } });
  });

  it("Gemini's 400 for a bad key reaches the SDK as an AuthenticationError", async () => {
    // Google's answer to a bad key, as its API sends it: a 400 whose ErrorInfo says API_KEY_INVALID.
    gemini.next({
      status: 400,
      json: {
        error: {
          code: 400,
          message: 'API key not valid. Please pass a valid API key.',
          status: 'INVALID_ARGUMENT',
          details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com', metadata: { service: 'generativelanguage.googleapis.com' } }],
        },
      },
    });
    const err = await openai()
      .chat.completions.create({ model: 'gemini-2.5-pro', messages: [{ role: 'user', content: 'hi' }] })
      .then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
  });
});

describe('a fallback route across providers', () => {
  it('gpt-4o → claude → gemini serves the agent through an OpenAI outage, streams included, every attempt in the ledger', async () => {
    const tokens = nextTokens();
    claude.next({ status: 529, errorType: 'overloaded_error', errorMessage: 'Overloaded' });
    gemini.next({ chunks: ['served ', 'by gemini'], usage: { promptTokenCount: tokens, candidatesTokenCount: 3 } });
    const { data: stream, response } = await openai()
      .chat.completions.create({ model: 'gpt-4o', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'hello' }] })
      .withResponse();
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('served by gemini');
    expect(response.headers.get('x-svc-target')).toBe('gemini-main');
    const e = await entryWithPromptTokens(t.url, tok.admin, tokens);
    expect(e.payload).toMatchObject({ model: 'gemini-2.5-pro' });
    const attempts = (e.payload['route'] as { attempts: Record<string, unknown>[] }).attempts.map(({ ms: _ms, ...a }) => a);
    expect(attempts).toEqual([
      { credential: 'openai-key', error: 'refused', model: 'gpt-4o', target: 'openai-main' },
      { credential: 'claude-key', model: 'claude-sonnet-4-5', provider: 'anthropic', status: 529, target: 'claude-main' },
      { credential: 'gemini-key', model: 'gemini-2.5-pro', provider: 'gemini', status: 200, target: 'gemini-main' },
    ]);
  });
});

describe('agent libraries on chat completions, served by each provider', () => {
  const answer = (provider: 'anthropic' | 'gemini', text: string, chunks?: string[]) =>
    provider === 'anthropic' ? claude.next(chunks ? { chunks } : { text }) : gemini.next(chunks ? { chunks } : { text });
  for (const [provider, model] of [
    ['anthropic', 'claude-sonnet-4-5'],
    ['gemini', 'gemini-2.5-pro'],
  ] as const) {
    it(`LangChain's ChatOpenAI, whole and streamed (${provider})`, async () => {
      const lc = new ChatOpenAI({ model, apiKey: tok.operator, maxRetries: 0, configuration: { baseURL: `${t.url}/v1/proxy`, defaultHeaders: headers } });
      answer(provider, `Reach ${EMAIL_OUT}`);
      const whole = await lc.invoke([{ role: 'user', content: 'contact?' }]);
      expect(whole.content).toBe('Reach [REDACTED:EMAIL]');
      answer(provider, '', ['stream', 'ed']);
      let streamed = '';
      for await (const c of await lc.stream('count')) streamed += String(c.content);
      expect(streamed).toBe('streamed');
    });

    it(`the Vercel AI SDK's .chat(): text, a stream and a tool call (${provider})`, async () => {
      const vercel = createOpenAI({ baseURL: `${t.url}/v1/proxy`, apiKey: tok.operator, headers });
      answer(provider, `hello from ${provider}`);
      expect((await generateText({ model: vercel.chat(model), prompt: 'hi', maxRetries: 0 })).text).toBe(`hello from ${provider}`);
      answer(provider, '', ['a ', 'b ', 'c']);
      const s = streamText({ model: vercel.chat(model), prompt: 'abc', maxRetries: 0 });
      let streamed = '';
      for await (const d of s.textStream) streamed += d;
      expect(streamed).toBe('a b c');
      if (provider === 'anthropic') claude.next({ toolUses: [{ id: 'toolu_v1', name: 'mail', input: { to: 'bo@example.com' } }] });
      else gemini.next({ functionCalls: [{ name: 'mail', args: { to: 'bo@example.com' } }] });
      const called = await generateText({
        model: vercel.chat(model),
        prompt: 'mail bo',
        maxRetries: 0,
        tools: { mail: tool({ description: 'send mail', inputSchema: jsonSchema<{ to: string }>({ type: 'object', properties: { to: { type: 'string' } }, required: ['to'] }) }) },
      });
      expect(called.toolCalls[0]).toMatchObject({ toolName: 'mail', input: { to: '[REDACTED:EMAIL]' } });
    });
  }
});

describe('the mocks themselves', () => {
  it("take what the providers' own SDKs send: their schema checks are not stricter than the providers", async () => {
    const a = new Anthropic({ apiKey: 'k', baseURL: claude.url, maxRetries: 0 });
    claude.next({ toolUses: [{ id: 'toolu_x', name: 'f', input: {} }] }, { text: 'ok' });
    const first = await a.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 10, system: 's', tools: [{ name: 'f', input_schema: { type: 'object' } }], messages: [{ role: 'user', content: 'hi' }] });
    await a.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 10,
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_x', content: 'done' }] },
      ],
    });
    const g = new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: gemini.url } });
    gemini.next({ functionCalls: [{ name: 'f', args: {} }] }, { text: 'ok' });
    await g.models.generateContent({ model: 'gemini-2.5-pro', contents: 'hi', config: { tools: [{ functionDeclarations: [{ name: 'f', parameters: { type: 'OBJECT' as never, properties: {} } }] }] } });
    const ok = await g.models.generateContent({
      model: 'gemini-2.5-pro',
      contents: [
        { role: 'user', parts: [{ text: 'hi' }] },
        { role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'f', response: { ok: true } } }] },
      ],
    });
    expect(ok.text).toBe('ok');
    // And they refuse what the providers refuse.
    const bad = await a.messages.create({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_none', content: 'x' }] }] }).then(() => null, (e: unknown) => e);
    expect(bad).toBeInstanceOf(Anthropic.BadRequestError);
  });
});
