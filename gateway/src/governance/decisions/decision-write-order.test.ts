import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newId } from '@aduana/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { openGatewayStore, type GatewayStore } from '../../storage/gateway-store.js';
import { writeDecision, type DecisionRecord } from './decision-store.js';
import { OrderedDecisionWrites, idTime } from './decision-write-order.js';

const open: { store: GatewayStore; dir: string }[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) {
    await o.store.close();
    rmSync(o.dir, { recursive: true, force: true });
  }
});

function tempStore(): GatewayStore {
  const dir = mkdtempSync(join(tmpdir(), 'aduana-decision-order-'));
  const store = openGatewayStore(dir);
  open.push({ store, dir });
  return store;
}

/** A proxied call's decision record, about the size the proxy indexes. */
const record = (id: string): DecisionRecord => ({
  decision_id: id,
  tenant_id: 'acme',
  agent_id: 'bench-agent-17',
  execution_status: 'ALLOW',
  risk_score: 0,
  event_type: 'proxy.chat.completions',
  trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
  created_at: '2026-11-27T10:00:00.000Z',
  rule: '',
  policy_version: 'v1',
  policies_evaluated: 6,
  triggered: [],
  resolution: null,
  latency_ms: 0.356,
  cost_brl: 0.00024915,
  model: 'gpt-4o-mini',
  prompt_tokens: 230,
  completion_tokens: 18,
});

/**
 * Ids in the order calls began, handed over as two request threads hand them: each sends its answered records in
 * batches (of 6 here), the second thread's a batch behind the first's.
 */
function answeredOrder(n: number): string[] {
  const ids = Array.from({ length: n }, () => newId('dec'));
  const a = ids.filter((_, i) => i % 2 === 0);
  const b = ids.filter((_, i) => i % 2 === 1);
  const out: string[] = [];
  for (let i = 0; i < a.length; i += 6) out.push(...a.slice(i, i + 6), ...b.slice(i - 6, i));
  out.push(...b.slice(out.length - a.length));
  return out;
}

const leafPages = (store: GatewayStore) => (store.decisions.getStats() as { treeLeafPageCount: number }).treeLeafPageCount;

describe('decision records put in key order', () => {
  it('fill the index as records in key order do, where records put as answered leave pages half full', async () => {
    const ids = answeredOrder(2400);
    const inOrder = tempStore();
    await Promise.all([...ids].sort().map((id) => writeDecision(inOrder, record(id))));
    const asAnswered = tempStore();
    await Promise.all(ids.map((id) => writeDecision(asAnswered, record(id))));
    const ordered = tempStore();
    const writes = new OrderedDecisionWrites(ordered, 60_000);
    const written = ids.map((id) => writes.write(record(id)));
    writes.flush();
    await Promise.all(written);
    // What the hold is for: records put as answered take a third more pages than the same records in key order.
    expect(new Set(ids).size).toBe(2400);
    expect(leafPages(asAnswered)).toBeGreaterThan(leafPages(inOrder) * 1.3);
    expect(leafPages(ordered)).toBe(leafPages(inOrder));
    expect(ordered.decisions.getKeysCount()).toBe(2400);
  });

  it('settle once committed: each record then reads back from the store', async () => {
    const store = tempStore();
    const writes = new OrderedDecisionWrites(store, 5);
    const ids = answeredOrder(30);
    await Promise.all(ids.map((id) => writes.write(record(id))));
    for (const id of ids) expect(store.decisions.get(['acme', id])).toMatchObject({ agent_id: 'bench-agent-17', model: 'gpt-4o-mini' });
  });

  it('are put at once, without waiting for their hold, past the most it may hold', async () => {
    const store = tempStore();
    const writes = new OrderedDecisionWrites(store, 60_000, 16);
    const ids = answeredOrder(16);
    await Promise.all(ids.map((id) => writes.write(record(id))));
    expect(store.decisions.getKeysCount()).toBe(16);
  });

  it("know when a call began from its id, and treat any other id as made when it arrives", () => {
    const before = Date.now();
    const t = idTime(newId('dec'));
    expect(t).toBeGreaterThanOrEqual(before);
    expect(t).toBeLessThanOrEqual(Date.now());
    expect(idTime('dec_from_thread')).toBeNaN();
    expect(idTime('dec_01JDZ!0000000000000000AA')).toBeNaN();
  });
});
