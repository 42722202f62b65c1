import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@aduana/shared';
import { openGatewayStore, type GatewayStore } from '../src/storage/gateway-store.js';
import { SessionStore } from '../src/identity/sessions/session-store.js';
import { SessionPruner } from '../src/identity/sessions/session-pruner.js';

const HOUR = 3_600_000;
let dir: string;
let store: GatewayStore;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'aduana-session-prune-'));
  store = openGatewayStore(dir);
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('session pruning (docs/authentication.md, "Sessions")', () => {
  it('keeps a session until a day past its expiry, then deletes it; live sessions stay', async () => {
    const sessions = new SessionStore(store, HOUR);
    const pruner = new SessionPruner(sessions, HOUR, createLogger('test', { level: 'silent' }));
    const old = await sessions.open('t1', 'usr_old', 'password');
    const now = Date.now();
    // Expired 23 hours ago: still there, so its holder hears token_expired.
    expect(await pruner.prune(now + HOUR + 23 * HOUR)).toBe(0);
    expect(sessions.find(old.token)).toEqual(old.record);
    // A session with a longer lifetime, still valid at the next cut-off.
    const fresh = await new SessionStore(store, 48 * HOUR).open('t1', 'usr_new', 'password');
    // Expired 25 hours ago: gone; the longer-lived one stays.
    expect(await pruner.prune(now + HOUR + 25 * HOUR)).toBe(1);
    expect(sessions.find(old.token)).toBeUndefined();
    expect(sessions.find(fresh.token)).toEqual(fresh.record);
    await pruner.close();
  });
});
