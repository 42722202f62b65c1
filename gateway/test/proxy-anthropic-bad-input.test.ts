import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';
import { MockAnthropic } from './helpers/mock-anthropic.js';
import { expectAbortedStreamRecorded, expectNothingRecordedBefore, expectRefused, FIVE_MB, sseEvents } from './helpers/proxy-bad-input.js';

// Bad input on the Anthropic routes: the documented status and error body, the provider never contacted, and the
// ledger as chat completions leaves it for the same input (a call refused before its verdict is not recorded); a
// stream the provider cuts ends in Anthropic's error event, recorded as upstream_aborted. PROXY_BODY_LIMIT is 4 MiB
// here, so a 5 MB system prompt is past it.

let t: TestGateway;
let mock: MockAnthropic;

const MESSAGES = '/v1/proxy/anthropic/v1/messages';
const ask = { model: 'claude-sonnet-4-20250514', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] };

beforeAll(async () => {
  mock = await new MockAnthropic().start();
  t = await startTestGateway({ upstreamAnthropicBaseUrl: mock.url, proxyBodyLimit: 4 * 1024 * 1024 });
});
afterAll(async () => {
  await t?.close();
  await mock?.close();
});
beforeEach(() => mock.reset());

/** A tenant of its own (its ledger starts empty) and the headers its calls carry, as the SDK sends them. */
async function tenant(id: string) {
  const tok = await t.tenant(id);
  const headers = { 'x-api-key': tok.operator, 'x-svc-agent-id': 'bad-agent', 'anthropic-version': '2023-06-01', 'x-forwarded-api-key': 'sk-ant-provider' };
  const marker = async () => {
    mock.next({ text: 'ok' });
    expect((await call(t.url, 'POST', MESSAGES, { headers, body: ask })).status).toBe(200);
  };
  return { tok, headers, marker };
}

describe('bad input on the Anthropic routes', () => {
  it('a body that is not JSON, or not an object: 400 invalid_request, nothing forwarded, nothing recorded', async () => {
    const { headers, marker } = await tenant('anth-bad-json');
    for (const rawBody of ['{"model": "m", "messages": [', 'not json', '', '[1, 2]', 'null']) {
      const r = await call(t.url, 'POST', MESSAGES, { headers: { ...headers, 'content-type': 'application/json' }, rawBody });
      expectRefused(r, 400, 'invalid_request');
    }
    expect(mock.received).toHaveLength(0);
    await expectNothingRecordedBefore(t, 'anth-bad-json', marker);
  });

  it('wrong types (messages not an array, max_tokens a string, stream a string, model a number): 400 naming the field', async () => {
    const { headers, marker } = await tenant('anth-bad-types');
    const cases: [Record<string, unknown>, string][] = [
      [{ ...ask, messages: 'hi' }, 'messages'],
      [{ ...ask, messages: { role: 'user', content: 'hi' } }, 'messages'],
      [{ ...ask, messages: ['hi'] }, 'messages[0]'],
      [{ ...ask, max_tokens: '64' }, 'max_tokens'],
      [{ ...ask, max_tokens: 0 }, 'max_tokens'],
      [{ ...ask, stream: 'true' }, 'stream'],
      [{ ...ask, model: 42 }, 'model'],
    ];
    for (const [body, field] of cases) {
      const r = await call(t.url, 'POST', MESSAGES, { headers, body });
      expectRefused(r, 400, 'invalid_request');
      expect(r.body.error.message).toContain(field);
    }
    const count = await call(t.url, 'POST', `${MESSAGES}/count_tokens`, { headers, body: { model: ask.model, messages: 'hi' } });
    expectRefused(count, 400, 'invalid_request');
    expect(mock.received).toHaveLength(0);
    await expectNothingRecordedBefore(t, 'anth-bad-types', marker);
  });

  it('an unknown path under the prefix is a 404, a known one with another method a 405; nothing forwarded or recorded', async () => {
    const { headers, marker } = await tenant('anth-unknown');
    for (const path of ['/v1/proxy/anthropic/v1/complete', '/v1/proxy/anthropic/v1/messages/batches', '/v1/proxy/anthropic/v1/files', '/v1/proxy/anthropic/messages']) {
      expectRefused(await call(t.url, 'POST', path, { headers, body: ask }), 404, 'not_found');
    }
    expectRefused(await call(t.url, 'GET', MESSAGES, { headers }), 405, 'invalid_request');
    expectRefused(await call(t.url, 'GET', '/v1/proxy/anthropic/v1/models', { headers }), 404, 'not_found');
    expect(mock.received).toHaveLength(0);
    await expectNothingRecordedBefore(t, 'anth-unknown', marker);
  });

  it('a 5 MB system prompt is past the body limit: 413 payload_too_large, nothing forwarded or recorded', async () => {
    const { headers, marker } = await tenant('anth-huge');
    const r = await call(t.url, 'POST', MESSAGES, { headers, body: { ...ask, system: FIVE_MB } });
    expectRefused(r, 413, 'payload_too_large');
    expect(mock.received).toHaveLength(0);
    await expectNothingRecordedBefore(t, 'anth-huge', marker);
  });

  it("a stream the provider cuts: what came is relayed, then Anthropic's error event; the SDK raises it; one complete entry, upstream_aborted", async () => {
    const { tok, headers } = await tenant('anth-cut');
    mock.next({ chunks: ['one ', 'two ', 'three'], dropAfterEvents: 5, usage: { input_tokens: 31, output_tokens: 5 } });
    const r = await call(t.url, 'POST', MESSAGES, { headers, body: { ...ask, stream: true } });
    const events = sseEvents(r.text);
    expect(events.slice(0, 5).map((e) => e.event)).toEqual(['message_start', 'content_block_start', 'ping', 'content_block_delta', 'content_block_delta']);
    const last = events.at(-1)!;
    expect(events).toHaveLength(6);
    expect(last.event).toBe('error');
    expect(last.data).toMatchObject({ type: 'error', error: { type: 'overloaded_error', message: 'upstream LLM provider unavailable' } });
    await expectAbortedStreamRecorded(t, 'anth-cut', tok.admin, r, { eventType: 'proxy.anthropic.messages', endpoint: 'anthropic.messages', model: ask.model, agentId: 'bad-agent', usage: { prompt_tokens: 31 } });

    // The official SDK raises the error event as an APIError.
    mock.next({ chunks: ['one ', 'two ', 'three'], dropAfterEvents: 5 });
    const sdk = new Anthropic({ apiKey: tok.operator, baseURL: `${t.url}/v1/proxy/anthropic`, maxRetries: 0, defaultHeaders: { 'x-svc-agent-id': 'bad-agent', 'x-forwarded-api-key': 'sk-ant-provider' } });
    let text = '';
    const err = await (async () => {
      const stream = await sdk.messages.create({ model: ask.model, max_tokens: 64, messages: [{ role: 'user', content: 'count' }], stream: true });
      for await (const ev of stream) if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') text += ev.delta.text;
    })().then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect((err as Error).message).toContain('upstream LLM provider unavailable');
    expect(text).toBe('one two ');
  });
});
