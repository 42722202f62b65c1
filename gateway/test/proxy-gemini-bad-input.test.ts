import { GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';
import { MockGemini } from './helpers/mock-gemini.js';
import { expectAbortedStreamRecorded, expectNothingRecordedBefore, expectRefused, FIVE_MB, sseEvents } from './helpers/proxy-bad-input.js';

// Bad input on the Gemini routes: the documented status and error body, the provider never contacted, and the ledger
// as chat completions leaves it for the same input (a call refused before its verdict is not recorded); a stream the
// provider cuts ends in Google's error shape, recorded as upstream_aborted. PROXY_BODY_LIMIT is 4 MiB here, so a 5 MB
// system instruction is past it.

let t: TestGateway;
let mock: MockGemini;

const PREFIX = '/v1/proxy/gemini/v1beta/models';
const GENERATE = `${PREFIX}/gemini-2.0-flash:generateContent`;
const STREAM = `${PREFIX}/gemini-2.0-flash:streamGenerateContent?alt=sse`;
const ask = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };

beforeAll(async () => {
  mock = await new MockGemini().start();
  t = await startTestGateway({ upstreamGeminiBaseUrl: mock.url, proxyBodyLimit: 4 * 1024 * 1024 });
});
afterAll(async () => {
  await t?.close();
  await mock?.close();
});
beforeEach(() => mock.reset());

/** A tenant of its own (its ledger starts empty) and the headers its calls carry, as the SDK sends them. */
async function tenant(id: string) {
  const tok = await t.tenant(id);
  const headers = { 'x-goog-api-key': tok.operator, 'x-svc-agent-id': 'bad-agent', 'x-forwarded-api-key': 'google-provider-key' };
  const marker = async () => {
    mock.next({ text: 'ok' });
    expect((await call(t.url, 'POST', GENERATE, { headers, body: ask })).status).toBe(200);
  };
  return { tok, headers, marker };
}

describe('bad input on the Gemini routes', () => {
  it('a body that is not JSON, or not an object: 400 invalid_request, nothing forwarded, nothing recorded', async () => {
    const { headers, marker } = await tenant('gem-bad-json');
    for (const rawBody of ['{"contents": [', 'not json', '', '[1, 2]', 'null']) {
      for (const path of [GENERATE, STREAM]) {
        const r = await call(t.url, 'POST', path, { headers: { ...headers, 'content-type': 'application/json' }, rawBody });
        expectRefused(r, 400, 'invalid_request');
      }
    }
    expect(mock.received).toHaveLength(0);
    await expectNothingRecordedBefore(t, 'gem-bad-json', marker);
  });

  it('wrong types (contents an object or a string or empty, stream a string, content not an object): 400 naming the field', async () => {
    const { headers, marker } = await tenant('gem-bad-types');
    const cases: [string, Record<string, unknown>, string][] = [
      [GENERATE, { contents: { role: 'user', parts: [{ text: 'hi' }] } }, 'contents'],
      [GENERATE, { contents: 'hi' }, 'contents'],
      [GENERATE, { contents: [] }, 'contents'],
      [STREAM, { contents: { parts: [{ text: 'hi' }] } }, 'contents'],
      [GENERATE, { ...ask, stream: 'true' }, 'stream'],
      [`${PREFIX}/gemini-2.0-flash:countTokens`, { contents: 'hi' }, 'contents'],
      [`${PREFIX}/text-embedding-004:embedContent`, { content: 'hi' }, 'content'],
      [`${PREFIX}/text-embedding-004:batchEmbedContents`, { requests: {} }, 'requests'],
    ];
    for (const [path, body, field] of cases) {
      const r = await call(t.url, 'POST', path, { headers, body });
      expectRefused(r, 400, 'invalid_request');
      expect(r.body.error.message).toContain(field);
    }
    expect(mock.received).toHaveLength(0);
    await expectNothingRecordedBefore(t, 'gem-bad-types', marker);
  });

  it('an unknown call, version or path under the prefix is a 404, a known one with another method a 405; nothing forwarded or recorded', async () => {
    const { headers, marker } = await tenant('gem-unknown');
    for (const path of [
      `${PREFIX}/x:predict`,
      `${PREFIX}/gemini-2.0-flash:generateContentX`,
      `${PREFIX}/gemini-2.0-flash`,
      '/v1/proxy/gemini/v2/models/gemini-2.0-flash:generateContent',
      '/v1/proxy/gemini/v1beta/tunedModels/mine:generateContent',
      '/v1/proxy/gemini/v1beta/cachedContents',
      '/v1/proxy/gemini/upload/v1beta/files',
    ]) {
      expectRefused(await call(t.url, 'POST', path, { headers, body: ask }), 404, 'not_found');
    }
    expectRefused(await call(t.url, 'GET', GENERATE, { headers }), 405, 'invalid_request');
    expectRefused(await call(t.url, 'GET', PREFIX, { headers }), 404, 'not_found');
    expect(mock.received).toHaveLength(0);
    await expectNothingRecordedBefore(t, 'gem-unknown', marker);
  });

  it('a 5 MB system instruction is past the body limit: 413 payload_too_large, nothing forwarded or recorded', async () => {
    const { headers, marker } = await tenant('gem-huge');
    const r = await call(t.url, 'POST', GENERATE, { headers, body: { ...ask, systemInstruction: { parts: [{ text: FIVE_MB }] } } });
    expectRefused(r, 413, 'payload_too_large');
    expect(mock.received).toHaveLength(0);
    await expectNothingRecordedBefore(t, 'gem-huge', marker);
  });

  it("a stream the provider cuts: what came is relayed, then Google's error shape; the SDK raises it; one complete entry, upstream_aborted", async () => {
    const { tok, headers } = await tenant('gem-cut');
    mock.next({ chunks: ['one ', 'two ', 'three'], dropAfterChunks: 2 });
    const r = await call(t.url, 'POST', STREAM, { headers, body: ask });
    const events = sseEvents(r.text);
    expect(events).toHaveLength(3);
    expect(events.slice(0, 2).map((e) => (e.data as { candidates: { content: { parts: { text: string }[] } }[] }).candidates[0]!.content.parts[0]!.text)).toEqual(['one ', 'two ']);
    expect(events[2]).toEqual({ event: null, data: expect.objectContaining({ error: expect.objectContaining({ code: 503, status: 'UNAVAILABLE', message: 'upstream LLM provider unavailable' }) }) });
    await expectAbortedStreamRecorded(t, 'gem-cut', tok.admin, r, { eventType: 'proxy.gemini.streamGenerateContent', endpoint: 'gemini.streamGenerateContent', model: 'gemini-2.0-flash', agentId: 'bad-agent' });

    // The official SDK raises the error chunk.
    mock.next({ chunks: ['one ', 'two ', 'three'], dropAfterChunks: 2 });
    const sdk = new GoogleGenAI({ apiKey: tok.operator, httpOptions: { baseUrl: `${t.url}/v1/proxy/gemini`, headers: { 'x-svc-agent-id': 'bad-agent', 'x-forwarded-api-key': 'google-provider-key' } } });
    let text = '';
    const err = await (async () => {
      for await (const chunk of await sdk.models.generateContentStream({ model: 'gemini-2.0-flash', contents: 'count' })) {
        for (const part of chunk.candidates?.[0]?.content?.parts ?? []) text += part.text ?? '';
      }
    })().then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toContain('upstream LLM provider unavailable');
    expect(text).toBe('one two ');
  });
});
