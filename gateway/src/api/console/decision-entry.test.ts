import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LedgerInput } from '../../ledger/index.js';
import type { DecisionRecord } from '../../governance/decisions/decision-store.js';
import { TempLedger } from '../../../test/helpers/ledger/temp-ledger.js';
import { ENTRY_SEARCH_LIMIT, findDecisionEntry } from './decision-entry.js';

const T0 = Date.parse('2026-11-01T00:00:00.000Z');
const N = ENTRY_SEARCH_LIMIT * 2 + 500;
let tl: TempLedger;

const at = (minute: number): string => new Date(T0 + minute * 60_000).toISOString();
const entry = (i: number, createdAt = at(i)): LedgerInput => ({
  event_type: 'decision',
  payload: { i },
  metadata: { agent_id: 'agent-a' },
  decision: { decision_id: `dec_${i}` },
  created_at: createdAt,
});
const decision = (id: string, createdAt: string): DecisionRecord => ({
  decision_id: id,
  tenant_id: 't1',
  agent_id: 'agent-a',
  execution_status: 'ALLOW',
  risk_score: 0,
  event_type: 'decision',
  trace_id: '',
  created_at: createdAt,
  rule: '',
  policy_version: 'v1',
  policies_evaluated: 0,
  triggered: [],
  resolution: null,
});

beforeAll(async () => {
  tl = new TempLedger();
  // One agent's decisions a minute apart; at 310 a long call's, chained 10 minutes after its decision's time (within
  // the search's slack for calls in progress).
  for (let from = 0; from < N; from += 1000) {
    const batch: LedgerInput[] = [];
    for (let i = from; i < Math.min(N, from + 1000); i++) batch.push(i === 310 ? { ...entry(i), decision: { decision_id: 'dec_long' }, created_at: at(300) } : entry(i));
    await tl.ledger.append('t1', batch);
  }
}, 60_000);

afterAll(async () => {
  await tl?.dispose();
});

describe("a decision's ledger entry, found by time and agent without an index of its own", () => {
  it('finds an old decision with more than the search bound of the same agent and type after it', () => {
    expect(N - 100).toBeGreaterThan(ENTRY_SEARCH_LIMIT);
    expect(findDecisionEntry(tl.ledger, decision('dec_100', at(100)))?.seq).toBe(101);
  });

  it('finds the newest, and an entry chained long after its decision time', () => {
    expect(findDecisionEntry(tl.ledger, decision(`dec_${N - 1}`, at(N - 1)))?.seq).toBe(N);
    expect(findDecisionEntry(tl.ledger, decision('dec_long', at(300)))?.seq).toBe(311);
  });

  it('finds nothing for a decision not in the chain, or of another agent', () => {
    expect(findDecisionEntry(tl.ledger, decision('dec_missing', at(500)))).toBeNull();
    expect(findDecisionEntry(tl.ledger, { ...decision('dec_500', at(500)), agent_id: 'agent-b' })).toBeNull();
  });
});
