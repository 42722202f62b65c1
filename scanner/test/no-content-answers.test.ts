import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, request } from 'undici';
import { removeDataDir, startKeyedScanner, type KeyedScanner } from './helpers/keyed-scanner.js';

/**
 * The KEY API's 204s (DELETE of a monitor or a webhook) carry no Content-Length (RFC 9110, 8.6) and leave the
 * connection usable for undici's request(); the raw head is read too, since a client may paper over a bad header.
 */

let sc: KeyedScanner;
beforeAll(async () => {
  sc = await startKeyedScanner({ schedulerTickMs: 3_600_000 });
});
afterAll(async () => {
  await sc?.close();
  if (sc) removeDataDir(sc.dataDir);
});

/** The head of one answer to `head`, as bytes on the wire (a 204 ends with its head). */
function rawHead(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let got = Buffer.alloc(0);
    const timer = setTimeout(() => socket.destroy(new Error(`no complete head: ${got.toString('latin1')}`)), 10_000);
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on('data', (c: Buffer) => {
      got = Buffer.concat([got, c]);
      const end = got.indexOf('\r\n\r\n');
      if (end < 0) return;
      clearTimeout(timer);
      socket.destroy();
      resolve(got.subarray(0, end).toString('latin1'));
    });
    socket.write(`${head}\r\n\r\n`);
  });
}

async function expectNoContent(path: string): Promise<void> {
  const client = new Client(sc.url);
  let connects = 0;
  let disconnects = 0;
  client.on('connect', () => connects++).on('disconnect', () => disconnects++);
  const authorization = `Bearer ${sc.bootstrapKey}`;
  try {
    const res = await request(`${sc.url}${path}`, { dispatcher: client, method: 'DELETE', headers: { authorization } });
    expect(res.statusCode).toBe(204);
    expect(res.headers).not.toHaveProperty('content-length');
    expect(await res.body.text()).toBe('');
    const next = await request(`${sc.url}/healthz`, { dispatcher: client });
    await next.body.text();
    expect(next.statusCode).toBe(200);
    expect({ connects, disconnects }).toEqual({ connects: 1, disconnects: 0 });
  } finally {
    await client.close();
  }
  const head = await rawHead(Number(new URL(sc.url).port), `DELETE ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${authorization}`);
  expect(head).toMatch(/^HTTP\/1\.1 204 /);
  expect(head).not.toMatch(/^content-length:/im);
  expect(head).not.toMatch(/^transfer-encoding:/im);
}

describe('answers without content', () => {
  it('DELETE /api/v1/monitors/{id}: 204 without Content-Length, the connection kept', async () => {
    const created = await sc.call('POST', '/api/v1/monitors', { body: { url: 'http://127.0.0.1:9/no-content', cadenceHours: 720 } });
    expect(created.status).toBe(201);
    await expectNoContent(`/api/v1/monitors/${created.body.id as string}`);
  });

  it('DELETE /api/v1/webhooks/{id}: 204 without Content-Length, the connection kept', async () => {
    const created = await sc.call('POST', '/api/v1/webhooks', { body: { url: 'https://127.0.0.1:9/no-content' } });
    expect(created.status).toBe(201);
    await expectNoContent(`/api/v1/webhooks/${created.body.id as string}`);
  });
});
