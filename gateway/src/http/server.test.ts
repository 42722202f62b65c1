import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { createLogger, createLoggers, templateRequestLog } from '@aduana/shared';
import { GatewayError } from '../errors.js';
import { HttpServer } from './server.js';
import { BodyBudget } from './body-budget.js';

const budget = () => new BodyBudget(64 * 1024 * 1024, 32 * 1024 * 1024);

let server: HttpServer;
// 5 MiB of varied bytes: larger than a socket buffer, so the reply must be written as the client drains it.
const BIG = Buffer.from(Array.from({ length: 5 * 1024 * 1024 }, (_, i) => (i * 31 + (i >> 10)) & 0xff));
let base: string;

beforeAll(async () => {
  const denyAll = {
    authenticate: () => {
      throw new GatewayError('unauthenticated');
    },
    admit: () => {},
  };
  server = new HttpServer({ logger: createLogger('t', { level: 'silent' }), access: denyAll, budget: budget(), defaultMaxBody: 1024, serviceName: 'test' });
  server.route('get', '/boom', { auth: 'public', body: 'none' }, () => {
    throw new TypeError('cannot read properties of undefined (secret internals)');
  });
  server.route('get', '/async-boom', { auth: 'public', body: 'none' }, async () => {
    await new Promise((r) => setTimeout(r, 1));
    throw new RangeError('late failure');
  });
  server.route('post', '/echo', { auth: 'public', body: 'json' }, (ctx) => ({ status: 200, body: { got: ctx.body } }));
  server.route('get', '/private', { auth: 'pat', scope: 'runtime:read', body: 'none' }, () => ({ status: 200, body: {} }));
  server.route('get', '/big', { auth: 'public', body: 'none' }, () => ({ status: 200, raw: BIG, contentType: 'application/octet-stream' }));
  server.route('post', '/digest', { auth: 'public', body: 'raw', maxBody: 8 * 1024 * 1024 }, (ctx) => ({
    status: 200,
    body: { bytes: ctx.rawBody!.length, sha256: createHash('sha256').update(ctx.rawBody!).digest('hex') },
  }));
  server.finish();
  base = `http://127.0.0.1:${await server.listen('127.0.0.1', 0)}`;
});
afterAll(() => server.close(0));

async function get(path: string, init: Parameters<typeof request>[1] = {}) {
  const res = await request(`${base}${path}`, init);
  return { status: res.statusCode, body: (await res.body.json()) as { error?: { code: number; type: string; message: string; traceId: string }; got?: unknown } };
}

describe('HttpServer', () => {
  it('turns an unexpected exception into a 500 envelope that reveals nothing, and keeps serving', async () => {
    for (const path of ['/boom', '/async-boom']) {
      const r = await get(path);
      expect(r.status).toBe(500);
      expect(r.body.error).toMatchObject({ code: 500, type: 'internal_error', message: 'internal server error', rule: '' });
      expect(r.body.error?.message).not.toContain('secret');
    }
    const ok = await get('/echo', { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } });
    expect(ok).toEqual({ status: 200, body: { got: { a: 1 } } });
  });

  it('reads a body that arrives in many chunks whole and in order, with a declared length or chunked', async () => {
    const sha256 = createHash('sha256').update(BIG).digest('hex');
    // Declared length, written in slices with pauses, so the server gets it in several reads.
    const declared = await new Promise<string>((resolve, reject) => {
      const sock = connect(Number(new URL(base).port), '127.0.0.1', async () => {
        sock.write(`POST /digest HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: ${BIG.length}\r\n\r\n`);
        for (let at = 0; at < BIG.length; at += 700 * 1024) {
          sock.write(BIG.subarray(at, at + 700 * 1024));
          await new Promise((r) => setTimeout(r, 2));
        }
      });
      const parts: Buffer[] = [];
      sock.on('data', (d: Buffer) => parts.push(d));
      sock.on('end', () => resolve(Buffer.concat(parts).toString()));
      sock.on('error', reject);
    });
    expect(declared).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(JSON.parse(declared.slice(declared.indexOf('\r\n\r\n') + 4))).toEqual({ bytes: BIG.length, sha256 });
    // Chunked transfer encoding (no declared length): undici sends a stream that way.
    const res = await request(`${base}/digest`, {
      method: 'POST',
      body: Readable.from((function* () {
        for (let at = 0; at < BIG.length; at += 300 * 1024) yield BIG.subarray(at, at + 300 * 1024);
      })()),
    });
    expect(res.statusCode).toBe(200);
    expect(await res.body.json()).toEqual({ bytes: BIG.length, sha256 });
    // One byte more than the cap, declared: refused before the body is read.
    const over = await request(`${base}/digest`, { method: 'POST', body: Buffer.alloc(8 * 1024 * 1024 + 1) });
    expect(over.statusCode).toBe(413);
    await over.body.dump();
  });

  it('caps bodies at the configured size', async () => {
    const r = await get('/echo', { method: 'POST', body: JSON.stringify({ a: 'x'.repeat(2000) }) });
    expect(r.status).toBe(413);
    expect(r.body.error?.type).toBe('payload_too_large');
  });

  it('sends a large body to a slow reader completely and in order (backpressure, not one big buffer)', async () => {
    const port = Number(new URL(base).port);
    const got = await new Promise<Buffer>((resolve, reject) => {
      const sock = connect(port, '127.0.0.1', () => sock.write('GET /big HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
      const parts: Buffer[] = [];
      sock.on('data', (d: Buffer) => {
        parts.push(d);
        // Read slowly: a pause after every chunk lets the server's socket buffer fill.
        sock.pause();
        setTimeout(() => sock.resume(), 1);
      });
      sock.on('end', () => resolve(Buffer.concat(parts)));
      sock.on('error', reject);
    });
    const split = got.indexOf('\r\n\r\n');
    expect(got.subarray(0, split).toString()).toMatch(/^HTTP\/1\.1 200 OK/);
    const body = got.subarray(split + 4);
    expect(body.length).toBe(BIG.length);
    expect(createHash('sha256').update(body).digest('hex')).toBe(createHash('sha256').update(BIG).digest('hex'));
  });

  it('authenticates scoped routes before running them', async () => {
    expect((await get('/private')).status).toBe(401);
  });

  it('refuses at registration a route of a kind it was given no guard for', async () => {
    const s = new HttpServer({ logger: createLogger('t', { level: 'silent' }), access: { authenticate: () => { throw new Error('x'); }, admit: () => {} }, budget: budget(), defaultMaxBody: 1024, serviceName: 's' });
    for (const auth of ['session', 'sidecar', 'scrape'] as const) {
      expect(() => s.route('get', `/${auth}`, { auth, body: 'none' }, () => ({ status: 200 }))).toThrow(`s: get /${auth}: this server has no guard for routes of kind '${auth}'`);
    }
    // Only a route that reads no body of its own may answer its refusals itself.
    expect(() => s.route('post', '/own', { auth: 'pat', scope: 'runtime:write', refusedBy: 'handler', body: 'json' }, () => ({ status: 200 }))).toThrow(/reads its own body/);
    expect(s.routes).toEqual([]);
    await s.close(0);
  });

  it('logs one line per request, with no header values, tokens or bodies', async () => {
    const lines: string[] = [];
    const dest = { write: (line: string) => void lines.push(line) };
    const { logger, requestLog } = createLoggers('t', { level: 'info', destination: dest });
    const s = new HttpServer({ logger, requestLog: templateRequestLog(requestLog), access: { authenticate: () => { throw new GatewayError('unauthenticated'); }, admit: () => {} }, budget: budget(), defaultMaxBody: 1024, serviceName: 's' });
    s.route('post', '/echo', { auth: 'public', body: 'json' }, () => ({ status: 200, body: { ok: true } }));
    s.route('get', '/private', { auth: 'pat', scope: 'runtime:read', body: 'none' }, () => ({ status: 200, body: {} }));
    s.finish();
    const port = await s.listen('127.0.0.1', 0);
    await (await request(`http://127.0.0.1:${port}/echo?secret=q`, { method: 'POST', body: '{"password":"hunter2"}', headers: { authorization: 'Bearer adu_pat_SECRETSECRET' } })).body.text();
    await (await request(`http://127.0.0.1:${port}/private`, { headers: { authorization: 'Bearer adu_pat_OTHERSECRET' } })).body.text();
    await s.close(0);
    const reqLines = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l['msg'] === 'request');
    expect(reqLines).toHaveLength(2);
    expect(reqLines[0]).toMatchObject({ method: 'POST', path: '/echo', status: 200, traceId: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(reqLines[1]).toMatchObject({ method: 'GET', path: '/private', status: 401 });
    const all = lines.join('\n');
    for (const secret of ['SECRETSECRET', 'OTHERSECRET', 'hunter2', 'secret=q']) expect(all).not.toContain(secret);
  });

  it('finishes in-flight requests on close', async () => {
    const s = new HttpServer({ logger: createLogger('t', { level: 'silent' }), access: { authenticate: () => { throw new Error('x'); }, admit: () => {} }, budget: budget(), defaultMaxBody: 1024, serviceName: 's' });
    s.route('get', '/slow', { auth: 'public', body: 'none' }, async () => {
      await new Promise((r) => setTimeout(r, 200));
      return { status: 200, body: { done: true } };
    });
    s.finish();
    const port = await s.listen('127.0.0.1', 0);
    const pending = request(`http://127.0.0.1:${port}/slow`).then(async (r) => ({ status: r.statusCode, body: await r.body.json() }));
    await new Promise((r) => setTimeout(r, 50));
    await s.close(5000);
    expect(await pending).toEqual({ status: 200, body: { done: true } });
  });
});
