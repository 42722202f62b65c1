import { describe, expect, it } from 'vitest';
import type { DecisionRecord } from '../../../governance/decisions/decision-store.js';
import type { LedgerEntry } from '../../../ledger/index.js';
import type { DecisionLedgerView } from '../decision-entry.js';
import { decisionPage } from './decision-page.js';
import type { Viewer } from './layout.js';

const viewer: Viewer = {
  principal: { kind: 'session', id: 'ses_1', tenantId: 't1', role: 'viewer', scopes: ['runtime:read'], userId: 'usr_1', email: 'v@example.com', agentId: null },
  csrf: 'x',
};

const decision: DecisionRecord = {
  decision_id: 'dec_1',
  tenant_id: 't1',
  agent_id: 'agent-a',
  execution_status: 'ALLOW',
  risk_score: 10,
  event_type: 'proxy.chat.completions',
  trace_id: 'ab'.repeat(16),
  created_at: '2026-01-01T00:00:00.000Z',
  rule: 'pol_gone',
  policy_version: 'v1',
  policies_evaluated: 1,
  triggered: [{ policyId: 'pol_gone', type: 'pii_redaction', action: 'REDACT', risk: 10, reason: 'personal data in input: EMAIL' }],
  resolution: null,
};

function view(payload: Record<string, unknown>): DecisionLedgerView {
  const entry: LedgerEntry = { seq: 1, tenant_id: 't1', prev_hash: '0'.repeat(64), hash: '1'.repeat(64), event_type: decision.event_type, payload, metadata: {}, decision: null, created_at: decision.created_at };
  return { entry, missing: '', checkpoint: null, proof: null, publicKey: { key_id: 'k', pem: '', raw: '' } };
}

describe('the decision page, rendered', () => {
  it('an entry written before per-entity counts shows its totals, never a value, and says the entity was not recorded', () => {
    const html = decisionPage(viewer, decision, new Map(), view({ endpoint: 'chat', input_redactions: 3, output_redactions: 0, model: 'gpt-4o', outcome: 'completed' }));
    expect(html).toMatch(/<tr data-redaction="input" data-entity=""><td>input<\/td><td class="muted">not recorded by entity<\/td><td class="count">3<\/td><\/tr>/);
    expect(html).not.toContain('data-redaction="output"');
  });

  it('a policy deleted since is named by its id; an action without redaction fields says none are recorded', () => {
    const html = decisionPage(viewer, { ...decision, event_type: 'decision' }, new Map(), view({ action: { type: 'chat', method: null, target: null } }));
    expect(html).toContain('data-policy-deleted="pol_gone"');
    expect(html).toContain('None recorded for this kind of action.');
    expect(html).toContain('No signed checkpoint yet.');
  });
});
