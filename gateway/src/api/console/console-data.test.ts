import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isoTime } from '@aduana/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { openGatewayStore } from '../../storage/gateway-store.js';
import { DecisionStore, type DecisionRecord } from '../../governance/decisions/decision-store.js';
import { DecisionConsoleData } from './console-data.js';
import { overviewPage } from './pages/overview-page.js';
import type { Viewer } from './pages/layout.js';

// The overview reads the newest CONSOLE_SCAN_LIMIT decisions: when the range holds more, it must say its figures are
// those decisions', not the range's (console.md, "Overview").
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const NOW = Date.parse('2026-11-27T12:00:00.000Z');
const decision = (n: number, atMs: number, status: DecisionRecord['execution_status']): DecisionRecord => ({
  decision_id: `dec_${String(n).padStart(8, '0')}`,
  tenant_id: 'acme',
  agent_id: 'agent-1',
  execution_status: status,
  risk_score: 0,
  event_type: 'decision',
  trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
  created_at: isoTime(atMs),
  rule: '',
  policy_version: 'v1',
  policies_evaluated: 1,
  triggered: [],
  resolution: null,
  latency_ms: 0.1,
});

async function storeWith(records: DecisionRecord[]) {
  const dir = mkdtempSync(join(tmpdir(), 'aduana-console-data-'));
  dirs.push(dir);
  const store = openGatewayStore(dir);
  const decisions = new DecisionStore(store);
  await Promise.all(records.map((r) => decisions.record(r)));
  return decisions;
}

const agents = { intervalMs: 30_000, list: () => ({ data: [], next_cursor: null }) } as unknown as ConstructorParameters<typeof DecisionConsoleData>[1];

describe('the overview over the newest decisions', () => {
  it('counts every decision of the range when the scan reaches its start, and says when it does not', async () => {
    // Ten decisions in the last hour (one per 5 minutes, the newest last), two of them held, and one a day earlier.
    const records = Array.from({ length: 10 }, (_, i) => decision(i + 1, NOW - 3_000_000 + i * 300_000, i % 5 === 0 ? 'REQUIRE_APPROVAL' : 'ALLOW'));
    records.push(decision(0, NOW - 86_400_000, 'DENY'));
    const store = await storeWith(records);

    const whole = new DecisionConsoleData(store, agents, 100).overview('acme', NOW - 3_600_000, NOW, 12);
    expect(whole).toMatchObject({ total: 10, held: 2, complete: true });
    expect(Object.values(whole.byVerdict).flat().reduce((a, b) => a + b, 0)).toBe(10);

    // The range starts before the oldest decision stored: every decision was read, so the figures are complete.
    expect(new DecisionConsoleData(store, agents, 100).overview('acme', NOW - 7 * 86_400_000, NOW, 12)).toMatchObject({ total: 11, complete: true });

    // Only the newest 4 are read: the range holds more, and the overview says so.
    const partial = new DecisionConsoleData(store, agents, 4).overview('acme', NOW - 3_600_000, NOW, 12);
    expect(partial).toMatchObject({ total: 4, complete: false, scanLimit: 4 });

    const viewer: Viewer = { csrf: 'x', principal: { kind: 'session', id: 'ses_1', tenantId: 'acme', role: 'viewer', scopes: ['runtime:read'], userId: 'usr_1', email: 'v@example.com', agentId: null } };
    expect(overviewPage(viewer, partial, '1h')).toContain('than the newest 4 that the overview reads');
    expect(overviewPage(viewer, whole, '1h')).not.toContain('id="partial"');
  });
});
