import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openGatewayStore, type GatewayStore } from '../storage/gateway-store.js';
import { McpSessions } from './mcp-sessions.js';

const HOUR = 3_600_000;
let dir = '';
let store: GatewayStore | null = null;
let clock = 1_700_000_000_000;
const now = () => clock;

function sessions(share: (tenant: string) => number = () => 3): McpSessions {
  if (store === null) {
    dir = mkdtempSync(join(tmpdir(), 'aduana-mcp-sessions-'));
    store = openGatewayStore(dir);
  }
  return new McpSessions(store.mcpSessions, share, 24 * HOUR, now);
}

/** The same data directory opened again, as a restart does. */
async function reopen(share?: (tenant: string) => number): Promise<McpSessions> {
  await store!.close();
  store = openGatewayStore(dir);
  return sessions(share);
}

afterEach(async () => {
  await store?.close();
  store = null;
  rmSync(dir, { recursive: true, force: true });
});

describe('the MCP session table', () => {
  it("a tenant past its share forgets its own least recently used sessions, never another tenant's", () => {
    const s = sessions((tenant) => (tenant === 'big' ? 10_000 : 3));
    s.bind('crm', 'a-1', { tenantId: 'a', agentId: 'bot' });
    for (let i = 0; i < 10_050; i++) s.bind('crm', `big-${i}`, { tenantId: 'big', agentId: 'bot' });
    expect(s.owns('a', 'bot', 'crm', 'a-1')).toBe(true);
    expect(s.count('big')).toBe(10_000);
    expect(s.owns('big', 'bot', 'crm', 'big-49')).toBe(false);
    expect(s.owns('big', 'bot', 'crm', 'big-50')).toBe(true);
  });

  it('is bound to the tenant, the agent and the server: anyone else is told no, alike', () => {
    const s = sessions();
    s.bind('crm', 'sid', { tenantId: 'a', agentId: 'bot1' });
    expect(s.owns('a', 'bot1', 'crm', 'sid')).toBe(true);
    expect(s.owns('a', 'bot2', 'crm', 'sid')).toBe(false);
    expect(s.owns('b', 'bot1', 'crm', 'sid')).toBe(false);
    expect(s.owns('a', 'bot1', 'files', 'sid')).toBe(false);
    s.forget('a', 'crm', 'sid');
    expect(s.owns('a', 'bot1', 'crm', 'sid')).toBe(false);
  });

  it('a session unused for a day is forgotten; a use keeps it', () => {
    const s = sessions();
    s.bind('crm', 'used', { tenantId: 'a', agentId: 'bot' });
    s.bind('crm', 'idle', { tenantId: 'a', agentId: 'bot' });
    clock += 20 * HOUR;
    expect(s.owns('a', 'bot', 'crm', 'used')).toBe(true);
    clock += 5 * HOUR;
    expect(s.owns('a', 'bot', 'crm', 'idle')).toBe(false);
    expect(s.owns('a', 'bot', 'crm', 'used')).toBe(true);
  });

  it('bindings, their ends and their uses survive a restart; the expired and the unreadable do not', async () => {
    let s = sessions();
    s.bind('crm', 'kept', { tenantId: 'a', agentId: 'bot' });
    s.bind('crm', 'ended', { tenantId: 'a', agentId: 'bot' });
    s.bind('crm', 'stale', { tenantId: 'a', agentId: 'bot' });
    s.forget('a', 'crm', 'ended');
    clock += 2 * HOUR;
    // A use rewrites the stored last use (at most hourly): the restart finds it fresh.
    expect(s.owns('a', 'bot', 'crm', 'kept')).toBe(true);
    await store!.mcpSessions.put('not a binding', { agent: 7 });
    await store!.root.flushed;
    clock += 23 * HOUR;

    s = await reopen();
    expect(s.owns('a', 'bot', 'crm', 'kept')).toBe(true);
    expect(s.owns('a', 'other', 'crm', 'kept')).toBe(false);
    expect(s.owns('a', 'bot', 'crm', 'ended')).toBe(false);
    expect(s.owns('a', 'bot', 'crm', 'stale')).toBe(false);
    await store!.root.flushed;
    expect([...store!.mcpSessions.getKeys()]).toEqual([['a', 'crm', 'kept']]);
  });

  it('after a restart the least recently used go first, in the order they were used', async () => {
    let s = sessions();
    for (const id of ['s1', 's2', 's3']) {
      s.bind('crm', id, { tenantId: 'a', agentId: 'bot' });
      clock += 2 * HOUR;
    }
    expect(s.owns('a', 'bot', 'crm', 's1')).toBe(true);
    await store!.root.flushed;
    s = await reopen();
    s.bind('crm', 's4', { tenantId: 'a', agentId: 'bot' });
    expect(s.owns('a', 'bot', 'crm', 's2')).toBe(false);
    expect(s.owns('a', 'bot', 'crm', 's1')).toBe(true);
    expect(s.owns('a', 'bot', 'crm', 's3')).toBe(true);
    expect(s.owns('a', 'bot', 'crm', 's4')).toBe(true);
  });
});
