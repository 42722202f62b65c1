import { ApiError, GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MockGemini } from './helpers/mock-gemini.js';

// The mock Gemini provider is what the proxy tests trust as "the real API": the official Google Gen AI SDK, pointed
// straight at it (no gateway), must accept every answer it scripts.
describe('mock Gemini API, read by the official Google Gen AI SDK', () => {
  let mock: MockGemini;
  let ai: GoogleGenAI;
  const ask = { model: 'gemini-mock-1', contents: 'Weather in Paris?' };

  beforeAll(async () => {
    mock = await new MockGemini().start();
    ai = new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: mock.url } });
  });
  afterAll(async () => {
    await mock?.close();
  });
  beforeEach(() => mock.reset());

  it('generateContent answers the scripted text and usage, and the mock records the request', async () => {
    mock.next({ text: 'It is sunny.', usage: { promptTokenCount: 21, candidatesTokenCount: 5 } });
    const r = await ai.models.generateContent(ask);
    expect(r.text).toBe('It is sunny.');
    expect(r.candidates?.[0]).toMatchObject({ content: { role: 'model', parts: [{ text: 'It is sunny.' }] }, finishReason: 'STOP', index: 0 });
    expect(r.usageMetadata).toEqual({ promptTokenCount: 21, candidatesTokenCount: 5, totalTokenCount: 26 });
    expect(r.modelVersion).toBe('gemini-mock-1');
    const [got] = mock.received;
    // The SDK's default version on the Gemini API is v1; the key travels in x-goog-api-key.
    expect(got).toMatchObject({ method: 'POST', path: '/v1/models/gemini-mock-1:generateContent', body: { contents: [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }] } });
    expect(got!.headers['x-goog-api-key']).toBe('k');
  });

  it('generateContentStream yields the scripted chunks in order, the last with the finish reason and usage', async () => {
    mock.next({ chunks: ['It ', 'is ', 'sunny', '.'], usage: { promptTokenCount: 21, candidatesTokenCount: 4 } });
    const texts: string[] = [];
    const finish: (string | undefined)[] = [];
    let usage: unknown;
    for await (const c of await ai.models.generateContentStream(ask)) {
      texts.push(c.text ?? '');
      finish.push(c.candidates?.[0]?.finishReason);
      usage = c.usageMetadata ?? usage;
    }
    expect(texts).toEqual(['It ', 'is ', 'sunny', '.']);
    expect(finish).toEqual([undefined, undefined, undefined, 'STOP']);
    expect(usage).toEqual({ promptTokenCount: 21, candidatesTokenCount: 4, totalTokenCount: 25 });
    expect(mock.received[0]!.path).toBe('/v1/models/gemini-mock-1:streamGenerateContent?alt=sse');
  });

  it('on the wire, a stream is `data: JSON\\r\\n\\r\\n` frames; without alt=sse it is one JSON array', async () => {
    // The SDK accepts several delimiters: the framing a proxy parses is checked here.
    const post = (query: string) =>
      fetch(`${mock.url}/v1beta/models/gemini-mock-1:streamGenerateContent${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': 'k' },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] }),
      });
    mock.next({ chunks: ['a', 'b'] }, { chunks: ['a', 'b'] });
    const sse = await post('?alt=sse');
    expect(sse.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = (await sse.text()).split('\r\n\r\n');
    expect(frames.pop()).toBe('');
    expect(frames.map((f) => (JSON.parse(f.replace(/^data: /, '')) as { candidates: { content: { parts: { text: string }[] } }[] }).candidates[0]!.content.parts[0]!.text)).toEqual(['a', 'b']);
    const array = (await (await post('')).json()) as { candidates: { content: { parts: { text: string }[] } }[] }[];
    expect(array.map((c) => c.candidates[0]!.content.parts[0]!.text)).toEqual(['a', 'b']);
  });

  it('a functionCall answer reaches response.functionCalls, whole and streamed', async () => {
    const call = { name: 'get_weather', args: { city: 'Paris', days: 3 } };
    mock.next({ functionCalls: [call] }, { chunks: ['Let me ', 'check.'], functionCalls: [call] });
    const r = await ai.models.generateContent(ask);
    expect(r.functionCalls).toEqual([call]);
    // Read parts, not response.text: the SDK warns when text is read from an answer with non-text parts.
    expect(r.candidates?.[0]?.content?.parts).toEqual([{ functionCall: call }]);
    const streamed: unknown[] = [];
    const texts: string[] = [];
    for await (const c of await ai.models.generateContentStream(ask)) {
      for (const p of c.candidates?.[0]?.content?.parts ?? []) if (p.text) texts.push(p.text);
      streamed.push(...(c.functionCalls ?? []));
    }
    expect(texts).toEqual(['Let me ', 'check.']);
    expect(streamed).toEqual([call]);
  });

  it('countTokens answers the scripted prompt tokens', async () => {
    mock.next({ usage: { promptTokenCount: 42, candidatesTokenCount: 0 } });
    const r = await ai.models.countTokens(ask);
    expect(r.totalTokens).toBe(42);
    expect(mock.received[0]).toMatchObject({ method: 'POST', path: '/v1/models/gemini-mock-1:countTokens' });
  });

  it('embedContent (sent by the SDK as batchEmbedContents) and a raw embedContent answer the scripted values', async () => {
    mock.next({ embeddings: [[1, 2], [3, 4]] }, { embedding: [0.5, 0.25] });
    const r = await ai.models.embedContent({ model: 'text-embedding-mock', contents: ['one', 'two'] });
    expect(r.embeddings?.map((e) => e.values)).toEqual([[1, 2], [3, 4]]);
    expect(mock.received[0]).toMatchObject({ path: '/v1/models/text-embedding-mock:batchEmbedContents', body: { requests: [{ model: 'models/text-embedding-mock' }, { model: 'models/text-embedding-mock' }] } });
    const raw = await fetch(`${mock.url}/v1beta/models/text-embedding-mock:embedContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': 'k' },
      body: JSON.stringify({ content: { parts: [{ text: 'one' }] } }),
    });
    expect(await raw.json()).toEqual({ embedding: { values: [0.5, 0.25] } });
  });

  it('a scripted 403 raises ApiError with status 403 and the Google error body', async () => {
    mock.next({ status: 403, errorMessage: 'not for you' });
    const err: unknown = await ai.models.generateContent(ask).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    const e = err as ApiError;
    expect(e.status).toBe(403);
    expect(JSON.parse(e.message)).toEqual({ error: { code: 403, message: 'not for you', status: 'PERMISSION_DENIED' } });
  });

  it('a dropped connection and an error chunk each end the stream in an error after the chunks before them', async () => {
    mock.next({ chunks: ['a', 'b', 'c', 'd'], dropAfterChunks: 2 }, { chunks: ['a', 'b', 'c'], streamError: { afterChunks: 1, code: 503 } });
    for (const expected of [['a', 'b'], ['a']]) {
      const texts: string[] = [];
      const err: unknown = await (async () => {
        for await (const c of await ai.models.generateContentStream(ask)) texts.push(c.text ?? '');
      })().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      expect(texts).toEqual(expected);
      if (expected.length === 1) expect(err).toMatchObject({ name: 'ApiError', status: 503 });
    }
  });

  it('like the API, refuses a request without a key or without contents, in Google\'s error shape', async () => {
    const post = (headers: Record<string, string>, body: unknown) =>
      fetch(`${mock.url}/v1beta/models/gemini-mock-1:generateContent`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    const noKey = await post({}, { contents: [{ parts: [{ text: 'Hi' }] }] });
    expect(noKey.status).toBe(403);
    expect(await noKey.json()).toMatchObject({ error: { code: 403, status: 'PERMISSION_DENIED' } });
    const noContents = await post({ 'x-goog-api-key': 'k' }, {});
    expect(noContents.status).toBe(400);
    expect(await noContents.json()).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
    expect(mock.clientAborts).toBe(0);
  });
});
