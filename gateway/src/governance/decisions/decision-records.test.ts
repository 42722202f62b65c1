import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '@aduana/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { openGatewayStore } from '../../storage/gateway-store.js';
import { DecisionStore, type DecisionRecord } from './decision-store.js';

// The decisions database stores msgpack records with shared structures (key names once per shape, not per value).
// Data directories written before kept every record as a plain msgpack map: those must still read and resolve, and
// what is written now must read back after a restart, when the shapes come from the database again.
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const decision = (id: string, status: DecisionRecord['execution_status'], extra: Partial<DecisionRecord> = {}): DecisionRecord => ({
  decision_id: id,
  tenant_id: 'acme',
  agent_id: 'agent-7',
  execution_status: status,
  risk_score: 42.5,
  event_type: 'llm_call',
  trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
  created_at: '2026-11-25T20:01:02.123Z',
  rule: status === 'ALLOW' ? '' : 'pii-guard',
  policy_version: 'v3',
  policies_evaluated: 6,
  triggered: status === 'ALLOW' ? [] : [{ policyId: 'pii-guard', type: 'pii_redaction', action: 'REQUIRE_APPROVAL', risk: 40, reason: 'email address' }],
  resolution: null,
  ...extra,
});

describe('decision records on disk', () => {
  it('reads and resolves records an earlier build wrote as plain maps, next to new ones, across a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aduana-decisions-'));
    dirs.push(dir);
    // As an earlier build wrote them: the database opened without shared structures.
    const before = openStore(dir, 'gateway', { maxDbs: 48 });
    const old = before.openDB({ name: 'decisions' });
    const oldHeld = decision('dec_01JDA000000000000000000001', 'REQUIRE_APPROVAL');
    const oldAllowed = decision('dec_01JDA000000000000000000002', 'ALLOW', { latency_ms: 0.07 });
    await old.put(['acme', oldHeld.decision_id], oldHeld);
    await old.put(['acme', oldAllowed.decision_id], oldAllowed);
    const mapBytes = old.getBinary(['acme', oldAllowed.decision_id])!.length;
    await before.close();

    let store = openGatewayStore(dir);
    let decisions = new DecisionStore(store);
    expect(decisions.get('acme', oldAllowed.decision_id)).toEqual(oldAllowed);
    const fresh = decision('dec_01JDB000000000000000000003', 'ALLOW', { latency_ms: 0.07 });
    await decisions.record(fresh);
    await decisions.record(decision('dec_01JDB000000000000000000004', 'REQUIRE_APPROVAL'));
    // The same record, its key names no longer repeated in the value, nor the ids its key holds.
    expect(store.decisions.getBinary(['acme', fresh.decision_id])!.length).toBeLessThan(mapBytes / 2);
    expect(store.decisions.get(['acme', fresh.decision_id])).not.toHaveProperty('decision_id');
    expect(store.decisions.get(['acme', fresh.decision_id])).not.toHaveProperty('tenant_id');
    // The instant as Unix ms and the trace id as its bytes, where they read back exactly; other forms as they are.
    expect(store.decisions.get(['acme', fresh.decision_id])).toMatchObject({ created_at: Date.parse(fresh.created_at), trace_id: Buffer.from(fresh.trace_id, 'hex') });
    const odd = decision('dec_01JDB000000000000000000006', 'ALLOW', { created_at: '2026-11-25T20:01:02Z', trace_id: '4BF92F3577B34DA6A3CE929D0E0E4736' });
    await decisions.record(odd);
    expect(store.decisions.get(['acme', odd.decision_id])).toMatchObject({ created_at: odd.created_at, trace_id: odd.trace_id });
    expect(decisions.get('acme', odd.decision_id)).toEqual(odd);
    // A record with its ids in the value, as the build before wrote them with shared structures, reads as it was.
    const withIds = decision('dec_01JDA000000000000000000005', 'ALLOW', { cost_brl: 0.0002 });
    await store.decisions.put(['acme', withIds.decision_id], withIds);
    expect(decisions.get('acme', withIds.decision_id)).toEqual(withIds);
    const outcome = await decisions.resolve('acme', oldHeld.decision_id, { status: 'APPROVED', note: 'checked', resolved_by: 'usr_1', resolved_at: '2026-11-25T21:00:00.000Z' });
    expect(outcome.kind).toBe('resolved');
    await store.close();

    // A restart: the record shapes are read back from the database.
    store = openGatewayStore(dir);
    decisions = new DecisionStore(store);
    expect(decisions.get('acme', fresh.decision_id)).toEqual(fresh);
    expect(decisions.get('acme', oldHeld.decision_id)?.resolution).toEqual({ status: 'APPROVED', note: 'checked', resolved_by: 'usr_1', resolved_at: '2026-11-25T21:00:00.000Z' });
    expect(decisions.recent('acme', 10).map((d) => [d.decision_id, d.tenant_id])).toEqual([
      ['dec_01JDB000000000000000000006', 'acme'],
      ['dec_01JDB000000000000000000004', 'acme'],
      ['dec_01JDB000000000000000000003', 'acme'],
      ['dec_01JDA000000000000000000005', 'acme'],
      ['dec_01JDA000000000000000000002', 'acme'],
      ['dec_01JDA000000000000000000001', 'acme'],
    ]);
    expect(decisions.recent('acme', 10)[2]).toEqual(fresh);
    expect(decisions.get('acme', odd.decision_id)).toEqual(odd);
    const resolvedNew = await decisions.resolve('acme', 'dec_01JDB000000000000000000004', { status: 'REJECTED', note: '', resolved_by: 'usr_1', resolved_at: '2026-11-25T21:01:00.000Z' });
    expect(resolvedNew.kind).toBe('resolved');
    expect(decisions.get('acme', 'dec_01JDB000000000000000000004')).toMatchObject({ decision_id: 'dec_01JDB000000000000000000004', tenant_id: 'acme', resolution: { status: 'REJECTED' } });
    await store.close();
  });
});
