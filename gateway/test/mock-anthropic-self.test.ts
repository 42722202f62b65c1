import Anthropic, { PermissionDeniedError, type APIError } from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MockAnthropic } from './helpers/mock-anthropic.js';

// The mock Anthropic provider is what the proxy tests trust as "the real API": the official SDK, pointed straight at
// it (no gateway), must accept every answer it scripts.
describe('mock Anthropic Messages API, read by the official SDK', () => {
  let mock: MockAnthropic;
  let client: Anthropic;
  const ask = { model: 'claude-mock-1', max_tokens: 64, messages: [{ role: 'user' as const, content: 'Weather in Paris?' }] };

  beforeAll(async () => {
    mock = await new MockAnthropic().start();
    client = new Anthropic({ baseURL: mock.url, apiKey: 'sk-test', maxRetries: 0 });
  });
  afterAll(async () => {
    await mock?.close();
  });
  beforeEach(() => mock.reset());

  it('messages.create answers the scripted text and usage, and the mock records the request', async () => {
    mock.next({ text: 'It is sunny.', usage: { input_tokens: 21, output_tokens: 5 } });
    const m = await client.messages.create(ask);
    expect(m.type).toBe('message');
    expect(m.role).toBe('assistant');
    expect(m.model).toBe('claude-mock-1');
    expect(m.content).toEqual([{ type: 'text', text: 'It is sunny.' }]);
    expect(m.stop_reason).toBe('end_turn');
    expect(m.usage).toEqual({ input_tokens: 21, output_tokens: 5 });
    const [r] = mock.received;
    expect(r).toMatchObject({ method: 'POST', path: '/v1/messages', body: ask });
    // This SDK sends its apiKey as `authorization: Bearer`; others (and the API's docs) use `x-api-key`.
    expect(r!.headers['x-api-key'] ?? r!.headers['authorization']).toMatch(/^(Bearer )?sk-test$/);
    expect(r!.headers['anthropic-version']).toEqual(expect.any(String));
  });

  it('messages.create({stream: true}) yields the scripted text deltas in order, then the stop reason and output tokens', async () => {
    mock.next({ chunks: ['It ', 'is ', 'sunny', '.'], usage: { input_tokens: 21, output_tokens: 4 } });
    const events = await client.messages.create({ ...ask, stream: true });
    const texts: string[] = [];
    const types: string[] = [];
    let inputTokens = -1;
    let outputTokens = -1;
    for await (const e of events) {
      types.push(e.type);
      if (e.type === 'message_start') inputTokens = e.message.usage.input_tokens;
      if (e.type === 'content_block_delta' && e.delta.type === 'text_delta') texts.push(e.delta.text);
      if (e.type === 'message_delta') {
        expect(e.delta.stop_reason).toBe('end_turn');
        outputTokens = e.usage.output_tokens;
      }
    }
    expect(texts).toEqual(['It ', 'is ', 'sunny', '.']);
    // ping is on the wire but the SDK drops it
    expect(types).toEqual(['message_start', 'content_block_start', ...texts.map(() => 'content_block_delta'), 'content_block_stop', 'message_delta', 'message_stop']);
    expect([inputTokens, outputTokens]).toEqual([21, 4]);
    expect(mock.received[0]!.body).toMatchObject({ stream: true });
  });

  it('on the wire, each stream event is `event: NAME\\ndata: JSON` whose type is NAME, ping after the first block start', async () => {
    // The SDK reads only the data's type and drops ping: the framing a proxy parses is checked here.
    mock.next({ chunks: ['Hi'], toolUses: [{ name: 't', input: { a: 1 } }] });
    const r = await fetch(`${mock.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'sk-test', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ ...ask, stream: true }),
    });
    expect(r.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = (await r.text()).split('\n\n');
    expect(frames.pop()).toBe('');
    const names = frames.map((f) => {
      const m = /^event: (\w+)\ndata: (.+)$/.exec(f);
      expect(m, f).not.toBeNull();
      expect((JSON.parse(m![2]!) as { type: string }).type).toBe(m![1]);
      return m![1];
    });
    expect(names).toEqual([
      'message_start',
      'content_block_start', 'ping', 'content_block_delta', 'content_block_stop',
      'content_block_start', 'content_block_delta', 'content_block_stop',
      'message_delta', 'message_stop',
    ]);
  });

  it('messages.stream() assembles text and a tool_use whose input JSON was split across input_json_delta events', async () => {
    mock.next({
      chunks: ['Let me ', 'check.'],
      toolUses: [{ id: 'toolu_01', name: 'get_weather', inputChunks: ['{"ci', 'ty": "Par', 'is", "da', 'ys": 3}'] }],
      usage: { input_tokens: 30, output_tokens: 18 },
    });
    const partials: string[] = [];
    const s = client.messages.stream(ask).on('inputJson', (partial) => partials.push(partial));
    const m = await s.finalMessage();
    expect(partials).toEqual(['{"ci', 'ty": "Par', 'is", "da', 'ys": 3}']);
    expect(m.content).toEqual([
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris', days: 3 } },
    ]);
    expect(m.stop_reason).toBe('tool_use');
    expect(m.usage).toMatchObject({ input_tokens: 30, output_tokens: 18 });
  });

  it('count_tokens answers the scripted input tokens', async () => {
    mock.next({ usage: { input_tokens: 42, output_tokens: 0 } });
    const { messages, model } = ask;
    await expect(client.messages.countTokens({ model, messages })).resolves.toEqual({ input_tokens: 42 });
    expect(mock.received[0]).toMatchObject({ method: 'POST', path: '/v1/messages/count_tokens' });
  });

  it('a scripted 403 raises PermissionDeniedError with the Anthropic error body', async () => {
    mock.next({ status: 403, errorMessage: 'not for you' });
    const err: unknown = await client.messages.create(ask).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermissionDeniedError);
    const e = err as PermissionDeniedError;
    expect(e.status).toBe(403);
    expect(e.error).toMatchObject({ type: 'error', error: { type: 'permission_error', message: 'not for you' } });
  });

  it('a dropped connection and an error event each end the stream in an error after the events before them', async () => {
    // message_start, content_block_start, ping, then two deltas
    mock.next({ chunks: ['a', 'b', 'c', 'd'], dropAfterEvents: 5 }, { chunks: ['a', 'b', 'c'], streamError: { afterEvents: 4 } });
    for (const expected of [['a', 'b'], ['a']]) {
      const texts: string[] = [];
      const err: unknown = await (async () => {
        for await (const e of await client.messages.create({ ...ask, stream: true })) {
          if (e.type === 'content_block_delta' && e.delta.type === 'text_delta') texts.push(e.delta.text);
        }
      })().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      expect(texts).toEqual(expected);
      if (expected.length === 1) expect((err as APIError).error).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
    }
  });

  it('like the API, refuses a request without anthropic-version or max_tokens', async () => {
    const post = (headers: Record<string, string>, body: unknown) =>
      fetch(`${mock.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'sk-test', ...headers }, body: JSON.stringify(body) });
    const noVersion = await post({}, ask);
    expect(noVersion.status).toBe(400);
    expect(await noVersion.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    const { max_tokens: _omitted, ...noMax } = ask;
    const r = await post({ 'anthropic-version': '2023-06-01' }, noMax);
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ error: { message: 'max_tokens: Field required' } });
  });
});
