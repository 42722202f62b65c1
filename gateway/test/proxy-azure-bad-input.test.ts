import { AzureOpenAI } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';
import { MockUpstream } from './helpers/mock-upstream.js';
import { expectAbortedStreamRecorded, expectNothingRecordedBefore, expectRefused, FIVE_MB, sseEvents } from './helpers/proxy-bad-input.js';

// Bad input on the Azure OpenAI routes: the documented status and error body, the provider never contacted, and the
// ledger as chat completions leaves it for the same input (a call refused before its verdict is not recorded); a
// stream the provider cuts ends in an in-band error chunk, recorded as upstream_aborted. PROXY_BODY_LIMIT is 4 MiB
// here, so a 5 MB system message is past it.

let t: TestGateway;
let mock: MockUpstream;

const API_VERSION = '2024-10-21';
const DEPLOYMENT = '/v1/proxy/azure/openai/deployments/gpt4o-prod';
const CHAT = `${DEPLOYMENT}/chat/completions?api-version=${API_VERSION}`;
const EMBEDDINGS = `${DEPLOYMENT}/embeddings?api-version=${API_VERSION}`;
const ask = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };

beforeAll(async () => {
  mock = await new MockUpstream().start();
  t = await startTestGateway({ upstreamAzureBaseUrl: new URL(mock.url).origin, proxyBodyLimit: 4 * 1024 * 1024 });
});
afterAll(async () => {
  await t?.close();
  await mock?.close();
});
beforeEach(() => mock.reset());

/** A tenant of its own (its ledger starts empty) and the headers its calls carry, as the SDK sends them. */
async function tenant(id: string) {
  const tok = await t.tenant(id);
  const headers = { 'api-key': tok.operator, 'x-svc-agent-id': 'bad-agent', 'x-forwarded-api-key': 'azure-provider-key' };
  const marker = async () => {
    mock.next({ content: 'ok' });
    expect((await call(t.url, 'POST', CHAT, { headers, body: ask })).status).toBe(200);
  };
  return { tok, headers, marker };
}

describe('bad input on the Azure OpenAI routes', () => {
  it('a body that is not JSON, or not an object: 400 invalid_request, nothing forwarded, nothing recorded', async () => {
    const { headers, marker } = await tenant('az-bad-json');
    for (const rawBody of ['{"model": "gpt-4o", "messages": [', 'not json', '', '[1, 2]', 'null']) {
      for (const path of [CHAT, EMBEDDINGS]) {
        const r = await call(t.url, 'POST', path, { headers: { ...headers, 'content-type': 'application/json' }, rawBody });
        expectRefused(r, 400, 'invalid_request');
      }
    }
    expect(mock.received).toHaveLength(0);
    await expectNothingRecordedBefore(t, 'az-bad-json', marker);
  });

  it('wrong types (messages not an array, stream a string, model a number, input a number): 400 naming the field', async () => {
    const { headers, marker } = await tenant('az-bad-types');
    const cases: [string, Record<string, unknown>, string][] = [
      [CHAT, { ...ask, messages: 'hi' }, 'messages'],
      [CHAT, { ...ask, messages: { role: 'user', content: 'hi' } }, 'messages'],
      [CHAT, { ...ask, messages: [42] }, 'messages[0]'],
      [CHAT, { ...ask, stream: 'true' }, 'stream'],
      [CHAT, { ...ask, model: 42 }, 'model'],
      [EMBEDDINGS, { model: 'text-embedding-3-small', input: 42 }, 'input'],
      [EMBEDDINGS, { model: 'text-embedding-3-small', input: 'x', stream: true }, 'stream'],
    ];
    for (const [path, body, field] of cases) {
      const r = await call(t.url, 'POST', path, { headers, body });
      expectRefused(r, 400, 'invalid_request');
      expect(r.body.error.message).toContain(field);
    }
    expect(mock.received).toHaveLength(0);
    await expectNothingRecordedBefore(t, 'az-bad-types', marker);
  });

  it('an unknown path under the prefix is a 404, a known one with another method a 405; nothing forwarded or recorded', async () => {
    const { headers, marker } = await tenant('az-unknown');
    for (const path of [
      `${DEPLOYMENT}/completions?api-version=${API_VERSION}`,
      `${DEPLOYMENT}/images/generations?api-version=${API_VERSION}`,
      `${DEPLOYMENT}/audio/transcriptions?api-version=${API_VERSION}`,
      `/v1/proxy/azure/openai/assistants?api-version=${API_VERSION}`,
      `/v1/proxy/azure/openai/deployments/gpt4o-prod?api-version=${API_VERSION}`,
    ]) {
      expectRefused(await call(t.url, 'POST', path, { headers, body: ask }), 404, 'not_found');
    }
    expectRefused(await call(t.url, 'GET', CHAT, { headers }), 405, 'invalid_request');
    expectRefused(await call(t.url, 'GET', `/v1/proxy/azure/openai/deployments?api-version=${API_VERSION}`, { headers }), 404, 'not_found');
    expect(mock.received).toHaveLength(0);
    await expectNothingRecordedBefore(t, 'az-unknown', marker);
  });

  it('a 5 MB system message is past the body limit: 413 payload_too_large, nothing forwarded or recorded', async () => {
    const { headers, marker } = await tenant('az-huge');
    const r = await call(t.url, 'POST', CHAT, { headers, body: { ...ask, messages: [{ role: 'system', content: FIVE_MB }, ...ask.messages] } });
    expectRefused(r, 413, 'payload_too_large');
    expect(mock.received).toHaveLength(0);
    await expectNothingRecordedBefore(t, 'az-huge', marker);
  });

  it('a stream the provider cuts: what came is relayed, then an error chunk; the SDK raises it; one complete entry, upstream_aborted', async () => {
    const { tok, headers } = await tenant('az-cut');
    mock.next({ chunks: ['one ', 'two ', 'three'], dropAfterChunks: 2 });
    const r = await call(t.url, 'POST', CHAT, { headers, body: { ...ask, stream: true } });
    const events = sseEvents(r.text);
    const deltas = events.slice(0, -1).map((e) => (e.data as { choices: { delta: { content?: string } }[] }).choices[0]!.delta.content ?? '');
    expect(deltas.join('')).toBe('one two ');
    expect(events.at(-1)).toEqual({ event: null, data: expect.objectContaining({ error: expect.objectContaining({ code: 503, type: 'upstream_unavailable', message: 'upstream LLM provider unavailable' }) }) });
    expect(r.text).not.toContain('[DONE]');
    await expectAbortedStreamRecorded(t, 'az-cut', tok.admin, r, { eventType: 'proxy.azure.chat.completions', endpoint: 'azure.chat', model: 'gpt-4o', agentId: 'bad-agent' });

    // The official SDK's AzureOpenAI raises the error chunk.
    mock.next({ chunks: ['one ', 'two ', 'three'], dropAfterChunks: 2 });
    const sdk = new AzureOpenAI({
      endpoint: `${t.url}/v1/proxy/azure`,
      apiKey: tok.operator,
      apiVersion: API_VERSION,
      deployment: 'gpt4o-prod',
      maxRetries: 0,
      defaultHeaders: { 'x-svc-agent-id': 'bad-agent', 'x-forwarded-api-key': 'azure-provider-key' },
    });
    let text = '';
    const err = await (async () => {
      const stream = await sdk.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'count' }], stream: true });
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    })().then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toContain('upstream LLM provider unavailable');
    expect(text).toBe('one two ');
  });
});
