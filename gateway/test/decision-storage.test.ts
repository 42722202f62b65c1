import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openGatewayStore, type GatewayStore } from '../src/storage/gateway-store.js';
import type { DecisionRecord } from '../src/decisions/decision-store.js';

function decision(i: number): DecisionRecord {
  return {
    decision_id: `dec_01M84NHVNRGY7KW3W5NEMRG${String(i).padStart(3, '0')}`,
    tenant_id: 'acme',
    agent_id: `agent-${i}`,
    execution_status: 'ALLOW',
    risk_score: 0,
    event_type: 'proxy.chat.completions',
    trace_id: '98450dfa1315907ebcfd87b1cc4fd48c',
    created_at: '2026-11-23T16:59:13.046Z',
    rule: '',
    policy_version: 'v1',
    policies_evaluated: 6,
    triggered: [],
    resolution: null,
  };
}

describe('decision records on disk', () => {
  let dir: string | undefined;
  let store: GatewayStore | undefined;
  afterEach(async () => {
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    store = undefined;
    dir = undefined;
  });

  it('are stored compressed and read back whole; records written uncompressed before still read', async () => {
    dir = mkdtempSync(join(tmpdir(), 'aduana-decisions-'));
    store = openGatewayStore(dir);
    // The bytes as LMDB holds them, and the same database without decompression (how an older gateway wrote it).
    const stored = store.root.openDB<Buffer>({ name: 'decisions', encoding: 'binary' });
    const plain = store.root.openDB({ name: 'decisions' });
    await store.decisions.put(['acme', decision(1).decision_id], decision(1));
    await plain.put(['acme', decision(2).decision_id], decision(2));

    const compressed = stored.get(['acme', decision(1).decision_id])!;
    const uncompressed = stored.get(['acme', decision(2).decision_id])!;
    expect(compressed[0]).toBeGreaterThanOrEqual(250);
    expect(uncompressed[0]).toBeLessThan(250);
    expect(compressed.length).toBeLessThan(uncompressed.length * 0.75);
    expect(store.decisions.get(['acme', decision(1).decision_id])).toEqual(decision(1));
    expect(store.decisions.get(['acme', decision(2).decision_id])).toEqual(decision(2));

    // And after a restart.
    await store.close();
    store = openGatewayStore(dir);
    expect(store.decisions.get(['acme', decision(1).decision_id])).toEqual(decision(1));
    expect(store.decisions.get(['acme', decision(2).decision_id])).toEqual(decision(2));
  });
});
