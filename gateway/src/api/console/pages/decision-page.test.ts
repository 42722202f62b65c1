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

describe('the decision page of a routed call', () => {
  it('lists every attempt (target, model, credential name, status or failure, time) and the target that answered, escaped', () => {
    const route = {
      attempts: [
        { credential: 'key-a', error: 'refused', ms: 2.4, model: 'gpt-4o', target: 'down' },
        { ms: 310, model: 'gpt-4o-mini', status: 200, target: '<b>backup</b>' },
      ],
      model: 'gpt-4o',
      target: '<b>backup</b>',
    };
    const html = decisionPage(viewer, decision, new Map(), view({ endpoint: 'chat', model: 'gpt-4o-mini', outcome: 'completed', route }));
    expect(html).toContain('<h2>Route</h2>');
    const m = (v: string) => `<span class="mono">${v}</span>`;
    expect(html).toContain(`<p id="route-summary">Model asked for ${m('gpt-4o')}; answered by ${m('&lt;b&gt;backup&lt;/b&gt;')} after 2 attempts.</p>`);
    expect(html).toContain(`<tr data-attempt="1"><td class="count">1</td><td>${m('down')}</td><td>${m('gpt-4o')}</td><td>${m('key-a')}</td><td>refused</td><td class="count">2 ms</td></tr>`);
    expect(html).toContain(`<tr data-attempt="2"><td class="count">2</td><td>${m('&lt;b&gt;backup&lt;/b&gt;')}</td><td>${m('gpt-4o-mini')}</td><td><span class="muted">the caller's key</span></td><td>200</td><td class="count">310 ms</td></tr>`);
    expect(html).not.toContain('<b>backup</b>');
  });

  it('a call the default route served has no route section', () => {
    expect(decisionPage(viewer, decision, new Map(), view({ endpoint: 'chat', model: 'gpt-4o', outcome: 'completed' }))).not.toContain('id="route-attempts"');
  });
});
