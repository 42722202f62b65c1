import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectEnvelope, type CallResult } from './helpers/start-test-gateway.js';
import { closeGatewayWithMock, startGatewayWithMock, type GatewayWithMock } from './helpers/gateway-with-mock.js';

/**
 * "Every answer, errors included, carries x-svc-verdict …" (README): so does the 404 of a path under /v1/proxy that
 * is not proxied, and the 405 of a proxied path asked with another method, whoever asks and however. Nothing is
 * forwarded. The verdict is DENIED (the call did not get through), the trace id is the envelope's, the policy set is
 * none (no tenant's set was consulted) and no governance time was spent.
 */
let g: GatewayWithMock;
let token = '';
beforeAll(async () => {
  g = await startGatewayWithMock({ upstreamAzureBaseUrl: '' });
  token = (await g.t.tenant('not-proxied')).operator;
});
afterAll(async () => {
  await closeGatewayWithMock(g);
});

function expectVerdictHeaders(r: CallResult, status: number, type: string): void {
  const e = expectEnvelope(r, status, type);
  expect(r.headers['x-svc-verdict'], r.text).toBe('DENIED');
  expect(r.headers['x-svc-trace-id']).toBe(e.traceId);
  expect(r.headers['x-svc-policy']).toBe('none');
  expect(r.headers['x-svc-latency-ms']).toBe('0');
  expect(r.headers['x-svc-latency-us']).toBe('0');
}

describe('answers under /v1/proxy that no route proxies', () => {
  it('POST to a path that is not proxied: 404 with the verdict headers, with a PAT or without one', async () => {
    for (const path of ['/v1/proxy/images/generations', '/v1/proxy/anthropic/v1/complete', '/v1/proxy/azure/openai/deployments/d/chat/completions', '/v1/proxy/nothing']) {
      expectVerdictHeaders(await call(g.t.url, 'POST', path, { token, headers: { 'x-svc-agent-id': 'bot' }, body: {} }), 404, 'not_found');
      expectVerdictHeaders(await call(g.t.url, 'POST', path, { body: {} }), 404, 'not_found');
    }
  });

  it('a Gemini call that is not proxied: 404 with the verdict headers', async () => {
    expectVerdictHeaders(await call(g.t.url, 'POST', '/v1/proxy/gemini/v1beta/models/gemini-2.0-flash:generateImages', { token, headers: { 'x-svc-agent-id': 'bot' }, body: {} }), 404, 'not_found');
  });

  it('other methods: 404 for a path not proxied, 405 for a proxied one, each with the verdict headers', async () => {
    for (const method of ['GET', 'DELETE', 'PUT', 'PATCH']) {
      expectVerdictHeaders(await call(g.t.url, method, '/v1/proxy/files', { token }), 404, 'not_found');
    }
    expectVerdictHeaders(await call(g.t.url, 'GET', '/v1/proxy/chat/completions', { token }), 405, 'invalid_request');
    expectVerdictHeaders(await call(g.t.url, 'PUT', '/v1/proxy/anthropic/v1/messages', { token }), 405, 'invalid_request');
  });

  it('nothing reached the provider; paths outside /v1/proxy keep their plain 404', async () => {
    expect(g.mock.received).toEqual([]);
    const r = await call(g.t.url, 'GET', '/v1/nothing-here', { token });
    expectEnvelope(r, 404, 'not_found');
    expect(r.headers['x-svc-verdict']).toBeUndefined();
  });
});
