import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NetGuard } from '@aduana/shared';
import { GuardProxy } from '../../src/observe/index.js';
import { startFixture, type FixtureServer } from '../helpers/fixture-server.js';

/**
 * The observation's proxy listens on loopback while the observation runs: a local client without the proxy's
 * random credential is refused with 407 (plain HTTP, CONNECT and WebSocket upgrade alike) and reaches nothing.
 */
let site: FixtureServer;
let guard: NetGuard;
let proxy: GuardProxy;

beforeAll(async () => {
  site = await startFixture((_req, res) => res.end('site'));
  guard = new NetGuard({ allowPrivate: ['127.0.0.1/32'] });
  proxy = await GuardProxy.start({ guard, connectTimeoutMs: 5_000, maxRefusalsKept: 10 });
});

afterAll(async () => {
  await proxy.close();
  await guard.close();
  await site.close();
});

const port = (): number => Number(new URL(proxy.url).port);
const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

function viaProxy(authorization?: string, upgrade = false): Promise<{ status: number; challenge: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: '127.0.0.1',
      port: port(),
      path: `${site.origin}/page`,
      headers: { ...(authorization === undefined ? {} : { 'proxy-authorization': authorization }), ...(upgrade ? { connection: 'Upgrade', upgrade: 'websocket' } : {}) },
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, challenge: res.headers['proxy-authenticate'], body }));
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, challenge: res.headers['proxy-authenticate'], body: '' });
    });
    req.on('error', reject);
    req.end();
  });
}

function tunnel(authorization?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port(), '127.0.0.1', () => {
      const auth = authorization === undefined ? '' : `Proxy-Authorization: ${authorization}\r\n`;
      socket.write(`CONNECT 127.0.0.1:${String(site.port)} HTTP/1.1\r\nHost: 127.0.0.1:${String(site.port)}\r\n${auth}\r\n`);
    });
    let head = '';
    socket.on('data', (c: Buffer) => {
      head += c.toString();
      if (head.includes('\r\n\r\n')) {
        socket.destroy();
        resolve(head.split('\r\n')[0] ?? '');
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(head.split('\r\n')[0] ?? ''));
  });
}

describe('the observation proxy’s credential', () => {
  it('is random per proxy', async () => {
    const other = await GuardProxy.start({ guard, connectTimeoutMs: 5_000, maxRefusalsKept: 0 });
    try {
      expect(other.credential.password).not.toBe(proxy.credential.password);
      expect(proxy.credential.password.length).toBeGreaterThanOrEqual(32);
    } finally {
      await other.close();
    }
  });

  it('refuses a client without it, or with a wrong one, with 407, and nothing reaches the site', async () => {
    const before = site.requests.length;
    const connectionsBefore = site.connections();
    for (const auth of [undefined, basic('aduana', 'guess'), basic(proxy.credential.username, `${proxy.credential.password}x`), 'Bearer x']) {
      const plain = await viaProxy(auth);
      expect(plain.status).toBe(407);
      expect(plain.challenge).toMatch(/^Basic /);
      expect(await tunnel(auth)).toMatch(/^HTTP\/1\.1 407 /);
      expect((await viaProxy(auth, true)).status).toBe(407);
    }
    expect(site.requests.length).toBe(before);
    expect(site.connections()).toBe(connectionsBefore);
    expect(proxy.forwarded).toBe(0);
  });

  it('serves a client that sends it', async () => {
    const ok = await viaProxy(basic(proxy.credential.username, proxy.credential.password));
    expect(ok).toMatchObject({ status: 200, body: 'site' });
    expect(await tunnel(basic(proxy.credential.username, proxy.credential.password))).toMatch(/^HTTP\/1\.1 200 /);
  });
});
