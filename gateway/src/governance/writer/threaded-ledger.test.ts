import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { openGatewayStore, type GatewayStore } from '../../storage/gateway-store.js';
import { DecisionStore, type DecisionRecord } from '../decisions/decision-store.js';
import { Ledger, verifyCheckpointSignature, type LedgerInput } from '../../ledger/index.js';
import { ThreadedLedger } from './threaded-ledger.js';
import type { WriterSettings } from './writer-protocol.js';
import { MAX_UNANSWERED_CHARS, MAX_UNANSWERED_RECORDS } from './writer-client.js';
import { once } from 'node:events';
import { startModuleWorker } from '../../platform/start-module-worker.js';
import { newId } from '@aduana/shared';

const THROUGH_PORT = new URL('../../../test/helpers/ledger/append-through-port.js', import.meta.url);

// The gateway's ledger: every write made by one writer thread, reads made by the caller's thread, over one LMDB
// environment. What it promises is what the in-thread Ledger promises (ledger.test.ts and the rest run against that
// one): these check that the hand-over keeps those promises.

const open: { store: GatewayStore; ledger: ThreadedLedger | Ledger }[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) {
    await o.ledger.close();
    await o.store.close();
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'aduana-writer-'));
  dirs.push(dir);
  return dir;
}

function settings(dir: string, extra: Partial<WriterSettings> = {}): WriterSettings {
  return { dataDir: dir, checkpointEvery: 1000, checkpointIntervalMs: 60_000, groupCommitMs: 5, compression: false, anchoring: null, tsaCertPem: null, ...extra };
}

async function threaded(dir: string, extra: Partial<WriterSettings> = {}): Promise<{ store: GatewayStore; ledger: ThreadedLedger }> {
  const store = openGatewayStore(dir);
  const ledger = await ThreadedLedger.start(store.root, { keyDir: dir }, settings(dir, extra));
  const o = { store, ledger };
  open.push(o);
  return o;
}

async function closeOne(o: { store: GatewayStore; ledger: ThreadedLedger | Ledger }): Promise<void> {
  open.splice(open.indexOf(o), 1);
  await o.ledger.close();
  await o.store.close();
}

const event = (i: number, agent = 'agent-1'): LedgerInput => ({ event_type: 'tool_call', payload: { i, text: `call ${i} é` }, metadata: { agent_id: agent }, decision: null });

describe('the ledger written by its writer thread', () => {
  it("chains another thread's appends, made through a port it attached, into the same chain as its own: one writer, one chain", async () => {
    const dir = tempDir();
    const { store, ledger } = await threaded(dir);
    const port = ledger.attach();
    const other = startModuleWorker(THROUGH_PORT, { workerData: { dataDir: dir, port, tenant: 'acme', count: 40 }, transferList: [port] });
    const mine: number[] = [];
    for (let i = 0; i < 40; i++) mine.push((await ledger.append('acme', [event(i)]))[0]!.seq);
    const [theirs] = (await once(other, 'message')) as [number[]];
    // The two threads' entries interleave in one chain: every seq once, from either thread.
    expect([...mine, ...theirs].sort((a, b) => a - b)).toEqual(Array.from({ length: 80 }, (_, i) => i + 1));
    expect(await ledger.verify('acme')).toMatchObject({ ok: true, checked: 80 });
    expect(new DecisionStore(store, ledger.decisionWrites).get('acme', 'dec_from_thread')).toMatchObject({ agent_id: 'worker-agent' });
    // The other thread closing its ledger left this one writing.
    expect((await ledger.append('acme', [event(99)]))[0]!.seq).toBe(81);
  });

  it('answers appends with the chain the writer made, readable on this thread as soon as answered', async () => {
    const { ledger } = await threaded(tempDir());
    const first = await ledger.append('acme', [event(1), event(2)]);
    expect(first.map((e) => e.seq)).toEqual([1, 2]);
    expect(first[1]!.prev_hash).toBe(first[0]!.hash);
    // Read right after the answer, in the same turn: the answer renewed this thread's snapshot.
    expect(ledger.get('acme', 2)).toEqual(first[1]);
    expect(ledger.head('acme')).toEqual({ size: 2, hash: first[1]!.hash });

    // Grouped entries of many callers, and another tenant's, in one turn: each tenant's chain stays gapless.
    const grouped = await Promise.all([...Array.from({ length: 30 }, (_, i) => ledger.appendGrouped('acme', event(10 + i, `agent-${i % 3}`))), ledger.appendGrouped('globex', event(99))]);
    expect(grouped.slice(0, 30).map((e) => e.seq)).toEqual(Array.from({ length: 30 }, (_, i) => 3 + i));
    expect(grouped[30]).toMatchObject({ tenant_id: 'globex', seq: 1 });
    expect(ledger.list('acme', { limit: 100, agentId: 'agent-1' }).events.map((e) => e.payload['i'])).toEqual([1, 2, ...Array.from({ length: 10 }, (_, i) => 11 + 3 * i)]);
    expect(await ledger.verify('acme')).toMatchObject({ ok: true, checked: 32 });
  });

  it('lets a read wait for the appends handed over before it (caughtUp), and only for those of its tenant', async () => {
    const { ledger } = await threaded(tempDir(), { groupCommitMs: 200 });
    const grouped = [1, 2, 3].map((i) => ledger.appendGrouped('acme', event(i)));
    expect(ledger.head('acme').size).toBe(0); // still in this thread's outbox: handed over after this turn
    let globexWaited = false;
    await ledger.caughtUp('globex').then(() => (globexWaited = true));
    expect(globexWaited).toBe(true);
    await ledger.caughtUp('acme');
    expect(ledger.head('acme').size).toBe(3);
    expect((await Promise.all(grouped)).map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  it('refuses a bad entry on the calling thread, synchronously, and hands nothing over', async () => {
    const { ledger } = await threaded(tempDir());
    expect(() => ledger.enqueueGrouped('acme', { ...event(1), event_type: '' })).toThrow(expect.objectContaining({ code: 'invalid_input' }));
    expect(() => ledger.enqueueGrouped('bad\ntenant', event(1))).toThrow(expect.objectContaining({ code: 'invalid_tenant' }));
    await expect(ledger.append('acme', [event(1), { ...event(2), payload: [] as unknown as Record<string, unknown> }])).rejects.toMatchObject({ code: 'invalid_input', index: 1 });
    expect(ledger.head('acme').size).toBe(0);
    expect((await ledger.append('acme', [event(3)]))[0]!.seq).toBe(1);
  });

  it('keeps the stored format: a chain an in-thread Ledger began continues here, and verifies either way', async () => {
    const dir = tempDir();
    const store = openGatewayStore(dir);
    const before = { store, ledger: Ledger.open(store.root, { keyDir: dir }) };
    open.push(before);
    const old = await before.ledger.append('acme', [event(1), event(2), event(3)]);
    await closeOne(before);

    const now = await threaded(dir);
    const next = await now.ledger.append('acme', [event(4)]);
    expect(next[0]).toMatchObject({ seq: 4, prev_hash: old[2]!.hash });
    await closeOne(now);

    const after = openGatewayStore(dir);
    const reader = { store: after, ledger: Ledger.open(after.root, { keyDir: dir }) };
    open.push(reader);
    expect(await reader.ledger.verify('acme')).toMatchObject({ ok: true, checked: 4 });
    expect(reader.ledger.get('acme', 4)).toEqual(next[0]);
  });

  it('flushes what is queued at close: every answered and every still-grouped entry is there after a restart', async () => {
    const dir = tempDir();
    const o = await threaded(dir, { groupCommitMs: 60_000 });
    await o.ledger.append('acme', [event(1)]);
    const late = o.ledger.appendGrouped('acme', event(2)); // waits for its group window, which close cuts short
    await closeOne(o);
    expect(await late).toMatchObject({ seq: 2 });
    expect(() => o.ledger.enqueueGrouped('acme', event(3))).toThrow(expect.objectContaining({ code: 'closed' }));

    const again = await threaded(dir);
    expect(again.ledger.head('acme').size).toBe(2);
    expect(await again.ledger.verify('acme')).toMatchObject({ ok: true });
  });

  it('signs checkpoints and exports through the writer: the checkpoint verifies, the export mark moves', async () => {
    const { ledger } = await threaded(tempDir());
    await ledger.append('acme', [event(1), event(2), event(3)]);
    const cp = await ledger.checkpointNow('acme');
    expect(cp).toMatchObject({ tenant_id: 'acme', tree_size: 3, root_hash: ledger.rootAt('acme') });
    expect(verifyCheckpointSignature(cp!, ledger.publicKey)).toBe(true);
    expect(await ledger.checkpointNow('acme')).toBeNull(); // nothing new since

    await ledger.append('acme', [event(4)]);
    let text = '';
    const n = await ledger.exportJsonl('acme', new Writable({ write: (chunk: Buffer, _e, done) => ((text += chunk.toString()), done()) }));
    expect(n).toBe(4);
    const header = JSON.parse(text.split('\n')[0]!) as { checkpoints: { tree_size: number }[] };
    expect(header.checkpoints.map((c) => c.tree_size)).toEqual([3, 4]);
    expect(ledger.exportedThrough('acme')).toBe(4);
    expect(ledger.checkpoints('acme').map((c) => c.tree_size)).toEqual([3, 4]);
    // Retention through the writer: entries 1..3 are covered by a checkpoint, released by the export, old enough.
    expect(await ledger.prune('acme', { before: new Date('2999-01-01T00:00:00.000Z'), releasedThrough: 3 })).toMatchObject({ pruned_through: 3, removed: 3 });
    expect(() => ledger.get('acme', 1)).toThrow(expect.objectContaining({ code: 'pruned' }));
    expect(await ledger.verify('acme')).toMatchObject({ ok: true });
  });

  it('writes the decision index: read-your-writes before the commit, one winner among concurrent resolves', async () => {
    const { store, ledger } = await threaded(tempDir());
    const decisions = new DecisionStore(store, ledger.decisionWrites);
    const held: DecisionRecord = {
      decision_id: '01JDZ0000000000000000000AA',
      tenant_id: 'acme',
      agent_id: 'agent-1',
      execution_status: 'REQUIRE_APPROVAL',
      risk_score: 40,
      event_type: 'llm_call',
      trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
      created_at: '2026-11-27T10:00:00.000Z',
      rule: 'pii-guard',
      policy_version: 'v1',
      policies_evaluated: 1,
      triggered: [],
      resolution: null,
    };
    const written = decisions.record(held);
    expect(decisions.get('acme', held.decision_id)).toEqual(held); // from the pending map
    expect(decisions.get('globex', held.decision_id)).toBeUndefined();
    await written;
    expect(decisions.get('acme', held.decision_id)).toEqual(held); // from LMDB, written by the writer thread
    const resolution = (by: string) => ({ status: 'APPROVED' as const, note: '', resolved_by: by, resolved_at: '2026-11-27T10:01:00.000Z' });
    const outcomes = await Promise.all([decisions.resolve('acme', held.decision_id, resolution('u1')), decisions.resolve('acme', held.decision_id, resolution('u2'))]);
    expect(outcomes.map((o) => o.kind).sort()).toEqual(['already_resolved', 'resolved']);
    expect(decisions.get('acme', held.decision_id)?.resolution?.status).toBe('APPROVED');
    expect(await decisions.resolve('acme', 'missing', resolution('u1'))).toEqual({ kind: 'not_found' });
  });

  it('puts decision records in key order, and a barrier has every held one put at once (other threads then read it)', async () => {
    // A hold far longer than the test: only the barrier can have the records put.
    const { store, ledger } = await threaded(tempDir(), { decisionHoldMs: 600_000 });
    const decisions = new DecisionStore(store, ledger.decisionWrites);
    // Handed over as two request threads hand them: in batches of 6, the second thread's a batch behind.
    const ids = Array.from({ length: 1200 }, () => newId('dec'));
    const [a, b] = [ids.filter((_, i) => i % 2 === 0), ids.filter((_, i) => i % 2 === 1)];
    const answered: string[] = [];
    for (let i = 0; i < a.length; i += 6) answered.push(...a.slice(i, i + 6), ...b.slice(i - 6, i));
    answered.push(...b.slice(answered.length - a.length));
    const base: Omit<DecisionRecord, 'decision_id'> = { tenant_id: 'acme', agent_id: 'agent-1', execution_status: 'ALLOW', risk_score: 0, event_type: 'proxy.chat.completions', trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', created_at: '2026-11-27T10:00:00.000Z', rule: '', policy_version: 'v1', policies_evaluated: 6, triggered: [], resolution: null, latency_ms: 0.356, cost_brl: 0.00024915, model: 'gpt-4o-mini', prompt_tokens: 230, completion_tokens: 18 };
    const written = answered.map((id) => decisions.record({ ...base, decision_id: id }));
    await ledger.barrier();
    // Read as another thread reads: from the store, not this thread's pending records.
    for (const id of [ids[0]!, ids[600]!, ids[1199]!]) expect(store.decisions.get(['acme', id])).toMatchObject({ agent_id: 'agent-1' });
    await Promise.all(written);
    // 1,200 records of ~150 B in key order fill ~50 leaf pages; put as answered, ~83 (pages split in the middle).
    expect((store.decisions.getStats() as { treeLeafPageCount: number }).treeLeafPageCount).toBeLessThan(56);
  });

  it('fails closed when the writer thread fails: what it had is refused, and so is every later write', async () => {
    const dir = tempDir();
    const store = openGatewayStore(dir);
    const reported: string[] = [];
    const writerModule = new URL('../../../test/helpers/ledger/failing-writer.ts', import.meta.url);
    const ledger = await ThreadedLedger.start(store.root, { keyDir: dir, writerModule, onError: (_err, context) => reported.push(context) }, settings(dir));
    open.push({ store, ledger });
    expect(ledger.writable).toBe(true);
    const handedOver = ledger.appendGrouped('acme', event(1));
    await expect(handedOver).rejects.toMatchObject({ code: 'write_failed' });
    expect(ledger.writable).toBe(false); // /health answers 503 from here
    expect(reported).toContain('ledger writer thread');
    expect(() => ledger.enqueueGrouped('acme', event(2))).toThrow(expect.objectContaining({ code: 'write_failed' }));
    await expect(ledger.append('acme', [event(3)])).rejects.toMatchObject({ code: 'write_failed' });
    expect(ledger.head('acme').size).toBe(0);
  });

  it('reports a writer that cannot open its store, and starts no ledger', async () => {
    const dir = tempDir();
    const store = openGatewayStore(dir);
    const notADir = join(dir, 'bootstrap-admin.token');
    writeFileSync(notADir, 'a file where the writer expects its data directory');
    await expect(ThreadedLedger.start(store.root, { keyDir: dir }, settings(notADir))).rejects.toThrow(/ENOTDIR|not a directory/);
    await store.close();
  });

  it(`refuses appends past ${MAX_UNANSWERED_CHARS} unanswered characters of entries with 'busy', and takes them again once answered`, async () => {
    const { ledger } = await threaded(tempDir());
    const big = (i: number): LedgerInput => ({ event_type: 'e', payload: { i, text: 'x'.repeat(900 * 1024) }, metadata: {}, decision: null });
    const taken: Promise<unknown>[] = [];
    let refused: unknown = null;
    // All in one turn: ~0.9 MiB entries, far fewer than the records' limit, until their text passes the characters'.
    for (let i = 0; i < 100 && refused === null; i++) {
      try {
        taken.push(ledger.enqueueGrouped('acme', big(i)));
      } catch (err) {
        refused = err;
      }
    }
    expect(refused).toMatchObject({ code: 'busy' });
    expect(taken.length).toBeGreaterThan(30);
    expect(taken.length).toBeLessThan(40);
    await Promise.all(taken);
    expect(ledger.head('acme').size).toBe(taken.length);
    expect(await ledger.appendGrouped('acme', big(100))).toMatchObject({ seq: taken.length + 1 });
  });

  it(`refuses appends past ${MAX_UNANSWERED_RECORDS} unanswered records with 'busy', and keeps every one it took`, async () => {
    const { ledger } = await threaded(tempDir());
    const taken: Promise<unknown>[] = [];
    let refused: unknown = null;
    // All in one turn: nothing can be answered before the limit is reached.
    for (let i = 0; i <= MAX_UNANSWERED_RECORDS && refused === null; i++) {
      try {
        taken.push(ledger.enqueueGrouped('acme', { event_type: 'e', payload: { i }, metadata: {}, decision: null }));
      } catch (err) {
        refused = err;
      }
    }
    expect(refused).toMatchObject({ code: 'busy' });
    expect(taken).toHaveLength(MAX_UNANSWERED_RECORDS);
    await Promise.all(taken);
    expect(ledger.head('acme').size).toBe(MAX_UNANSWERED_RECORDS);
    // Answered: the backlog is gone, and appends are taken again.
    expect(await ledger.appendGrouped('acme', event(1))).toMatchObject({ seq: MAX_UNANSWERED_RECORDS + 1 });
  });
});
