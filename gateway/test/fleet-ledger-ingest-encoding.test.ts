import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '@aduana/shared';
import type { LedgerEntry } from '../src/ledger/index.js';
import { CheckpointSigner } from '../src/ledger/merkle/checkpoint.js';
import { leafHash } from '../src/ledger/log/hash.js';
import { pushLeaf, rootFromPeaks, type Peak } from '../src/ledger/merkle/merkle.js';
import { SHIPPING_FORMAT, type ShippedBatch } from '../src/fleet/shipping/shipping-format.js';
import { TempLedger } from './helpers/ledger/temp-ledger.js';
import { call, expectEnvelope } from './helpers/start-test-gateway.js';
import { MemorySidecarTokens, startArchiveDb, startArchiveServer, type ArchiveDb, type ArchiveServer } from './helpers/fleet/archive-server.js';

// How the ingest reads and stores what it is shipped (docs/fleet.md, "Shipping the ledger"): the rows reach
// PostgreSQL by binary COPY, the body is parsed without the generic scan, and canonical JSON takes a
// native fast path when keys arrive sorted. Real route, real PostgreSQL, a real sidecar ledger.
let db: ArchiveDb;
let cp: ArchiveServer;
const tokens = new MemorySidecarTokens();
let sidecarToken: string;
const side = new TempLedger({ checkpointEvery: 1_000_000, checkpointIntervalMs: 3_600_000 });
const TENANT = 'enc';
const CHAIN = `inst-e/${TENANT}`;

beforeAll(async () => {
  db = await startArchiveDb('ingest_encoding');
  cp = await startArchiveServer(db.archive, tokens);
  sidecarToken = (await tokens.create('sidecar-e', [TENANT])).token;
}, 60_000);
afterAll(async () => {
  await cp?.close();
  await side.dispose();
  await db?.close();
});

/**
 * A batch ending in a checkpoint over its last entry, as the control plane requires: the sidecar ledger's for its own
 * chain; for a chain made here (entries from seq 1, never appended to the ledger), signed with the same key.
 */
function batchOf(entries: LedgerEntry[], chain = CHAIN): ShippedBatch {
  const last = entries[entries.length - 1];
  let checkpoints = last ? [side.ledger.signCheckpoint(TENANT, last.seq)] : [];
  if (last && chain !== CHAIN) {
    const peaks: Peak[] = [];
    for (const e of entries) pushLeaf(peaks, leafHash(Buffer.from(e.hash, 'hex')));
    const root = rootFromPeaks(peaks).toString('hex');
    checkpoints = [CheckpointSigner.load(side.dir).sign({ tenant_id: TENANT, tree_size: last.seq, root_hash: root, timestamp: new Date().toISOString() })];
  }
  return { format: SHIPPING_FORMAT, chain_id: chain, tenant_id: TENANT, public_key: side.ledger.publicKey, entries, checkpoints };
}
const ship = (body: unknown) => call(cp.url, 'POST', '/v1/fleet/ledger', { token: sidecarToken, body });
const shipRaw = (text: string) => call(cp.url, 'POST', '/v1/fleet/ledger', { token: sidecarToken, rawBody: Buffer.from(text), headers: { 'content-type': 'application/json' } });
const canonicalOf = (e: LedgerEntry): string => {
  const { hash: _drop, ...rest } = e;
  return canonicalJson(rest);
};
const rows = async () =>
  (await db.pool.query<{ seq: string; agent_id: string | null; nodes: Buffer; entry: string }>('SELECT seq, agent_id, nodes, entry FROM ledger_entries WHERE chain_id = $1 ORDER BY seq', [CHAIN])).rows;
const fresh = (after: number): LedgerEntry[] => side.ledger.list(TENANT, { limit: 1000 }).events.filter((e) => e.seq > after);

/** The same object with its keys in reverse order, recursively (JSON.stringify then writes them unsorted). */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reversed(v)]));
}

describe('ledger ingest encoding', () => {
  it('stores single-entry batches without an agent (empty agent and subtree columns) exactly as hashed, and they verify', async () => {
    await side.ledger.append(TENANT, [1, 2, 3].map((i) => ({ event_type: 'prompt', payload: { i, text: 'line\nbreak, comma' }, metadata: {}, decision: null })));
    for (const e of fresh(0)) {
      const r = await ship(batchOf([e]));
      expect(r.status, r.text).toBe(200);
      expect(r.body.acked_seq).toBe(e.seq);
    }
    const stored = await rows();
    expect(stored.map((r) => [Number(r.seq), r.agent_id, r.nodes.length])).toEqual([[1, null, 0], [2, null, 32], [3, null, 0]]);
    expect(stored.map((r) => r.entry)).toEqual(fresh(0).map(canonicalOf));
    const [report] = await db.archive.verifyTenant(TENANT);
    expect(report).toMatchObject({ chain_id: CHAIN, ok: true, checked: 3 });
  });

  it('accepts entries whose keys arrive out of canonical order, storing the canonical form the hash covers', async () => {
    await side.ledger.append(TENANT, [4, 5].map((i) => ({ event_type: 'tool_call', payload: { zeta: i, alpha: { y: 1, b: [{ d: 1, c: 2 }] } }, metadata: { agent_id: 'agent-z', trace: 't' }, decision: null })));
    const entries = fresh(3);
    const text = JSON.stringify({ ...batchOf(entries), entries: entries.map(reversed) });
    expect(text.indexOf('"zeta"')).toBeLessThan(text.indexOf('"alpha"'));
    const r = await shipRaw(text);
    expect(r.status, r.text).toBe(200);
    expect(r.body.acked_seq).toBe(5);
    const stored = (await rows()).slice(3);
    expect(stored.map((s) => s.entry)).toEqual(entries.map(canonicalOf));
    expect(stored.map((s) => s.agent_id)).toEqual(['agent-z', 'agent-z']);
  });

  it('reads a duplicated key once, as JSON.parse does, and stores only what the hash covers', async () => {
    await side.ledger.append(TENANT, [{ event_type: 'prompt', payload: { note: 'real' }, metadata: {}, decision: null }]);
    const [entry] = fresh(5);
    const honest = JSON.stringify(batchOf([entry!]));
    const r = await shipRaw(honest.replace('"payload":{"note":"real"}', '"payload":{"note":"decoy","note":"real"}'));
    expect(r.status, r.text).toBe(200);
    const stored = (await rows()).at(-1)!;
    expect(stored.entry).toBe(canonicalOf(entry!));
    expect(stored.entry).not.toContain('decoy');
  });

  it('refuses a self-consistent entry nested deeper than 64 levels with 422, storing nothing', async () => {
    await side.ledger.append(TENANT, [{ event_type: 'prompt', payload: { ok: true }, metadata: {}, decision: null }]);
    const [entry] = fresh(6);
    let deep: unknown = 'bottom';
    for (let i = 0; i < 70; i++) deep = { d: deep };
    const forged: LedgerEntry = { ...entry!, payload: { deep } };
    forged.hash = createHash('sha256').update(forged.prev_hash + canonicalOf(forged)).digest('hex');
    const r = await ship(batchOf([forged]));
    expect(expectEnvelope(r, 422, 'invalid_request').message).toMatch(/entry 7 has no canonical JSON form \(JSON nesting deeper than 64\)/);
    expect(await rows()).toHaveLength(6);
    expect(Number((await db.pool.query('SELECT head_seq FROM ledger_chains WHERE chain_id = $1', [CHAIN])).rows[0].head_seq)).toBe(6);
    // The honest entry still goes in after the refusal.
    expect((await ship(batchOf([entry!]))).status).toBe(200);
  });

  it("stores backslashes, escapes and separators (COPY's text format would read them specially) exactly as hashed", async () => {
    const chain = `inst-c/${TENANT}`;
    const payloads = [{ path: 'C:\\temp\\new', tab: 'a\tb', nl: 'x\r\ny', end: '\\.', quote: 'say "hi"', sep: '\u2028\u0000' }, { lone: '\\' }];
    const agents = ['agent\\one', 'plain'];
    const entries: LedgerEntry[] = [];
    let prev = '0'.repeat(64);
    payloads.forEach((payload, i) => {
      const e: LedgerEntry = { created_at: '2026-03-04T05:06:07.089Z', decision: null, event_type: 'tool\\call', metadata: { agent_id: agents[i] }, payload, prev_hash: prev, seq: i + 1, tenant_id: TENANT, hash: '' };
      e.hash = createHash('sha256').update(prev + canonicalOf(e)).digest('hex');
      prev = e.hash;
      entries.push(e);
    });
    const r = await ship(batchOf(entries, chain));
    expect(r.status, r.text).toBe(200);
    const stored = await db.pool.query<{ agent_id: string; event_type: string; entry: string; hash: Buffer }>('SELECT agent_id, event_type, entry, hash FROM ledger_entries WHERE chain_id = $1 ORDER BY seq', [chain]);
    expect(stored.rows.map((row) => row.entry)).toEqual(entries.map(canonicalOf));
    expect(stored.rows.map((row) => [row.agent_id, row.event_type, row.hash.toString('hex')])).toEqual(entries.map((e, i) => [agents[i], 'tool\\call', e.hash]));
    expect(JSON.parse(stored.rows[0]!.entry).payload).toEqual(payloads[0]);
  });

  it('stores created_at as the instant the entry names, whatever ISO form it was written in', async () => {
    // A chain of its own whose entries name their time in forms a ledger does not write but Date.parse accepts: the
    // plain form goes to PostgreSQL as shipped, the others as the same instant (a day past the month's end rolls over).
    const chain = `inst-t/${TENANT}`;
    // Also instants before 2000 (negative in PostgreSQL's binary form) and past 2285 (microseconds no longer a safe integer).
    const times = ['2026-03-04T05:06:07.089Z', '2026-03-04T07:06:07+02:00', '2026-02-31T00:00:00Z', '2026-03-04T05:06:07Z', '1969-12-31T23:59:59.999Z', '2400-02-29T12:00:00.001Z'];
    const entries: LedgerEntry[] = [];
    let prev = '0'.repeat(64);
    times.forEach((created_at, i) => {
      const e: LedgerEntry = { created_at, decision: null, event_type: 'prompt', metadata: {}, payload: { i }, prev_hash: prev, seq: i + 1, tenant_id: TENANT, hash: '' };
      e.hash = createHash('sha256').update(prev + canonicalOf(e)).digest('hex');
      prev = e.hash;
      entries.push(e);
    });
    const r = await ship(batchOf(entries, chain));
    expect(r.status, r.text).toBe(200);
    const stored = await db.pool.query<{ created_at: Date; entry: string }>('SELECT created_at, entry FROM ledger_entries WHERE chain_id = $1 ORDER BY seq', [chain]);
    expect(stored.rows.map((row) => row.created_at.toISOString())).toEqual(times.map((t) => new Date(Date.parse(t)).toISOString()));
    expect(stored.rows.map((row) => row.entry)).toEqual(entries.map(canonicalOf));
  });
});
