import { createHash } from 'node:crypto';
import { canonicalJson } from '@aduana/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GENESIS_PREV_HASH, LedgerError, type LedgerEntry } from './index.js';
import { rawEntries } from '../../test/helpers/ledger/raw-entries.js';
import { event, TempLedger } from '../../test/helpers/ledger/temp-ledger.js';

let t: TempLedger;
beforeEach(() => {
  t = new TempLedger();
});
afterEach(async () => {
  await t.dispose();
});

/** The hash definition, restated independently of the implementation. */
function expectedHash(entry: LedgerEntry): string {
  const { hash: _hash, ...withoutHash } = entry;
  return createHash('sha256').update(entry.prev_hash + canonicalJson(withoutHash)).digest('hex');
}

async function rejection(p: Promise<unknown>): Promise<LedgerError> {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(LedgerError);
  return err as LedgerError;
}

describe('Ledger append and read', () => {
  it('chains entries from the genesis hash, and reads them back as appended', async () => {
    const [first, second] = await t.ledger.append('acme', [
      event(1, { agent: 'a1', decision: { decision_id: 'd1', execution_status: 'ALLOW', risk_score: 0 } }),
      event(2),
    ]);
    expect(first).toMatchObject({ seq: 1, tenant_id: 'acme', prev_hash: GENESIS_PREV_HASH, event_type: 'tool_call' });
    expect(first!.decision).toEqual({ decision_id: 'd1', execution_status: 'ALLOW', risk_score: 0 });
    expect(second).toMatchObject({ seq: 2, prev_hash: first!.hash });
    expect(first!.hash).toBe(expectedHash(first!));
    expect(second!.hash).toBe(expectedHash(second!));
    expect(t.ledger.get('acme', 1)).toEqual(first);
    expect(t.ledger.get('acme', 2)).toEqual(second);
    expect(t.ledger.get('acme', 3)).toBeUndefined();
    expect(t.ledger.head('acme')).toEqual({ size: 2, hash: second!.hash });
  });

  it('gives concurrent appends contiguous seqs and one unforked chain', async () => {
    const results = await Promise.all(Array.from({ length: 64 }, (_, i) => t.ledger.append('acme', [event(i)])));
    const seqs = results.map(([e]) => e!.seq).sort((a, b) => a - b);
    expect(seqs).toEqual(Array.from({ length: 64 }, (_, i) => i + 1));
    const all = t.ledger.list('acme', { limit: 100 }).events;
    for (let i = 1; i < all.length; i++) expect(all[i]!.prev_hash).toBe(all[i - 1]!.hash);
    expect((await t.ledger.verify('acme')).ok).toBe(true);
  });

  it('defaults created_at to the append time', async () => {
    const before = Date.now();
    const [e] = await t.ledger.append('acme', [{ event_type: 'x', payload: {}, metadata: {}, decision: null }]);
    expect(Date.parse(e!.created_at)).toBeGreaterThanOrEqual(before - 1);
  });

  it('appendGrouped commits entries from many callers in one group and chains them', async () => {
    const entries = await Promise.all(Array.from({ length: 30 }, (_, i) => t.ledger.appendGrouped('acme', event(i, { agent: 'proxy' }))));
    expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(t.ledger.head('acme').size).toBe(30);
    const bad = await rejection(t.ledger.appendGrouped('acme', { ...event(99), payload: { n: 1n } as unknown as Record<string, unknown> }));
    expect(bad.code).toBe('invalid_input');
    expect((await t.ledger.verify('acme')).ok).toBe(true);
  });

  it('rebuilds the head on reopen and continues the same chain', async () => {
    await t.ledger.append('acme', [event(1), event(2), event(3)]);
    await t.ledger.appendGrouped('acme', event(4));
    const head = t.ledger.head('acme');
    const ledger = await t.reopen();
    expect(ledger.head('acme')).toEqual(head);
    const [next] = await ledger.append('acme', [event(5)]);
    expect(next).toMatchObject({ seq: 5, prev_hash: head.hash });
    expect(await ledger.verify('acme')).toMatchObject({ ok: true, checked: 5 });
  });

  it('refuses appends after close', async () => {
    await t.ledger.close();
    expect((await rejection(t.ledger.append('acme', [event(1)]))).code).toBe('closed');
  });
});

describe('Ledger batch atomicity', () => {
  it('writes nothing when any item is invalid, and names the first bad index', async () => {
    await t.ledger.append('acme', [event(0)]);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const cases: unknown[] = [
      { ...event(2), payload: cyclic },
      { ...event(2), payload: { n: Number.NaN } },
      { ...event(2), payload: { n: 10n } },
      { ...event(2), event_type: '' },
      { ...event(2), metadata: { agent_id: 42 } },
      { ...event(2), decision: 'ALLOW' },
      { ...event(2), created_at: 'yesterday' },
      null,
    ];
    for (const bad of cases) {
      const err = await rejection(t.ledger.append('acme', [event(1), bad as never, event(3)]));
      expect(err.code).toBe('invalid_input');
      expect(err.index).toBe(1);
    }
    expect(t.ledger.head('acme').size).toBe(1);
    expect(t.ledger.list('acme', { limit: 10 }).total).toBe(1);
    const [next] = await t.ledger.append('acme', [event(4)]);
    expect(next!.seq).toBe(2);
    expect((await t.ledger.verify('acme')).ok).toBe(true);
  });

  it('keeps each caller\'s batch whole and contiguous when concurrent callers share one append', async () => {
    const a = t.ledger.append('acme', [event(1), event(2), event(3)]);
    const bad = t.ledger.append('acme', [event(4), { ...event(5), payload: [] as unknown as Record<string, unknown> }]);
    const c = t.ledger.append('acme', [event(6), event(7)]);
    const [ea, eb, ec] = await Promise.allSettled([a, bad, c]);
    expect(eb.status).toBe('rejected');
    const seqsA = (ea as PromiseFulfilledResult<LedgerEntry[]>).value.map((e) => e.seq);
    const seqsC = (ec as PromiseFulfilledResult<LedgerEntry[]>).value.map((e) => e.seq);
    expect(seqsA).toEqual([1, 2, 3]);
    expect(seqsC).toEqual([4, 5]);
    expect(t.ledger.list('acme', { limit: 10 }).events.map((e) => e.payload.i)).toEqual([1, 2, 3, 6, 7]);
  });

  it('fails a write whose predecessor vanished, and then refuses to append over the hole', async () => {
    await t.ledger.append('acme', [event(1), event(2), event(3)]);
    await rawEntries(t.root).remove(['acme', 3]); // behind the API's back, while the in-memory head says 3
    expect((await rejection(t.ledger.append('acme', [event(4)]))).code).toBe('write_failed');
    expect((await rejection(t.ledger.append('acme', [event(5)]))).code).toBe('write_failed');
    expect(t.ledger.head('acme').size).toBe(2);
    expect((await t.ledger.verify('acme')).firstBrokenSeq).toBe(3);
  });

  it('refuses an empty batch and a bad tenant id', async () => {
    expect((await rejection(t.ledger.append('acme', []))).code).toBe('invalid_input');
    expect((await rejection(t.ledger.append('', [event(1)]))).code).toBe('invalid_tenant');
    expect((await rejection(t.ledger.append('a\u0000b', [event(1)]))).code).toBe('invalid_tenant');
  });
});

describe('Ledger list', () => {
  beforeEach(async () => {
    const inputs = Array.from({ length: 25 }, (_, i) =>
      event(i + 1, { agent: i % 3 === 0 ? 'alpha' : 'beta', event_type: i % 2 === 0 ? 'tool_call' : 'llm_call' }),
    );
    await t.ledger.append('acme', inputs);
    await t.ledger.append('acme', [event(26)]); // no agent
  });

  async function pages(query: { limit: number; agentId?: string; eventType?: string; order?: 'asc' | 'desc' }): Promise<{ seqs: number[]; pages: number; totals: Set<number> }> {
    const seqs: number[] = [];
    const totals = new Set<number>();
    let cursor: string | null = null;
    let count = 0;
    do {
      const page = t.ledger.list('acme', { ...query, cursor });
      seqs.push(...page.events.map((e) => e.seq));
      totals.add(page.total);
      cursor = page.cursor;
      count++;
    } while (cursor !== null && count < 100);
    return { seqs, pages: count, totals };
  }

  it('pages through every entry in order until the cursor is null, with total', async () => {
    const asc = await pages({ limit: 7 });
    expect(asc.seqs).toEqual(Array.from({ length: 26 }, (_, i) => i + 1));
    expect(asc.pages).toBe(4);
    expect([...asc.totals]).toEqual([26]);
    const desc = await pages({ limit: 10, order: 'desc' });
    expect(desc.seqs).toEqual(Array.from({ length: 26 }, (_, i) => 26 - i));
    const exact = t.ledger.list('acme', { limit: 26 });
    expect(exact.events).toHaveLength(26);
    expect(exact.cursor).toBeNull();
  });

  it('filters by agent, by event_type and by both, with matching totals', async () => {
    const alpha = Array.from({ length: 25 }, (_, i) => i).filter((i) => i % 3 === 0).map((i) => i + 1);
    const llm = Array.from({ length: 25 }, (_, i) => i).filter((i) => i % 2 === 1).map((i) => i + 1);
    const alphaPages = await pages({ limit: 4, agentId: 'alpha' });
    expect(alphaPages.seqs).toEqual(alpha);
    expect([...alphaPages.totals]).toEqual([alpha.length]);
    const llmPages = await pages({ limit: 5, eventType: 'llm_call' });
    expect(llmPages.seqs).toEqual(llm);
    expect([...llmPages.totals]).toEqual([llm.length]);
    const both = await pages({ limit: 2, agentId: 'alpha', eventType: 'llm_call', order: 'desc' });
    expect(both.seqs).toEqual(alpha.filter((s) => llm.includes(s)).reverse());
    // An agent's listing merges its event types' index ranges: in either order, across pages.
    const alphaDesc = await pages({ limit: 3, agentId: 'alpha', order: 'desc' });
    expect(alphaDesc.seqs).toEqual([...alpha].reverse());
    expect([...alphaDesc.totals]).toEqual([alpha.length]);
    for (const e of t.ledger.list('acme', { limit: 50, agentId: 'beta' }).events) expect(e.metadata.agent_id).toBe('beta');
    expect(t.ledger.list('acme', { limit: 5, agentId: 'nobody' })).toEqual({ events: [], cursor: null, total: 0 });
  });

  it('rejects bad limits and foreign or malformed cursors', () => {
    expect(() => t.ledger.list('acme', { limit: 0 })).toThrow(LedgerError);
    expect(() => t.ledger.list('acme', { limit: 1.5 })).toThrow(LedgerError);
    const { cursor } = t.ledger.list('acme', { limit: 5 });
    expect(() => t.ledger.list('acme', { limit: 5, cursor, order: 'desc' })).toThrow(/cursor/);
    expect(() => t.ledger.list('acme', { limit: 5, cursor: 'garbage!' })).toThrow(/cursor/);
  });
});

describe('Ledger tenant isolation', () => {
  it('keeps one chain per tenant and never reads across tenants', async () => {
    await t.ledger.append('acme', [event(1, { agent: 'shared-agent' }), event(2)]);
    await t.ledger.append('acme2', [event(3, { agent: 'shared-agent' })]);
    await t.ledger.append('acm', [event(4)]);
    expect(t.ledger.head('acme').size).toBe(2);
    expect(t.ledger.head('acme2').size).toBe(1);
    const other = t.ledger.list('acme2', { limit: 10 });
    expect(other.events.map((e) => [e.tenant_id, e.seq, e.prev_hash])).toEqual([['acme2', 1, GENESIS_PREV_HASH]]);
    expect(t.ledger.list('acme', { limit: 10, agentId: 'shared-agent' }).total).toBe(1);
    // An agent id that is a prefix of another's lists only its own entries.
    await t.ledger.append('acme', [event(5, { agent: 'shared', event_type: 'zeta' })]);
    expect(t.ledger.list('acme', { limit: 10, agentId: 'shared' }).events.map((e) => e.seq)).toEqual([3]);
    expect(t.ledger.list('acme', { limit: 10, agentId: 'shared-agent' }).events.map((e) => e.seq)).toEqual([1]);
    expect(t.ledger.list('acm', { limit: 10 }).events.map((e) => e.tenant_id)).toEqual(['acm']);
    expect(t.ledger.get('acme2', 2)).toBeUndefined();
    expect(t.ledger.list('nobody', { limit: 10 })).toEqual({ events: [], cursor: null, total: 0 });
    for (const tenant of ['acme', 'acme2', 'acm']) expect((await t.ledger.verify(tenant)).ok).toBe(true);
    expect(t.ledger.tenants()).toEqual(['acm', 'acme', 'acme2']);
  });
});
