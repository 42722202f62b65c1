import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { call, expectEnvelope, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';

let t: TestGateway;
let tok: Awaited<ReturnType<TestGateway['tenant']>>;
beforeAll(async () => {
  t = await startTestGateway();
  tok = await t.tenant('hostile');
});
afterAll(() => t.close());

async function policyCount(): Promise<number> {
  return (await call(t.url, 'GET', '/v1/policies', { token: tok.admin })).body.total;
}

describe('malformed and hostile input: the documented error, nothing changed, never a crash', () => {
  it('unknown routes → 404 envelope; a known path with the wrong method → 405 envelope', async () => {
    expectEnvelope(await call(t.url, 'GET', '/v1/nothing-here', { token: tok.admin }), 404, 'not_found');
    expectEnvelope(await call(t.url, 'GET', '/', {}), 404, 'not_found');
    expectEnvelope(await call(t.url, 'PATCH', '/v1/policies', { token: tok.admin, body: {} }), 405, 'invalid_request');
    expectEnvelope(await call(t.url, 'GET', '/v1/decide', { token: tok.admin }), 405, 'invalid_request');
  });

  it('bad JSON → 400 invalid_request', async () => {
    for (const rawBody of ['{', '{"name": }', 'nul', '\u0000\u0001', '{"a":1}{"b":2}', '']) {
      const r = await call(t.url, 'POST', '/v1/policies', { token: tok.admin, rawBody, headers: { 'content-type': 'application/json' } });
      expectEnvelope(r, 400, 'invalid_request');
    }
    expect(await policyCount()).toBe(0);
  });

  it('deeply nested JSON → 400 without recursion trouble', async () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    expectEnvelope(await call(t.url, 'POST', '/v1/decide', { token: tok.admin, rawBody: deep, headers: { 'content-type': 'application/json' } }), 400, 'invalid_request');
    const deepObj = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
    expectEnvelope(await call(t.url, 'POST', '/v1/policies', { token: tok.admin, rawBody: deepObj, headers: { 'content-type': 'application/json' } }), 400, 'invalid_request');
  });

  it('a 10 MB body → 413 payload_too_large (declared or streamed), and the server keeps serving', async () => {
    const big = JSON.stringify({ agent_id: 'a', action: { type: 'x', payload: { blob: 'x'.repeat(10 * 1024 * 1024) } } });
    const r = await call(t.url, 'POST', '/v1/decide', { token: tok.admin, rawBody: big, headers: { 'content-type': 'application/json' } });
    expectEnvelope(r, 413, 'payload_too_large');
    // Chunked (no Content-Length): refused once the stream passes the cap.
    async function* chunks() {
      for (let i = 0; i < 20; i++) yield Buffer.alloc(512 * 1024, 0x61);
    }
    const streamed = await request(`${t.url}/v1/decide`, { method: 'POST', headers: { authorization: `Bearer ${tok.admin}`, 'content-type': 'application/json' }, body: Readable.from(chunks()) }).then(
      async (res) => ({ status: res.statusCode, body: (await res.body.json()) as { error: { type: string } } }),
      (err: Error) => ({ status: 0, error: err }),
    );
    if (streamed.status !== 0) {
      expect(streamed.status).toBe(413);
    }
    expect((await call(t.url, 'GET', '/v1/policies', { token: tok.admin })).status).toBe(200);
  });

  it('wrong types everywhere → 400, nothing written', async () => {
    for (const body of [{ name: 1, type: 'content_filter', risk: 1, rules: { patterns: ['a'] } }, { name: 'x', type: ['content_filter'], risk: 1, rules: {} }, { name: 'x', type: 'rate_limit', risk: 1, rules: { limit: '5', window_s: 60 } }, true, 42]) {
      expectEnvelope(await call(t.url, 'POST', '/v1/policies', { token: tok.admin, body }), 400, 'invalid_request');
    }
    expect(await policyCount()).toBe(0);
  });

  it('unicode, control characters and lone surrogates in strings are data, not a crash', async () => {
    const r = await call(t.url, 'POST', '/v1/decide', {
      token: tok.admin,
      rawBody: '{"agent_id":"ag\u00e9nt-\ud83e\udd16","action":{"type":"x","payload":{"t":"\\ud800 \\u0000 \u202e rtl \u{1F600}"}}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(200);
    expect(r.body.envelope.execution_status).toBe('ALLOW');
  });

  it('a hostile pattern cannot make evaluation slow: RE2 is linear time', async () => {
    const p = await call(t.url, 'POST', '/v1/policies', { token: tok.admin, body: { name: 'redos', type: 'content_filter', risk: 10, rules: { patterns: ['(a+)+$', '(x+x+)+y'] } } });
    expect(p.status).toBe(200);
    // The classic catastrophic-backtracking inputs: no match, answered (a backtracking engine would never return).
    const miss = await call(t.url, 'POST', '/v1/decide', { token: tok.admin, body: { agent_id: 'a', action: { type: 'x', payload: { t: 'a'.repeat(100_000) + '!', u: 'x'.repeat(100_000) } } } });
    expect(miss.status).toBe(200);
    expect(miss.body.envelope.execution_status).toBe('ALLOW');
    const hit = await call(t.url, 'POST', '/v1/decide', { token: tok.admin, body: { agent_id: 'a', action: { type: 'x', payload: { t: 'b' + 'a'.repeat(100_000) } } } });
    expect(hit.body.envelope.execution_status).toBe('DENY');
  });
});
