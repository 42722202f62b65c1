import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { call, expectEnvelope } from './helpers/start-test-gateway.js';
import { TestControlPlane } from './helpers/fleet-control-plane.js';
import { poll } from '../../shared/test/helpers/poll.js';

let cp: TestControlPlane;
let allToken: string;
let aToken: string;
let aAdmin: string;

beforeAll(async () => {
  cp = await TestControlPlane.start();
  aAdmin = (await cp.gw.tenant('fb-a')).admin;
  await cp.gw.tenant('fb-b');
  cp.bump();
  allToken = (await cp.sidecarTokens.create('all', null)).token;
  aToken = (await cp.sidecarTokens.create('only a', ['fb-a'])).token;
});
afterAll(() => cp.close());

const bundle = (token: string, headers: Record<string, string> = {}) => call(cp.url, 'GET', '/v1/fleet/bundle', { token, headers });

describe('GET /v1/fleet/bundle: who may take it', () => {
  it('refuses a request without a sidecar token, a PAT, an unknown and a revoked sidecar token with 401', async () => {
    expectEnvelope(await call(cp.url, 'GET', '/v1/fleet/bundle'), 401, 'authentication_error');
    expectEnvelope(await bundle(aAdmin), 401, 'authentication_error');
    expectEnvelope(await bundle(`${allToken.slice(0, -6)}AAAAAA`), 401, 'authentication_error');
    const { token, record } = await cp.sidecarTokens.create('soon revoked', null);
    expect((await bundle(token)).status).toBe(200);
    await cp.sidecarTokens.revoke(record.id);
    const e = expectEnvelope(await bundle(token), 401, 'authentication_error');
    expect(e.message).toMatch(/revoked/);
  });

  it('carries only the tenants the sidecar token covers', async () => {
    const all = await bundle(allToken);
    expect(all.status).toBe(200);
    expect(all.body.tenants.map((t: { tenant: { id: string } }) => t.tenant.id).sort()).toEqual(['default', 'fb-a', 'fb-b']);
    const onlyA = await bundle(aToken);
    expect(onlyA.body.tenants.map((t: { tenant: { id: string } }) => t.tenant.id)).toEqual(['fb-a']);
  });
});

describe('GET /v1/fleet/bundle: what it carries', () => {
  it('carries token hashes (never a token), users without password hashes, policies', async () => {
    const user = await call(cp.gw.url, 'POST', '/admin/users', { token: aAdmin, body: { email: 'ana@fb-a.example', name: 'Ana', role: 'viewer', password: 'correct horse battery' } });
    expect(user.status).toBe(201);
    expect((await call(cp.gw.url, 'POST', '/v1/policies', { token: aAdmin, body: { name: 'f', type: 'content_filter', risk: 10, rules: { patterns: ['x'] } } })).status).toBe(200);
    cp.bump();
    const r = await bundle(aToken);
    expect(r.body.format).toBe('aduana-bundle/1');
    const [t] = r.body.tenants;
    expect(t.tokens.length).toBe(3);
    for (const tok of t.tokens) {
      expect(tok.hash).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(tok)).not.toContain('adu_pat_');
    }
    expect(t.users.map((u: { email: string }) => u.email)).toEqual(['ana@fb-a.example']);
    expect(t.users[0]).not.toHaveProperty('password');
    expect(r.text).not.toContain('scrypt');
    expect(t.policies.map((p: { name: string }) => p.name)).toEqual(['f']);
    expect(t.tenant.policy_version).toBe(1);
  });

  it('builds the bundle once per revision and scope: two sidecars of one scope get the same build', async () => {
    cp.bump();
    const first = await bundle(aToken);
    const { token: other } = await cp.sidecarTokens.create('another a', ['fb-a']);
    await new Promise((r) => setTimeout(r, 5));
    const second = await bundle(other);
    expect(second.body.generated_at).toBe(first.body.generated_at);
    expect(second.text).toBe(first.text);
    cp.bump();
    const third = await bundle(other);
    expect(third.body.revision).toBe(first.body.revision + 1);
  });
});

describe('GET /v1/fleet/bundle: ETag and long-poll', () => {
  it('answers ETag "<revision>", and 304 without a body to If-None-Match naming it', async () => {
    const r = await bundle(allToken);
    expect(r.headers.etag).toBe(`"${cp.changes.revision()}"`);
    expect(r.body.revision).toBe(cp.changes.revision());
    const again = await bundle(allToken, { 'if-none-match': r.headers.etag as string });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.etag).toBe(r.headers.etag);
    // An older revision gets the current bundle at once.
    const stale = await bundle(allToken, { 'if-none-match': `"${cp.changes.revision() - 1}"`, prefer: 'wait=30' });
    expect(stale.status).toBe(200);
  });

  it('holds a request naming the current revision until the feed moves, then answers 200 with the new bundle', async () => {
    const rev = cp.changes.revision();
    const pending = bundle(allToken, { 'if-none-match': `"${rev}"`, prefer: 'wait=30' });
    expect(await poll(async () => cp.changes.waiting() === 1, { what: 'the request to be held', timeoutMs: 2000 })).toBe(true);
    cp.bump();
    const r = await pending;
    expect(r.status).toBe(200);
    expect(r.headers.etag).toBe(`"${rev + 1}"`);
    expect(r.body.revision).toBe(rev + 1);
  });

  it('answers 304 when the wait ends with nothing changed, and caps the wait at 60 s', async () => {
    const rev = cp.changes.revision();
    const r = await bundle(allToken, { 'if-none-match': `"${rev}"`, prefer: 'wait=1' });
    expect(r.status).toBe(304);
    // wait=3600 is held (not answered at once) and still ends with the change.
    const pending = bundle(allToken, { 'if-none-match': `"${rev}"`, prefer: 'wait=3600' });
    expect(await poll(async () => cp.changes.waiting() === 1, { what: 'the request to be held', timeoutMs: 2000 })).toBe(true);
    cp.bump();
    expect((await pending).status).toBe(200);
  });

  it('stops waiting for a client that went away', async () => {
    const rev = cp.changes.revision();
    const gone = new AbortController();
    const pending = request(`${cp.url}/v1/fleet/bundle`, { headers: { authorization: `Bearer ${allToken}`, 'if-none-match': `"${rev}"`, prefer: 'wait=60' }, signal: gone.signal });
    expect(await poll(async () => cp.changes.waiting() === 1, { what: 'the request to be held', timeoutMs: 2000 })).toBe(true);
    gone.abort();
    await expect(pending).rejects.toThrow();
    expect(await poll(async () => cp.changes.waiting() === 0, { what: 'the held request to be let go', timeoutMs: 2000 })).toBe(true);
  });
});
