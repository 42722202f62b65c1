import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, sha256Hex } from '@aduana/shared';
import { loadGatewayConfig } from '../src/config.js';
import { CredentialStore } from '../src/credentials/credential-store.js';
import { AUDITED_EVENT_TYPES, CLI_ACTOR, type AdminActionInput } from '../src/governance/admin-actions.js';
import type { LedgerEntry } from '../src/ledger/index.js';
import { call, expectEnvelope, startTestGateway, type CallResult, type TestGateway } from './helpers/start-test-gateway.js';
import { tempGatewayStores } from './helpers/temp-gateway-store.js';
import { capturingLogger, dataFiles } from './helpers/test-records.js';

/**
 * Provider credentials (docs/routing.md, "Provider credentials"): set, listed, rotated and deleted through the API by
 * a tenant's admin, sealed at rest under CREDENTIALS_KEY, chained with keyed digests only, never shown again, and
 * each tenant's own; the environment's ADUANA_CREDENTIAL_* as the fallback a stored one overrides.
 */
const KEY = '5e'.repeat(32);
const secret = (): string => `sk-${randomBytes(24).toString('hex')}`;
const ENV_SECRET = secret();

let t: TestGateway;
/** A gateway without CREDENTIALS_KEY. */
let unkeyed: TestGateway;
/** Every answer either gateway gave (status line, headers, body), and every line either one logged. */
const answers: string[] = [];
const logLines: string[] = [];
/** Every secret a test sent: none may come back in an answer, a log line, the ledger or the raw store. */
const sent: string[] = [ENV_SECRET];

async function api(base: string, method: string, path: string, opts: Parameters<typeof call>[3] = {}): Promise<CallResult> {
  const r = await call(base, method, path, opts);
  answers.push(`${r.status} ${JSON.stringify(r.headers)} ${r.text}`);
  return r;
}

const put = (g: TestGateway, token: string, name: string, value: string) => {
  sent.push(value);
  return api(g.url, 'PUT', `/v1/credentials/${name}`, { token, body: { secret: value } });
};

function credentialEntries(g: TestGateway, tenantId: string): LedgerEntry[] {
  return g.gw.deps.ledger.list(tenantId, { limit: 10_000, order: 'asc', cursor: null }).events.filter((e) => e.event_type.startsWith('credential.'));
}

/** The keyed digest the docs define, computed here independently: HMAC-SHA256 under HKDF(CREDENTIALS_KEY). */
function keyedDigest(tenantId: string, name: string, value: string): string {
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(KEY, 'hex'), Buffer.alloc(0), 'aduana.provider-credential.digest.v1', 32));
  return createHmac('sha256', key).update(`${tenantId}\u0000${name}\u0000${value}`).digest('hex');
}

beforeAll(async () => {
  // Read once when the gateway starts, as a pod's Secret is.
  process.env['ADUANA_CREDENTIAL_SHARED_PROD'] = ENV_SECRET;
  t = await startTestGateway({ credentialsKey: KEY }, { logger: capturingLogger(logLines, 'credentials-test') });
  unkeyed = await startTestGateway({}, { logger: capturingLogger(logLines, 'credentials-test') });
});

afterAll(async () => {
  delete process.env['ADUANA_CREDENTIAL_SHARED_PROD'];
  await t?.close();
  await unkeyed?.close();
});

describe('provider credentials through the API', () => {
  it('are set (201), listed without their secret, rotated (200) and deleted (204), and resolve to the newest secret', async () => {
    const { admin } = await t.tenant('cred-life');
    const first = secret();
    const created = await put(t, admin, 'openai-eu', first);
    expect(created.status, created.text).toBe(201);
    expect(created.body).toEqual({ name: 'openai-eu', source: 'stored', created_at: expect.any(String), updated_at: created.body.created_at, updated_by: expect.stringMatching(/^tok_/) });
    expect(t.gw.deps.credentials.resolve('cred-life', 'openai-eu')).toBe(first);
    expect(t.gw.deps.credentials.has('cred-life', 'openai-eu')).toBe(true);

    const listed = await api(t.url, 'GET', '/v1/credentials', { token: admin });
    expect(listed.status).toBe(200);
    expect(listed.body.key_configured).toBe(true);
    expect(listed.body.data).toEqual([
      { name: 'openai-eu', source: 'stored', created_at: created.body.created_at, updated_at: created.body.updated_at, updated_by: created.body.updated_by },
      { name: 'shared_prod', source: 'environment', variable: 'ADUANA_CREDENTIAL_SHARED_PROD' },
    ]);

    const second = secret();
    const rotated = await put(t, admin, 'openai-eu', second);
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.created_at).toBe(created.body.created_at);
    expect(t.gw.deps.credentials.resolve('cred-life', 'openai-eu')).toBe(second);

    expect((await api(t.url, 'DELETE', '/v1/credentials/openai-eu', { token: admin })).status).toBe(204);
    expect(t.gw.deps.credentials.resolve('cred-life', 'openai-eu')).toBeNull();
    expect((await api(t.url, 'GET', '/v1/credentials', { token: admin })).body.data.map((c: { name: string }) => c.name)).toEqual(['shared_prod']);
    expectEnvelope(await api(t.url, 'DELETE', '/v1/credentials/openai-eu', { token: admin }), 404, 'not_found');
  });

  it('are an admin\'s only: an operator or a viewer can neither list nor change them', async () => {
    const { admin, operator, viewer } = await t.tenant('cred-roles');
    expect((await put(t, admin, 'anthropic', secret())).status).toBe(201);
    for (const token of [operator, viewer]) {
      expectEnvelope(await api(t.url, 'GET', '/v1/credentials', { token }), 403, 'permission_denied');
      expectEnvelope(await put(t, token, 'anthropic', secret()), 403, 'permission_denied');
      expectEnvelope(await api(t.url, 'DELETE', '/v1/credentials/anthropic', { token }), 403, 'permission_denied');
    }
    expectEnvelope(await api(t.url, 'GET', '/v1/credentials'), 401, 'authentication_error');
    expect(t.gw.deps.credentials.list('cred-roles').filter((c) => c.source === 'stored')).toHaveLength(1);
  });

  it('chain set, rotate and delete as admin actions with the name and keyed digests only', async () => {
    const { admin } = await t.tenant('cred-chain');
    const first = secret();
    const second = secret();
    await put(t, admin, 'azure.eu', first);
    await put(t, admin, 'azure.eu', second);
    await api(t.url, 'DELETE', '/v1/credentials/azure.eu', { token: admin });
    const entries = credentialEntries(t, 'cred-chain');
    const view = (value: string) => sha256Hex(canonicalJson({ name: 'azure.eu', secret_digest: keyedDigest('cred-chain', 'azure.eu', value) }));
    expect(entries.map((e) => [e.event_type, e.payload['before'], e.payload['after']])).toEqual([
      ['credential.set', null, view(first)],
      ['credential.rotated', view(first), view(second)],
      ['credential.deleted', view(second), null],
    ]);
    for (const e of entries) {
      expect(e.decision).toBeNull();
      expect(Object.keys(e.payload).sort()).toEqual(['action', 'actor', 'after', 'before', 'target']);
      expect(e.payload['target']).toBe('azure.eu');
      expect(Object.keys(e.metadata)).toEqual(['trace_id']);
      // Not a plain hash of the secret, which a short secret could be guessed back from.
      for (const value of [first, second]) {
        expect(JSON.stringify(e)).not.toContain(value);
        expect(JSON.stringify(e)).not.toContain(sha256Hex(value));
      }
    }
    // The audit trail lists them.
    expect(AUDITED_EVENT_TYPES).toEqual(expect.arrayContaining(['credential.set', 'credential.rotated', 'credential.deleted']));
  });

  it('are each tenant\'s own: another tenant can neither resolve, list nor delete them', async () => {
    const a = await t.tenant('cred-a');
    const b = await t.tenant('cred-b');
    const mine = secret();
    const theirs = secret();
    await put(t, a.admin, 'openai', mine);
    await put(t, a.admin, 'only-a', secret());
    await put(t, b.admin, 'openai', theirs);
    const { credentials } = t.gw.deps;
    expect(credentials.resolve('cred-a', 'openai')).toBe(mine);
    expect(credentials.resolve('cred-b', 'openai')).toBe(theirs);
    expect(credentials.resolve('cred-b', 'only-a')).toBeNull();
    expect(credentials.has('cred-b', 'only-a')).toBe(false);

    const listed = await api(t.url, 'GET', '/v1/credentials', { token: b.admin });
    expect(listed.body.data.filter((c: { source: string }) => c.source === 'stored').map((c: { name: string }) => c.name)).toEqual(['openai']);
    expectEnvelope(await api(t.url, 'GET', '/v1/credentials?tenant_id=cred-a', { token: b.admin }), 403, 'permission_denied');
    expectEnvelope(await api(t.url, 'DELETE', '/v1/credentials/only-a', { token: b.admin }), 404, 'not_found');
    expect((await api(t.url, 'DELETE', '/v1/credentials/openai', { token: b.admin })).status).toBe(204);
    expect(credentials.resolve('cred-a', 'openai')).toBe(mine);
    expect(credentials.resolve('cred-a', 'only-a')).not.toBeNull();
    expect(credentialEntries(t, 'cred-b').map((e) => e.event_type)).toEqual(['credential.set', 'credential.deleted']);
  });

  it('fall back to ADUANA_CREDENTIAL_<NAME>, which a tenant\'s stored credential of the name overrides', async () => {
    const { admin } = await t.tenant('cred-env');
    const { credentials } = t.gw.deps;
    // Upper-cased, every character outside A-Z and 0-9 as `_`: both names read the one variable.
    expect(credentials.resolve('cred-env', 'shared-prod')).toBe(ENV_SECRET);
    expect(credentials.resolve('cred-env', 'shared_prod')).toBe(ENV_SECRET);
    expect(credentials.resolve('cred-env', 'shared.prod')).toBe(ENV_SECRET);
    expect(credentials.has('cred-env', 'shared-prod')).toBe(true);
    expect(credentials.resolve('cred-env', 'not-set')).toBeNull();
    // Not a valid name: nothing, not even a variable whose name it would map to.
    expect(credentials.resolve('cred-env', 'SHARED_PROD')).toBeNull();

    const own = secret();
    expect((await put(t, admin, 'shared_prod', own)).status).toBe(201);
    expect(credentials.resolve('cred-env', 'shared_prod')).toBe(own);
    // Another name reading the same variable, and another tenant, still get the environment's.
    expect(credentials.resolve('cred-env', 'shared-prod')).toBe(ENV_SECRET);
    expect(credentials.resolve('cred-life', 'shared_prod')).toBe(ENV_SECRET);
    const listed = (await api(t.url, 'GET', '/v1/credentials', { token: admin })).body.data;
    expect(listed).toEqual([expect.objectContaining({ name: 'shared_prod', source: 'stored' })]);

    expect((await api(t.url, 'DELETE', '/v1/credentials/shared_prod', { token: admin })).status).toBe(204);
    expect(credentials.resolve('cred-env', 'shared_prod')).toBe(ENV_SECRET);
    // The environment's cannot be deleted here; the refusal says where it comes from.
    const refused = expectEnvelope(await api(t.url, 'DELETE', '/v1/credentials/shared_prod', { token: admin }), 404, 'not_found');
    expect(refused.message).toContain('ADUANA_CREDENTIAL_SHARED_PROD');
  });

  it('refuse bad input with the documented status and change nothing', async () => {
    const { admin } = await t.tenant('cred-bad');
    const before = credentialEntries(t, 'cred-bad').length;
    const raw = (rawBody: string) => api(t.url, 'PUT', '/v1/credentials/ok-name', { token: admin, rawBody, headers: { 'content-type': 'application/json' } });
    const body = (b: unknown) => api(t.url, 'PUT', '/v1/credentials/ok-name', { token: admin, body: b });
    expectEnvelope(await raw('{"secret":'), 400, 'invalid_request');
    expectEnvelope(await raw(''), 400, 'invalid_request');
    expectEnvelope(await raw('{"secret":"a","secret":"b"}'), 400, 'invalid_request');
    for (const b of [null, [], 'sk-x', 42, {}, { secret: 42 }, { secret: null }, { secret: ['x'] }, { secret: '' }, { secret: 'x'.repeat(16 * 1024 + 1) }, { secret: 'é'.repeat(8 * 1024 + 1) }, { secret: 'x', other: 1 }, { 'sk-pasted-as-a-key': 1 }]) {
      const e = expectEnvelope(await body(b), 400, 'invalid_request');
      expect(e.message).not.toContain('sk-pasted-as-a-key');
    }
    // Larger than any secret's JSON: refused before the body is read.
    expectEnvelope(await body({ secret: 'x'.repeat(200_000) }), 413, 'payload_too_large');
    for (const name of ['OpenAI', '-lead', '.hidden', 'a'.repeat(65), 'a%20b', 'a%2Fb', '%C3%BCn']) {
      expectEnvelope(await api(t.url, 'PUT', `/v1/credentials/${name}`, { token: admin, body: { secret: 'sk-fine' } }), 400, 'invalid_request');
      expectEnvelope(await api(t.url, 'DELETE', `/v1/credentials/${name}`, { token: admin }), 400, 'invalid_request');
    }
    expect(t.gw.deps.credentials.list('cred-bad').filter((c) => c.source === 'stored')).toEqual([]);
    expect(credentialEntries(t, 'cred-bad')).toHaveLength(before);

    // The limits themselves are accepted: 64 characters of name, 16 KiB of secret.
    const longest = 'a'.repeat(64);
    const largest = 'y'.repeat(16 * 1024);
    expect((await put(t, admin, longest, largest)).status).toBe(201);
    expect(t.gw.deps.credentials.resolve('cred-bad', longest)).toBe(largest);
  });

  it('cannot be stored without CREDENTIALS_KEY: 503 credentials_key_missing naming it, and nothing stored or chained', async () => {
    const { admin } = await unkeyed.tenant('cred-nokey');
    const value = secret();
    const refused = expectEnvelope(await put(unkeyed, admin, 'openai', value), 503, 'upstream_unavailable');
    expect(refused.message).toContain('CREDENTIALS_KEY');
    const listed = await api(unkeyed.url, 'GET', '/v1/credentials', { token: admin });
    expect(listed.body).toEqual({ data: [{ name: 'shared_prod', source: 'environment', variable: 'ADUANA_CREDENTIAL_SHARED_PROD' }], key_configured: false });
    expect(unkeyed.gw.deps.credentials.resolve('cred-nokey', 'openai')).toBeNull();
    // The environment's still resolve.
    expect(unkeyed.gw.deps.credentials.resolve('cred-nokey', 'shared-prod')).toBe(ENV_SECRET);
    expect(credentialEntries(unkeyed, 'cred-nokey')).toEqual([]);
    expect(unkeyed.gw.deps.store.providerCredentials.getKeysCount({ start: ['cred-nokey'], end: ['cred-nokey', '\uffff'] })).toBe(0);
  });

  it('never show a secret: not in an answer, a log line, a ledger entry or the raw bytes of the data dir', async () => {
    // The other tests' secrets, some still stored, some rotated away or deleted.
    expect(sent.length).toBeGreaterThan(10);
    await t.gw.deps.store.root.flushed;
    await unkeyed.gw.deps.store.root.flushed;
    const ledgers = [t, unkeyed].flatMap((g) => g.gw.deps.ledger.tenants().flatMap((id) => g.gw.deps.ledger.list(id, { limit: 10_000, cursor: null }).events)).map((e) => JSON.stringify(e));
    const files = [t, unkeyed].flatMap((g) => dataFiles(g.dataDir));
    // The scans see what they should: the names and the ledger entries are there.
    expect(files.some((f) => f.bytes.includes('azure.eu'))).toBe(true);
    expect(ledgers.some((e) => e.includes('credential.rotated'))).toBe(true);
    expect(logLines.length).toBeGreaterThan(0);
    for (const value of sent) {
      for (const a of answers) expect(a.includes(value), 'an answer').toBe(false);
      for (const l of logLines) expect(l.includes(value), 'a log line').toBe(false);
      for (const e of ledgers) expect(e.includes(value), 'a ledger entry').toBe(false);
      const bytes = Buffer.from(value, 'utf8');
      for (const f of files) expect(f.bytes.includes(bytes), f.path).toBe(false);
    }
  });
});

describe('CREDENTIALS_KEY', () => {
  it('is empty or 64 hexadecimal characters: anything else stops start-up naming the setting, never quoting the value', () => {
    for (const bad of ['xyz', 'ab'.repeat(31), `${'ab'.repeat(32)}0`, 'zz'.repeat(32)]) {
      let message = '';
      try {
        loadGatewayConfig({ CREDENTIALS_KEY: bad });
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toMatch(/^CREDENTIALS_KEY: must be 64 hexadecimal characters/);
      expect(message).not.toContain(bad);
    }
    expect(loadGatewayConfig({ CREDENTIALS_KEY: KEY }).credentialsKey).toBe(KEY);
  });
});

describe('the credential store', () => {
  const stores = tempGatewayStores('credentials-');
  const recorded: AdminActionInput[] = [];
  const record = async (_tenantId: string, input: AdminActionInput) => {
    recorded.push(input);
  };

  it('binds a sealed secret to its tenant and name: copied onto another record, or opened under another key, it does not open', async () => {
    const store = stores.open();
    const credentials = new CredentialStore(store.providerCredentials, KEY, {});
    await credentials.set('t1', 'openai', 'sk-one', CLI_ACTOR, '', record);
    const raw = store.providerCredentials.get(['t1', 'openai']) as Record<string, unknown>;
    expect(Buffer.from(raw['sealed'] as Uint8Array).includes('sk-one')).toBe(false);
    await store.providerCredentials.put(['t2', 'openai'], raw);
    await store.providerCredentials.put(['t1', 'anthropic'], raw);
    expect(credentials.resolve('t1', 'openai')).toBe('sk-one');
    expect(credentials.resolve('t2', 'openai')).toBeNull();
    expect(credentials.resolve('t1', 'anthropic')).toBeNull();
    expect(credentials.has('t2', 'openai')).toBe(false);
    // Another key opens nothing; without a key nothing opens, and the environment does not stand in for it.
    expect(new CredentialStore(store.providerCredentials, 'a7'.repeat(32), {}).resolve('t1', 'openai')).toBeNull();
    expect(new CredentialStore(store.providerCredentials, '', { ADUANA_CREDENTIAL_OPENAI: 'sk-env' }).resolve('t1', 'openai')).toBeNull();
    expect(new CredentialStore(store.providerCredentials, '', { ADUANA_CREDENTIAL_OPENAI: 'sk-env' }).resolve('t3', 'openai')).toBe('sk-env');
  });

  it('chains each change with keyed digests that depend on the key, the tenant and the name, not on the secret alone', async () => {
    const store = stores.open();
    recorded.length = 0;
    const one = new CredentialStore(store.providerCredentials, KEY, {});
    const other = new CredentialStore(store.providerCredentials, 'a7'.repeat(32), {});
    await one.set('t1', 'openai', 'sk-same', CLI_ACTOR, '', record);
    await one.set('t2', 'openai', 'sk-same', CLI_ACTOR, '', record);
    await other.set('t3', 'openai', 'sk-same', CLI_ACTOR, '', record);
    const digests = recorded.map((r) => (r.after as { secret_digest: string }).secret_digest);
    expect(new Set(digests).size).toBe(3);
    expect(digests[0]).toBe(keyedDigest('t1', 'openai', 'sk-same'));
    expect(recorded.map((r) => r.action)).toEqual(['credential.set', 'credential.set', 'credential.set']);
    await expect(one.delete('t1', 'nothing', CLI_ACTOR, '', record)).rejects.toMatchObject({ code: 'not_found' });
    await expect(new CredentialStore(store.providerCredentials, '', {}).set('t1', 'openai', 'sk-x', CLI_ACTOR, '', record)).rejects.toMatchObject({ code: 'credentials_key_missing' });
  });

  it('lists a tenant\'s stored credentials and the environment\'s valid names, one per variable', () => {
    const store = stores.open();
    const env = { ADUANA_CREDENTIAL_B_KEY: 'x', ADUANA_CREDENTIAL_A: 'y', ADUANA_CREDENTIAL_EMPTY: '', ADUANA_CREDENTIAL_: 'z', OTHER: 'w', ADUANA_CREDENTIAL_lower: 'v' };
    expect(new CredentialStore(store.providerCredentials, KEY, env).list('t1')).toEqual([
      { name: 'a', source: 'environment', variable: 'ADUANA_CREDENTIAL_A' },
      { name: 'b_key', source: 'environment', variable: 'ADUANA_CREDENTIAL_B_KEY' },
    ]);
  });
});
