import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openGatewayStore, type GatewayStore } from '../../storage/gateway-store.js';
import { TenantLimits } from './tenant-limits.js';
import { periodKey } from '../tenant-state.js';

const BUDGET = { evalBurstMs: 2000, evalPerSecondMs: 250 };
let dir = '';
let store: GatewayStore | null = null;
afterEach(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('agent spend', () => {
  it('is visible at once, written to LMDB by flushSpend, and read back by a new process', async () => {
    dir = mkdtempSync(join(tmpdir(), 'aduana-spend-'));
    store = openGatewayStore(dir);
    const limits = () => new TenantLimits(store!.counters, BUDGET);
    const now = Date.parse('2026-11-22T10:00:00Z');
    const a = limits();
    a.addSpend('acme', 'bot', 0.25, now);
    a.addSpend('acme', 'bot', 0.5, now);
    a.addSpend('acme', 'other', 1, now);
    const day = `bot\u0000${periodKey('day', now)}`;
    expect(a.state('acme').spent(day, now)).toBe(0.75);
    // Not written yet: a new process (its own memory) would not see it.
    expect(limits().state('acme').spent(day, now)).toBe(0);
    await a.flushSpend();
    const b = limits();
    expect(b.state('acme').spent(day, now)).toBe(0.75);
    expect(b.state('acme').spent(`bot\u0000${periodKey('month', now)}`, now)).toBe(0.75);
    expect(b.state('acme').spent(`other\u0000${periodKey('day', now)}`, now)).toBe(1);
    expect(b.state('globex').spent(day, now)).toBe(0);
  });
});
