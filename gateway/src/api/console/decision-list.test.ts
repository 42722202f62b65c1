import { describe, expect, it } from 'vitest';
import { ulid } from '@aduana/shared';
import type { DecisionRecord } from '../../governance/decisions/decision-store.js';
import { pageDecisions, type DecisionFilter } from './decision-list.js';
import { csvCell, decisionsCsv } from './decisions-csv.js';

const T0 = Date.parse('2026-11-01T00:00:00.000Z');
/** Newest first, as the store's key order reads them: one a second, every third DENY. */
const STORE: DecisionRecord[] = Array.from({ length: 1000 }, (_, i) => ({
  decision_id: `dec_${ulid(T0 + i * 1000)}`,
  tenant_id: 't1',
  agent_id: i % 2 ? 'agent-odd' : 'agent-even',
  execution_status: i % 3 === 0 ? ('DENY' as const) : ('ALLOW' as const),
  risk_score: 0,
  event_type: 'decision',
  trace_id: `trace-${i}`,
  created_at: new Date(T0 + i * 1000).toISOString(),
  rule: i % 3 === 0 ? 'pol_x' : '',
  policy_version: 'v1',
  policies_evaluated: 1,
  triggered: [],
  resolution: null,
})).reverse();

let reads = 0;
const recent = (limit: number, below: string | undefined): DecisionRecord[] => {
  const out = STORE.filter((d) => below === undefined || d.decision_id < below).slice(0, limit);
  reads += out.length;
  return out;
};
const get = (id: string) => STORE.find((d) => d.decision_id === id);
const filter = (f: Partial<DecisionFilter>): DecisionFilter => ({ verdict: '', agent: '', rules: new Set(), search: '', from: -Infinity, to: Infinity, before: null, limit: 50, ...f });

function all(f: DecisionFilter, scanLimit: number): { ids: string[]; pages: number } {
  const ids: string[] = [];
  let before: string | null = null;
  let pages = 0;
  for (;;) {
    const page = pageDecisions(recent, get, { ...f, before }, scanLimit);
    pages++;
    ids.push(...page.rows.map((d) => d.decision_id));
    if (page.next === null) return { ids, pages };
    before = page.next;
  }
}

describe('decision list paging', () => {
  it('an unfiltered page reads its rows and one more', () => {
    reads = 0;
    const page = pageDecisions(recent, get, filter({}), 5000);
    expect(page.rows.map((d) => d.decision_id)).toEqual(STORE.slice(0, 50).map((d) => d.decision_id));
    expect(reads).toBe(51);
    expect(page.next).toBe(STORE[49]!.decision_id);
  });

  it('cursor pages visit every matching decision once, in order; a scan stopped by its limit says so and resumes', () => {
    expect(all(filter({}), 5000).ids).toEqual(STORE.map((d) => d.decision_id));
    const denied = STORE.filter((d) => d.execution_status === 'DENY').map((d) => d.decision_id);
    expect(all(filter({ verdict: 'DENY' }), 5000).ids).toEqual(denied);
    // A scan limit of 100 reads: each page stops early, is marked incomplete, and the pages still add up to all of them.
    const first = pageDecisions(recent, get, filter({ verdict: 'DENY', limit: 50 }), 100);
    expect(first.complete).toBe(false);
    expect(first.scanned).toBe(100);
    expect(first.rows.length).toBe(34);
    const walked = all(filter({ verdict: 'DENY', limit: 50 }), 100);
    expect(walked.ids).toEqual(denied);
    // Ten scans of 100, and one that finds nothing is left (the tenth read exactly up to the end).
    expect(walked.pages).toBe(11);
  });

  it('a time range reads from where `to` puts it and stops at `from`', () => {
    const from = T0 + 100_000;
    const to = T0 + 199_000;
    reads = 0;
    const page = pageDecisions(recent, get, filter({ from, to, limit: 200 }), 5000);
    expect(page.rows.map((d) => d.created_at)).toEqual(STORE.filter((d) => Date.parse(d.created_at) >= from && Date.parse(d.created_at) <= to).map((d) => d.created_at));
    expect(page.next).toBeNull();
    // Not the decisions after `to` (beyond a second of slack) nor those more than 15 minutes before `from`.
    expect(reads).toBeLessThan(100 + 2 + 901);
  });

  it('search: a decision id is one read; a trace id exactly; an agent id by its start', () => {
    reads = 0;
    const target = STORE[10]!;
    expect(pageDecisions(recent, get, filter({ search: target.decision_id }), 5000).rows).toEqual([target]);
    expect(reads).toBe(0);
    expect(pageDecisions(recent, get, filter({ search: 'trace-5' }), 5000).rows.map((d) => d.trace_id)).toEqual(['trace-5']);
    expect(pageDecisions(recent, get, filter({ search: 'agent-o', limit: 200 }), 5000).rows.every((d) => d.agent_id === 'agent-odd')).toBe(true);
  });
});

describe('decisions CSV', () => {
  it('quotes per RFC 4180 and neutralises cells a spreadsheet would run', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    for (const bad of ['=cmd', '+1', '-1+2', '@SUM(A1)', '\tx', '\rx']) expect(csvCell(bad).replace(/^"/, '').startsWith(`'${bad[0]}`)).toBe(true);
    expect(csvCell('=a,b')).toBe(`"'=a,b"`);
    expect(csvCell(-1)).toBe('-1');
    expect(csvCell(undefined)).toBe('');
  });

  it('stops at the row cap and says so', async () => {
    const read = (f: DecisionFilter) => pageDecisions(recent, get, f, 5000);
    const capped = await decisionsCsv(read, filter({}), 120);
    expect(capped.rows).toBe(120);
    expect(capped.truncated).toBe(true);
    const text = Buffer.concat(capped.chunks).toString();
    expect(text.split('\r\n').length).toBe(1 + 120 + 1);
    // Exactly as many decisions as the cap: all of them, not truncated.
    const exact = await decisionsCsv(read, filter({}), 1000);
    expect([exact.rows, exact.truncated]).toEqual([1000, false]);
    const whole = await decisionsCsv(read, filter({ verdict: 'DENY' }), 100_000);
    expect(whole.truncated).toBe(false);
    expect(whole.rows).toBe(334);
  });
});
