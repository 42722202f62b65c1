import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerShipper, type LedgerShipperOptions } from '../src/fleet/shipping/ledger-shipper.js';
import { ShipCursorStore } from '../src/fleet/shipping/ship-cursor-store.js';
import { LedgerRetention } from '../src/ledger/index.js';
import { TempLedger } from './helpers/ledger/temp-ledger.js';
import { poll } from '../../shared/test/helpers/poll.js';
import { startTcpRelay } from './helpers/fleet/tcp-relay.js';
import { MemorySidecarTokens, startArchiveDb, startArchiveServer, type ArchiveDb, type ArchiveServer } from './helpers/fleet/archive-server.js';

// The sidecar's shipper against a real control-plane route on a real PostgreSQL: it drains its ledger, resumes after
// its own restart and after the control plane was away, and (in a child process SIGKILLed mid-load) loses no entry
// the ledger acknowledged.
let db: ArchiveDb;
let cp: ArchiveServer;
const tokens = new MemorySidecarTokens();
let sidecarToken: string;

beforeAll(async () => {
  db = await startArchiveDb('shipper');
  cp = await startArchiveServer(db.archive, tokens);
  sidecarToken = (await tokens.create('sidecars', null)).token;
}, 60_000);
afterAll(async () => {
  await cp?.close();
  await db?.close();
});

const cpHead = async (chainId: string): Promise<number> =>
  Number((await db.pool.query('SELECT head_seq FROM ledger_chains WHERE chain_id = $1', [chainId])).rows[0]?.head_seq ?? 0);
const cpCount = async (chainId: string): Promise<number> => Number((await db.pool.query('SELECT count(*) AS n FROM ledger_entries WHERE chain_id = $1', [chainId])).rows[0].n);
const cpCheckpoints = async (chainId: string): Promise<number[]> =>
  (await db.pool.query('SELECT tree_size FROM ledger_checkpoints WHERE chain_id = $1 ORDER BY tree_size', [chainId])).rows.map((r) => Number(r.tree_size));

function events(n: number, tag: string) {
  return Array.from({ length: n }, (_, i) => ({ event_type: 'prompt', payload: { tag, i }, metadata: { agent_id: 'agent-1' }, decision: null }));
}

function shipperFor(side: TempLedger, instanceId: string, extra: Partial<LedgerShipperOptions> = {}): LedgerShipper {
  return new LedgerShipper({
    ledger: side.ledger,
    cursors: new ShipCursorStore(side.root.openDB({ name: 'ledger_ship_cursors' })),
    instanceId,
    controlPlaneUrl: cp.url,
    sidecarToken,
    backoffBaseMs: 20,
    backoffMaxMs: 200,
    ...extra,
  });
}

describe('ledger shipper (sidecar -> control plane)', () => {
  it('is woken by appends (not only by its timer) and ships every tenant in batches', async () => {
    const side = new TempLedger({ checkpointEvery: 1_000_000, checkpointIntervalMs: 3_600_000 });
    const shipper = shipperFor(side, 'inst-wake', { intervalMs: 3_600_000, batchMax: 7 });
    try {
      shipper.start();
      await side.ledger.append('acme', events(30, 'a'));
      await side.ledger.append('globex', events(3, 'g'));
      await poll(async () => (await cpHead('inst-wake/acme')) === 30 && (await cpHead('inst-wake/globex')) === 3, { what: 'both chains shipped', timeoutMs: 15_000 });
      expect(await cpCount('inst-wake/acme')).toBe(30);
      await poll(() => shipper.status().pending === 0, { what: 'cursors advanced', timeoutMs: 15_000 });
      expect(shipper.status().chains).toEqual([
        { tenant_id: 'acme', chain_id: 'inst-wake/acme', acked_seq: 30, head_seq: 30, pending: 0 },
        { tenant_id: 'globex', chain_id: 'inst-wake/globex', acked_seq: 3, head_seq: 3, pending: 0 },
      ]);
    } finally {
      await shipper.close();
      await side.dispose();
    }
  });

  it('ends every batch in a checkpoint over its last entry: a stored one, else one it signs without storing it', async () => {
    const side = new TempLedger({ checkpointEvery: 10, checkpointIntervalMs: 3_600_000 });
    const shipper = shipperFor(side, 'inst-cp', { intervalMs: 50 });
    try {
      shipper.start();
      await side.ledger.append('acme', events(25, 'a')); // checkpointed at 25 as it becomes durable
      await poll(async () => (await cpHead('inst-cp/acme')) === 25, { what: 'entries shipped', timeoutMs: 15_000 });
      await poll(async () => (await cpCheckpoints('inst-cp/acme')).includes(25), { what: 'checkpoint 25 shipped', timeoutMs: 15_000 });
      await side.ledger.append('acme', events(3, 'b')); // too few for a checkpoint of the ledger's own
      await poll(async () => (await cpHead('inst-cp/acme')) === 28, { what: 'entries shipped', timeoutMs: 15_000 });
      expect(await cpCheckpoints('inst-cp/acme')).toEqual([25, 28]);
      // The batch's checkpoint is not one of the ledger's: their cadence is unchanged.
      await side.root.committed;
      expect(side.ledger.checkpoints('acme').map((c) => c.tree_size)).toEqual([25]);
      const [report] = (await db.archive.verifyTenant('acme')).filter((c) => c.chain_id === 'inst-cp/acme');
      expect(report).toMatchObject({ ok: true, checked: 28, checkpointsChecked: 2 });
    } finally {
      await shipper.close();
      await side.dispose();
    }
  });

  it('resumes from its cursor after its own restart, and a lost cursor only costs a harmless resend', async () => {
    const side = new TempLedger({ checkpointEvery: 1_000_000, checkpointIntervalMs: 3_600_000 });
    let shipper = shipperFor(side, 'inst-restart', { intervalMs: 50 });
    try {
      shipper.start();
      await side.ledger.append('acme', events(12, 'before'));
      await poll(() => shipper.status().pending === 0 && shipper.status().chains.length === 1, { what: 'first part shipped', timeoutMs: 15_000 });
      await shipper.close();
      await side.ledger.append('acme', events(9, 'while stopped'));
      await side.reopen({ checkpointEvery: 1_000_000, checkpointIntervalMs: 3_600_000 });
      shipper = shipperFor(side, 'inst-restart', { intervalMs: 50 });
      expect(shipper.status().chains[0]).toMatchObject({ acked_seq: 12, head_seq: 21, pending: 9 });
      shipper.start();
      await poll(async () => (await cpHead('inst-restart/acme')) === 21, { what: 'rest shipped', timeoutMs: 15_000 });
      await poll(() => shipper.status().pending === 0, { what: 'cursor advanced', timeoutMs: 15_000 });
      // The cursor write lost (as to a crash right after the ack): the next round resends, the control plane
      // skips what it holds, and the cursor jumps to its head.
      await new ShipCursorStore(side.root.openDB({ name: 'ledger_ship_cursors' })).put('acme', { acked_seq: 0, checkpoint_size: 0 });
      shipper.wake();
      await poll(() => shipper.status().pending === 0, { what: 'resend acknowledged', timeoutMs: 15_000 });
      expect(await cpCount('inst-restart/acme')).toBe(21);
      expect(shipper.status().failures).toBe(0);
    } finally {
      await shipper.close();
      await side.dispose();
    }
  });

  it('keeps its outbox while the control plane is down, reports the lag, and drains once it is back', async () => {
    const side = new TempLedger({ checkpointEvery: 1_000_000, checkpointIntervalMs: 3_600_000 });
    let relay = await startTcpRelay(cp.port);
    const shipper = shipperFor(side, 'inst-down', { intervalMs: 50, timeoutMs: 1000, controlPlaneUrl: relay.url });
    try {
      shipper.start();
      await side.ledger.append('acme', events(5, 'up'));
      await poll(async () => (await cpHead('inst-down/acme')) === 5, { what: 'shipped while up', timeoutMs: 15_000 });
      // The control plane holds them before the sidecar has read its answer: wait for the acknowledgement too.
      await poll(() => shipper.status().pending === 0, { what: 'acknowledged while up', timeoutMs: 15_000 });
      await relay.close();
      await side.ledger.append('acme', events(40, 'down'));
      await poll(() => shipper.status().failures >= 2, { what: 'failure reported', timeoutMs: 15_000 });
      const lag = shipper.status();
      expect(lag.chains[0]).toMatchObject({ chain_id: 'inst-down/acme', head_seq: 45, pending: 40 });
      expect(lag.last_error).toMatch(/ECONNREFUSED|connect|other side closed/i);
      expect(await cpHead('inst-down/acme')).toBe(5);
      relay = await startTcpRelay(cp.port, relay.port);
      await poll(async () => (await cpHead('inst-down/acme')) === 45, { what: 'outbox drained', timeoutMs: 15_000 });
      await poll(() => shipper.status().pending === 0 && shipper.status().failures === 0, { what: 'lag cleared', timeoutMs: 15_000 });
      expect(await cpCount('inst-down/acme')).toBe(45);
    } finally {
      await shipper.close();
      await relay.close();
      await side.dispose();
    }
  });

  it('halves a batch until it fits the control plane\'s body limit', async () => {
    const small = await startArchiveServer(db.archive, tokens, { maxBody: 64 * 1024 });
    const side = new TempLedger({ checkpointEvery: 1_000_000, checkpointIntervalMs: 3_600_000 });
    const shipper = shipperFor(side, 'inst-big', { intervalMs: 50, controlPlaneUrl: small.url, batchBytes: 60 * 1024 });
    try {
      shipper.start();
      const big = 'x'.repeat(10_000);
      await side.ledger.append('acme', Array.from({ length: 30 }, (_, i) => ({ event_type: 'prompt', payload: { i, big }, metadata: {}, decision: null })));
      await poll(async () => (await cpHead('inst-big/acme')) === 30, { what: 'large entries shipped', timeoutMs: 15_000 });
      expect(shipper.status().failures).toBe(0);
    } finally {
      await shipper.close();
      await small.close();
      await side.dispose();
    }
  });

  it('lets retention prune only what the control plane acknowledged, and ships on past the pruned boundary', async () => {
    const side = new TempLedger({ checkpointEvery: 10, checkpointIntervalMs: 3_600_000 });
    const shipper = shipperFor(side, 'inst-retention', { intervalMs: 3_600_000, lingerMs: 0 });
    // The sidecar's gate (gateway.ts): released once acknowledged; every entry is old enough for a one-day retention.
    const retention = new LedgerRetention(side.ledger, { days: 1, intervalMs: 3_600_000, releasedThrough: (t) => shipper.ackedThrough(t), now: () => Date.now() + 2 * 86_400_000 });
    try {
      for (let i = 0; i < 3; i++) await side.ledger.append('acme', events(10, `r${i}`)); // checkpoints at 10, 20, 30
      expect(await retention.runOnce()).toEqual([{ tenant_id: 'acme', pruned_through: 0, removed: 0 }]);
      shipper.start();
      await poll(() => shipper.ackedThrough('acme') === 30, { what: 'the chain acknowledged', timeoutMs: 15_000 });
      // Through the last checkpoint below the head (30 stays: the next append links to it).
      expect(await retention.runOnce()).toEqual([{ tenant_id: 'acme', pruned_through: 20, removed: 20 }]);
      await side.ledger.append('acme', events(5, 'after'));
      shipper.wake();
      await poll(() => shipper.ackedThrough('acme') === 35, { what: 'the entries after pruning acknowledged', timeoutMs: 15_000 });
      expect(await cpCount('inst-retention/acme')).toBe(35);
      expect(await side.ledger.verify('acme')).toMatchObject({ ok: true, prunedThrough: 20, checked: 15 });
      const [report] = (await db.archive.verifyTenant('acme')).filter((c) => c.chain_id === 'inst-retention/acme');
      expect(report).toMatchObject({ ok: true, checked: 35 });
    } finally {
      await retention.close();
      await shipper.close();
      await side.dispose();
    }
  });
});

describe('a SIGKILLed sidecar process', () => {
  const fixtures = (name: string): string => fileURLToPath(new URL(`./helpers/${name}`, import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), 'aduana-ship-kill-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function child(mode: 'load' | 'drain') {
    return spawn(
      process.execPath,
      ['--experimental-transform-types', '--no-warnings', '--conditions=source', '--import', fixtures('register-ts.mjs'), fixtures('fleet/ship-child.ts'), mode, dir, cp.url, sidecarToken, 'inst-kill'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
  }

  it('loses no acknowledged event: after a restart everything it acknowledged reaches the control plane', async () => {
    const loader = child('load');
    const acked = new Map<number, string>();
    let buffered = '';
    let stderr = '';
    loader.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => loader.on('exit', (_code, signal) => resolve(signal)));
    loader.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!; // an unfinished line was not fully acknowledged: ignore it
      for (const line of lines) {
        const [seq, hash] = line.split(':');
        if (hash) acked.set(Number(seq), hash);
      }
    });
    // Kill it once it has acknowledged a good number and the control plane holds part (not all) of them.
    await poll(async () => acked.size >= 300 && (await cpHead('inst-kill/acme')) > 0, { what: `the child to acknowledge entries (stderr: ${stderr})`, timeoutMs: 30_000 });
    loader.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const maxAcked = Math.max(...acked.keys());

    const drainer = child('drain');
    let out = '';
    let err2 = '';
    drainer.stderr.on('data', (c: Buffer) => (err2 += c.toString()));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`drain did not finish; stderr: ${err2}`)), 30_000);
      drainer.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        if (out.includes('drained')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    drainer.kill('SIGTERM');
    const head = await cpHead('inst-kill/acme');
    expect(head).toBeGreaterThanOrEqual(maxAcked);
    const rows = await db.pool.query("SELECT seq, encode(hash, 'hex') AS hash FROM ledger_entries WHERE chain_id = $1 AND seq <= $2", ['inst-kill/acme', maxAcked]);
    const atCp = new Map(rows.rows.map((r) => [Number(r.seq), r.hash as string]));
    for (const [seq, hash] of acked) expect(atCp.get(seq), `entry ${seq}`).toBe(hash);
    const [report] = await db.archive.verifyTenant('acme').then((all) => all.filter((c) => c.chain_id === 'inst-kill/acme'));
    expect(report).toMatchObject({ ok: true, checked: head });
  }, 90_000);
});
