import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, request } from 'undici';
import { createLogger } from '@aduana/shared';
import { HANDLED, HttpServer } from '../http/server.js';
import { BodyBudget } from '../http/body-budget.js';
import { RawChunkWriter, endRaw, writeRawHead } from '../http/raw-response.js';
import { RequestThreads } from './request-threads.js';
import type { RelayedDispatch } from './relay/relay-host.js';

// Larger than a socket buffer: the answer must be written as the client drains it, on the request thread too.
const BIG = Buffer.from(Array.from({ length: 3 * 1024 * 1024 }, (_, i) => (i * 31 + (i >> 10)) & 0xff));
const CHUNKS = 300;
const CHUNK = 'x'.repeat(8 * 1024);

let server: HttpServer;
let threads: RequestThreads;
let base: string;
let relayed = 0;
/** Streams of /slow that saw their client leave. */
let leftEarly = 0;

beforeAll(async () => {
  const access = { authenticate: () => ({ tenantId: 't', tokenId: 'k', role: 'admin' as const, scopes: [], agentId: null, userId: null }), admit: () => {} };
  server = new HttpServer({ logger: createLogger('t', { level: 'silent' }), access: access as never, budget: new BodyBudget(64 << 20, 32 << 20), defaultMaxBody: 1024, serviceName: 'test' });
  server.route('post', '/echo/:id', { auth: 'public', body: 'json', headers: ['x-note'] }, (ctx) => ({
    status: 201,
    body: { id: ctx.params[0], got: ctx.body, note: ctx.header('x-note'), query: ctx.query.get('q'), from: ctx.clientAddress() },
    headers: { 'x-made': 'here' },
  }));
  server.route('post', '/digest', { auth: 'public', body: 'raw', maxBody: 8 << 20 }, (ctx) => ({
    status: 200,
    body: { bytes: ctx.rawBody!.length, sha256: createHash('sha256').update(ctx.rawBody!).digest('hex') },
  }));
  server.route('get', '/big', { auth: 'public', body: 'none' }, () => ({ status: 200, raw: BIG, contentType: 'application/octet-stream' }));
  server.route('delete', '/thing', { auth: 'public', body: 'none' }, () => ({ status: 204 }));
  server.route('get', '/stream', { auth: 'public', body: 'none' }, async (ctx): Promise<typeof HANDLED> => {
    writeRawHead(ctx, 200, { 'content-type': 'text/event-stream' });
    const writer = new RawChunkWriter(ctx);
    for (let i = 0; i < CHUNKS; i++) await writer.write(`${i}:${CHUNK}\n`);
    endRaw(ctx);
    server.complete(ctx, 200);
    return HANDLED;
  });
  server.route('get', '/slow', { auth: 'public', body: 'none' }, async (ctx): Promise<typeof HANDLED> => {
    writeRawHead(ctx, 200, { 'content-type': 'text/plain' });
    const writer = new RawChunkWriter(ctx);
    ctx.onAbort = () => writer.release();
    for (let i = 0; i < 500 && !ctx.aborted; i++) {
      await writer.write(`${i}\n`);
      await new Promise((r) => setTimeout(r, 5));
    }
    if (ctx.aborted) leftEarly++;
    else endRaw(ctx);
    server.complete(ctx, 200);
    return HANDLED;
  });
  server.finish();
  // Counts the requests a request thread handed over.
  const dispatch: RelayedDispatch = (route, res, req) => {
    relayed++;
    server.dispatchRelayed(route, res, req);
  };
  threads = RequestThreads.launch({ count: 1, logger: createLogger('t', { level: 'silent' }), graceMs: 1000, judging: null });
  await threads.serve(server.relayedRoutes, dispatch);
  base = `http://127.0.0.1:${await server.listen('127.0.0.1', 0, threads)}`;
});
afterAll(() => server.close(0));

/** Each call on a connection of its own: the acceptor hands connections to the main thread's app and the thread's in turn. */
async function onNewConnection<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client(base);
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

describe('request threads', () => {
  it('answer on their connections exactly as the main thread does on its own: status, headers, body, parameters, query, declared headers', async () => {
    const before = relayed;
    const answers = [];
    for (let i = 0; i < 6; i++) {
      answers.push(
        await onNewConnection(async (c) => {
          const r = await c.request({ method: 'POST', path: '/echo/a%20b?q=1', body: '{"n":1}', headers: { 'content-type': 'application/json', 'x-note': 'hi' } });
          return { status: r.statusCode, made: r.headers['x-made'], trace: typeof r.headers['x-svc-trace-id'], body: await r.body.json() };
        }),
      );
    }
    // Both threads served some of the six connections.
    expect(relayed - before).toBeGreaterThan(0);
    expect(relayed - before).toBeLessThan(6);
    for (const a of answers) expect(a).toEqual({ status: 201, made: 'here', trace: 'string', body: { id: 'a b', got: { n: 1 }, note: 'hi', query: '1', from: '127.0.0.1' } });
  });

  it('carry large bodies both ways, stream with backpressure, and answer a 204 without a length', async () => {
    const upload = Buffer.alloc(5 << 20, 7);
    const sha = createHash('sha256').update(upload).digest('hex');
    for (let i = 0; i < 4; i++) {
      await onNewConnection(async (c) => {
        const d = await c.request({ method: 'POST', path: '/digest', body: upload });
        expect(await d.body.json()).toEqual({ bytes: upload.length, sha256: sha });
        const big = await c.request({ method: 'GET', path: '/big' });
        expect(Buffer.from(await big.body.arrayBuffer()).equals(BIG)).toBe(true);
        const s = await c.request({ method: 'GET', path: '/stream' });
        const lines = (await s.body.text()).split('\n').filter(Boolean);
        expect(lines).toHaveLength(CHUNKS);
        expect(lines.at(-1)).toBe(`${CHUNKS - 1}:${CHUNK}`);
        const none = await c.request({ method: 'DELETE', path: '/thing' });
        expect(none.statusCode).toBe(204);
        expect(none.headers['content-length']).toBeUndefined();
        await none.body.dump();
      });
    }
  });

  it("tell the main thread's handler that the client left, on either thread, and hold nothing after", async () => {
    const before = relayed;
    for (let i = 0; i < 2; i++) {
      await onNewConnection(async (c) => {
        const controller = new AbortController();
        const r = await c.request({ method: 'GET', path: '/slow', signal: controller.signal });
        // The first lines arrive, then the client goes.
        for await (const chunk of r.body) {
          if (String(chunk).includes('\n')) break;
        }
        controller.abort();
      }).catch(() => {});
    }
    expect(relayed - before).toBe(1);
    await expect.poll(() => leftEarly, { timeout: 5000 }).toBe(2);
    await expect.poll(() => server.inFlight, { timeout: 5000 }).toBe(0);
  });

  it('refuse what the main thread refuses: a body past the cap, an unknown path, a method the path does not take', async () => {
    for (let i = 0; i < 4; i++) {
      await onNewConnection(async (c) => {
        const tooBig = await c.request({ method: 'POST', path: '/echo/x', body: JSON.stringify({ s: 'y'.repeat(4096) }), headers: { 'content-type': 'application/json' } });
        expect(tooBig.statusCode).toBe(413);
        await tooBig.body.dump();
      });
      const missing = await request(`${base}/nowhere`);
      expect(missing.statusCode).toBe(404);
      await missing.body.dump();
      const wrong = await request(`${base}/big`, { method: 'POST' });
      expect(wrong.statusCode).toBe(405);
      await wrong.body.dump();
    }
  });
});
