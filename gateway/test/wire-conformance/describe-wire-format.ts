import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectAbortedStreamRecorded, expectNothingRecordedBefore, expectRefused, sseEvents } from '../helpers/proxy-bad-input.js';
import { Client } from 'undici';
import { call, startTestGateway, type CallResult, type TestGateway } from '../helpers/start-test-gateway.js';
import { WireMock } from '../helpers/wire-mock.js';
import { WIRE_CASES, type WireCase } from './wire-cases.js';
import type { GatewayConfig } from '../../src/config.js';

/**
 * Every wire format's contract against one gateway (settings `overrides`) whose providers are all one table-driven
 * mock. PROXY_BODY_LIMIT is 4 MiB, so each case's 5 MB prompt is past it. `freshConnections`: each call on a new
 * connection to the agents' port (with two threads, the calls of a case land on each thread in turn).
 */
export function describeWireFormats(overrides: Partial<Record<keyof GatewayConfig, string | number | boolean>>, freshConnections = false): void {
  let t: TestGateway;
  let mock: WireMock;
  beforeAll(async () => {
    mock = await new WireMock().start();
    t = await startTestGateway({
      upstreamBaseUrl: `${mock.url}/v1`,
      upstreamAnthropicBaseUrl: mock.url,
      upstreamAzureBaseUrl: mock.url,
      upstreamGeminiBaseUrl: mock.url,
      proxyBodyLimit: 4 * 1024 * 1024,
      ...overrides,
    });
  });
  afterAll(async () => {
    await t?.close();
    await mock?.close();
  });
  beforeEach(() => mock.reset());
  for (const w of WIRE_CASES) describeWireFormat(w, () => ({ t, mock, ...(freshConnections ? { connection: () => new Client(t.agentsUrl) } : {}) }));
}

/** The running gateway (PROXY_BODY_LIMIT 4 MiB) and the one mock provider behind every format's upstream. */
export interface WireEnv {
  readonly t: TestGateway;
  readonly mock: WireMock;
  /** A connection of its own for each call (closed after it), when given; else calls share the default pool's. */
  readonly connection?: () => Client;
}

let seq = 0;

/**
 * One wire format's contract on the proxy: bad input answered with the documented status in the format's own error
 * shape, the provider never contacted and nothing recorded; paths not proxied a 404 (another method a 405) in the
 * gateway's envelope; a policy block in the format's error shape; a stream the provider cuts relayed up to the cut,
 * then ended by the format's in-band error, which its official SDK raises, and recorded once as upstream_aborted.
 */
export function describeWireFormat(w: WireCase, env: () => WireEnv): void {
  /** A call on the agents' port (the gateway's port when it has none). */
  async function agentsCall(method: string, path: string, opts: Parameters<typeof call>[3]): Promise<CallResult> {
    const { t, connection } = env();
    const dispatcher = connection?.();
    try {
      return await call(t.agentsUrl, method, path, dispatcher ? { ...opts, dispatcher } : opts);
    } finally {
      await dispatcher?.close();
    }
  }

  /** A tenant of its own (its ledger starts empty), the headers its SDK sends, and a good call to mark the ledger. */
  async function tenant() {
    const { t, mock } = env();
    const id = `wire-${++seq}`;
    const tok = await t.tenant(id);
    const headers = w.headers(tok.operator);
    const marker = async () => {
      mock.next({ text: 'ok' });
      const r = await agentsCall('POST', w.path, { headers, body: w.ask('hi') });
      expect(r.status, r.text.slice(0, 300)).toBe(200);
    };
    return { id, tok, headers, marker };
  }

  /** A refusal of a call: the format's error shape and the verdict headers. */
  const refused = (r: CallResult, status: number, ourType: string) => {
    w.expectError(r, status, ourType);
    expect(r.headers['x-svc-verdict']).toBe('DENIED');
    expect(r.headers['x-svc-trace-id']).toBeTruthy();
  };

  describe(`wire format conformance: ${w.name}`, () => {
    it('a good call is answered and recorded', async () => {
      const { t, mock } = env();
      const { id, marker } = await tenant();
      await expectNothingRecordedBefore(t, id, marker);
      expect(mock.received).toHaveLength(1);
    });

    it('a body that is not JSON, or not an object: 400 invalid_request in its error shape, nothing forwarded, nothing recorded', async () => {
      const { t, mock } = env();
      const { id, headers, marker } = await tenant();
      for (const rawBody of ['{"model": "m", "messages": [', 'not json', '', '[1, 2]', 'null']) {
        for (const path of w.bodyPaths) refused(await agentsCall('POST', path, { headers: { ...headers, 'content-type': 'application/json' }, rawBody }), 400, 'invalid_request');
      }
      expect(mock.received).toHaveLength(0);
      await expectNothingRecordedBefore(t, id, marker);
    });

    it('a body of the wrong shape: 400 naming the field, nothing forwarded, nothing recorded', async () => {
      const { t, mock } = env();
      const { id, headers, marker } = await tenant();
      for (const [path, body, field] of w.badTypes) {
        const r = await agentsCall('POST', path, { headers, body });
        refused(r, 400, 'invalid_request');
        expect(r.body.error.message, `${path} ${JSON.stringify(body)}`).toContain(field);
      }
      expect(mock.received).toHaveLength(0);
      await expectNothingRecordedBefore(t, id, marker);
    });

    it("a path not proxied is a 404, a proxied one with another method a 405, in the gateway's envelope; nothing forwarded or recorded", async () => {
      const { t, mock } = env();
      const { id, headers, marker } = await tenant();
      for (const path of w.notProxied) expectRefused(await agentsCall('POST', path, { headers, body: w.ask('hi') }), 404, 'not_found');
      expectRefused(await agentsCall('GET', w.getProxied, { headers }), 405, 'invalid_request');
      expectRefused(await agentsCall('GET', w.getNotProxied, { headers }), 404, 'not_found');
      expect(mock.received).toHaveLength(0);
      await expectNothingRecordedBefore(t, id, marker);
    });

    it('a body past the limit: 413 payload_too_large in its error shape, nothing forwarded or recorded', async () => {
      const { t, mock } = env();
      const { id, headers, marker } = await tenant();
      refused(await agentsCall('POST', w.path, { headers, body: w.huge(w.ask('hi')) }), 413, 'payload_too_large');
      expect(mock.received).toHaveLength(0);
      await expectNothingRecordedBefore(t, id, marker);
    });

    it('a policy block: 403 in its error shape, the block (verdict, policy) beside it, the provider never contacted', async () => {
      const { t, mock } = env();
      const { tok, headers } = await tenant();
      const p = await call(t.url, 'POST', '/v1/policies', { token: tok.admin, body: { name: 'no exfil', type: 'content_filter', risk: 90, rules: { patterns: ['(?i)export all customer records'], action: 'DENY' } } });
      expect(p.status).toBe(200);
      const r = await agentsCall('POST', w.path, { headers, body: w.ask('Export all customer records now.') });
      refused(r, 403, 'svc_policy_violation');
      expect(r.body).toMatchObject({ error: { rule: p.body.id }, verdict: 'DENIED', policy: { id: p.body.id, type: 'content_filter' } });
      expect(r.headers['x-svc-rule']).toBe(p.body.id);
      expect(mock.received).toHaveLength(0);
    });

    it('a stream the provider cuts: what came is relayed, then its error; its SDK raises it; one complete entry, upstream_aborted', async () => {
      const { t, mock } = env();
      const { id, tok, headers } = await tenant();
      mock.next({ chunks: ['one ', 'two ', 'three'], dropAfterChunks: 2, usage: { input: 31, output: 5 } });
      const r = await agentsCall('POST', w.streamPath, { headers, body: w.stream(w.ask('count')) });
      const events = sseEvents(r.text);
      expect(events.slice(0, -1).map(w.textOf).join('')).toBe('one two ');
      if (w.cutNames) expect(events.slice(0, -1).map((e) => e.event)).toEqual(w.cutNames);
      w.expectCutError(events.at(-1)!);
      expect(r.text).not.toContain('[DONE]');
      await expectAbortedStreamRecorded(t, id, tok.admin, r, { ...w.record, agentId: 'wire-agent' });

      mock.next({ chunks: ['one ', 'two ', 'three'], dropAfterChunks: 2 });
      let text = '';
      const err = await w.sdkStream(t.agentsUrl, tok.operator, headers, (d) => (text += d)).then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      expect((err as Error).message).toContain('upstream LLM provider unavailable');
      expect(text).toBe('one two ');
    });
  });
}
