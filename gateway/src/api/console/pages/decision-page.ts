import type { DecisionRecord } from '../../../governance/decisions/decision-store.js';
import type { PolicyRecord } from '../../../policy/policy-record.js';
import type { DecisionLedgerView } from '../decision-entry.js';
import type { SampleLookup } from '../../../request-log/request-log.js';
import { MCP_TOOL_CALL_ENDPOINT, type RequestSample } from '../../../request-log/request-sample.js';
import { esc } from '../html-headers.js';
import { page, type Viewer } from './layout.js';

/** A row of a two-column table; `id` names the value cell for tests and links. */
function row(label: string, value: string, id = ''): string {
  return `<tr><th scope="row">${esc(label)}</th><td${id ? ` id="${id}"` : ''}>${value}</td></tr>`;
}

function mono(value: unknown): string {
  return `<span class="mono">${esc(value)}</span>`;
}

/** A policy by name, linked to it on the policies page; its id alone once it was deleted. */
function policyLink(id: string, policies: ReadonlyMap<string, PolicyRecord>): string {
  const p = policies.get(id);
  if (p) return `<a href="/console/policies#policy-${encodeURIComponent(id)}" data-policy-link="${esc(id)}">${esc(p.name)}</a>`;
  return `<span class="muted" data-policy-deleted="${esc(id)}">deleted policy</span> ${mono(id)}`;
}

/** The deciding rule: a policy's name, or a built-in rule (agent_suspended, rate limits of the plan) as it is. */
function ruleCell(rule: string, policies: ReadonlyMap<string, PolicyRecord>): string {
  if (!rule) return '<span class="muted">none (nothing fired)</span>';
  return policies.has(rule) || /^pol_/.test(rule) ? policyLink(rule, policies) : mono(rule);
}

function rulesSection(d: DecisionRecord, policies: ReadonlyMap<string, PolicyRecord>): string {
  const rows = d.triggered
    .map(
      (t) =>
        `<tr data-triggered="${esc(t.policyId)}"><td>${policyLink(t.policyId, policies)}</td><td>${esc(t.type)}</td><td>${esc(t.action)}</td><td>${t.risk}</td><td>${esc(t.reason ?? '')}</td></tr>`,
    )
    .join('');
  return `<h2>Rules that fired</h2><table id="rules"><thead><tr><th>Policy</th><th>Type</th><th>Action</th><th>Risk</th><th>Reason</th></tr></thead><tbody>${rows || '<tr><td colspan="5" class="muted">No rule fired.</td></tr>'}</tbody></table>`;
}

type Payload = Record<string, unknown>;

function entityCounts(value: unknown): [string, number][] {
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value as Record<string, unknown>).filter((e): e is [string, number] => typeof e[1] === 'number');
}

/** Entities and counts, never values: per entity where the entry records them, else the totals older entries keep. */
function redactionsSection(payload: Payload | null): string {
  if (!payload || (payload['input_redactions'] === undefined && payload['output_redactions'] === undefined)) {
    return '<h2>Redactions</h2><p class="muted" id="redactions">None recorded for this kind of action.</p>';
  }
  const rows: string[] = [];
  for (const side of ['input', 'output'] as const) {
    const total = payload[`${side}_redactions`];
    const byEntity = entityCounts(payload[`${side}_redaction_entities`]);
    if (byEntity.length > 0) {
      for (const [entity, count] of byEntity) rows.push(`<tr data-redaction="${side}" data-entity="${esc(entity)}"><td>${side}</td><td>${esc(entity)}</td><td class="count">${count}</td></tr>`);
    } else if (typeof total === 'number' && total > 0) {
      rows.push(`<tr data-redaction="${side}" data-entity=""><td>${side}</td><td class="muted">not recorded by entity</td><td class="count">${total}</td></tr>`);
    }
  }
  return `<h2>Redactions</h2><table id="redactions"><thead><tr><th>Where</th><th>Entity</th><th>Count</th></tr></thead><tbody>${rows.join('') || '<tr><td colspan="3" class="muted">Nothing was redacted.</td></tr>'}</tbody></table>`;
}

const num = (v: unknown): string => (typeof v === 'number' ? String(v) : '—');

/** The action as the ledger entry records it: a proxied call, an MCP tool call, or a decided action. */
function actionSection(d: DecisionRecord, payload: Payload | null): string {
  const rows = [row('Event type', mono(d.event_type), 'event-type'), row('Agent', esc(d.agent_id), 'agent')];
  const p = payload ?? {};
  if ('endpoint' in p) {
    const usage = (p['usage'] ?? {}) as Payload;
    rows.push(
      row('Endpoint', mono(p['endpoint'])),
      row('Model', mono(p['model']), 'model'),
      row('Outcome', esc(p['outcome']), 'outcome'),
      row('Streamed', p['stream'] ? 'yes' : 'no'),
      row('Tokens (prompt / completion / total)', `${num(usage['prompt_tokens'])} / ${num(usage['completion_tokens'])} / ${num(usage['total_tokens'])}`, 'usage'),
      // An unpriced model's cost is unknown, not 0 (console.md, "Costs").
      row('Cost (BRL)', p['priced'] === false ? 'unpriced (the model is in no price table)' : typeof p['cost_brl'] === 'number' ? p['cost_brl'].toFixed(6) : '—', 'cost'),
      row('Upstream status', num(p['upstream_status']), 'upstream-status'),
      row('Governance time', ms(p['governance_us']), 'latency'),
    );
  } else if ('tool' in p) {
    rows.push(
      row('Server', mono(p['server']), 'server'),
      row('Tool', mono(p['tool']), 'tool'),
      row('Outcome', esc(p['outcome']), 'outcome'),
      row('Call duration', typeof p['duration_ms'] === 'number' ? `${p['duration_ms']} ms` : '—'),
      row('Governance time', d.latency_ms !== undefined ? `${d.latency_ms} ms` : '—', 'latency'),
    );
  } else {
    const action = (p['action'] ?? {}) as Payload;
    if (payload) rows.push(row('Action', `${mono(action['type'])} ${action['method'] ? mono(action['method']) : ''} ${action['target'] ? mono(action['target']) : ''}`, 'action'));
    rows.push(row('Governance time', d.latency_ms !== undefined ? `${d.latency_ms} ms` : '—', 'latency'));
    if (d.cost_brl) rows.push(row('Cost (BRL)', d.cost_brl.toFixed(6), 'cost'));
  }
  rows.push(row('Trace id', mono(d.trace_id)), row('Policy set', mono(d.policy_version)), row('Policies evaluated', String(d.policies_evaluated)));
  return `<h2>Action</h2><table id="action"><tbody>${rows.join('')}</tbody></table>`;
}

const ms = (v: unknown): string => (typeof v === 'number' ? `${(v / 1000).toFixed(3)} ms` : '—');

/**
 * A routed call's attempts, as its entry records them (`route`, docs/routing.md): the model asked for, the target that
 * answered, and each attempt's target, model, credential name (never its secret), status or failure, and time.
 */
function routeSection(payload: Payload | null): string {
  const r = payload?.['route'];
  if (!r || typeof r !== 'object') return '';
  const route = r as Payload;
  const attempts = Array.isArray(route['attempts']) ? (route['attempts'] as Payload[]) : [];
  const rows = attempts.map(
    (a, i) =>
      `<tr data-attempt="${i + 1}"><td class="count">${i + 1}</td><td>${mono(a['target'])}</td><td>${mono(a['model'])}</td><td>${a['credential'] === undefined ? '<span class="muted">the caller\'s key</span>' : mono(a['credential'])}</td><td>${typeof a['status'] === 'number' ? String(a['status']) : esc(a['error'])}</td><td class="count">${typeof a['ms'] === 'number' ? `${Math.round(a['ms'])} ms` : '—'}</td></tr>`,
  );
  const answered = route['target'] ? mono(route['target']) : '<span class="muted">none</span>';
  return `<h2>Route</h2><p id="route-summary">Model asked for ${mono(route['model'])}; answered by ${answered} after ${attempts.length} attempt${attempts.length === 1 ? '' : 's'}.</p><table id="route-attempts"><thead><tr><th>#</th><th>Target</th><th>Model</th><th>Credential</th><th>Status</th><th>Time</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/**
 * A proxied call's time by stage, as its entry records it (`stages_us`, entries of earlier builds have none): the
 * governance before and after the upstream, and the provider's own time beside them, never counted as governance.
 */
function latencySection(payload: Payload | null): string {
  const s = payload?.['stages_us'];
  if (!s || typeof s !== 'object') return '';
  const t = s as Payload;
  const rows = [
    ['request', 'Request checks (before the upstream request)'],
    ['policies', '… of which policy evaluation'],
    ['redaction', '… of which input redaction'],
    ['upstream', 'Upstream (the provider; not governance)'],
    ['answer', 'Answer checks'],
  ].map(([key, label]) => `<tr data-stage="${key}"><td>${label}</td><td class="count">${ms(t[key as string])}</td></tr>`);
  rows.push(`<tr data-stage="governance"><td>Governance in all</td><td class="count">${ms(payload?.['governance_us'])}</td></tr>`);
  return `<h2>Latency by stage</h2><table id="latency-by-stage"><thead><tr><th>Stage</th><th>Time</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** The entry, the latest signed checkpoint and the inclusion proof (shared with the ledger browser's entry page). */
export function ledgerSection(view: DecisionLedgerView | null): string {
  if (!view) return '<h2>Ledger</h2><p class="muted" id="ledger-entry">The entries are held in the sidecars\' shipped chains; see the ledger page.</p>';
  const { entry, checkpoint, proof, publicKey } = view;
  if (!entry) return `<h2>Ledger</h2><p class="muted" id="ledger-entry">Entry ${esc(view.missing)}.</p>`;
  const entryTable = `<table id="ledger-entry"><tbody>${row('Seq', String(entry.seq), 'entry-seq')}${row('Hash', mono(entry.hash), 'entry-hash')}${row('Previous hash', mono(entry.prev_hash), 'entry-prev-hash')}${row('Chained at', mono(entry.created_at))}</tbody></table>`;
  let cp = '<p class="muted" id="checkpoint">No signed checkpoint yet.</p>';
  if (checkpoint) {
    const anchor = checkpoint.anchor
      ? checkpoint.anchor.status === 'anchored'
        ? `time-stamped by the TSA at ${mono(checkpoint.anchor.gen_time)}`
        : 'awaiting the time-stamp authority'
      : '<span class="muted">not time-stamped (anchoring is off for this tenant)</span>';
    cp = `<table id="checkpoint"><tbody>${row('Tree size', String(checkpoint.tree_size), 'checkpoint-size')}${row('Root hash', mono(checkpoint.root_hash), 'checkpoint-root')}${row('Signed at', mono(checkpoint.timestamp), 'checkpoint-timestamp')}${row('Key id', mono(checkpoint.key_id), 'checkpoint-key')}${row('Signature (Ed25519)', mono(checkpoint.signature), 'checkpoint-signature')}${row('Public key (raw, base64)', mono(publicKey.raw), 'public-key')}${row('Time-stamp', anchor, 'checkpoint-anchor')}</tbody></table>`;
  }
  const proofHtml = proof
    ? `<p>The entry is leaf ${proof.leaf_index} of the checkpoint's tree of ${proof.tree_size}; the leaf hash is SHA-256(0x00 ‖ entry hash), each step SHA-256(0x01 ‖ left ‖ right) (RFC 9162).</p><table id="proof"><tbody>${row('Leaf index', String(proof.leaf_index), 'proof-leaf-index')}${row('Tree size', String(proof.tree_size), 'proof-tree-size')}${row('Entry hash', mono(proof.entry_hash), 'proof-entry-hash')}${row('Root hash', mono(proof.root_hash), 'proof-root')}</tbody></table><h3>Audit path</h3><ol id="proof-path">${proof.audit_path.map((h) => `<li class="mono">${esc(h)}</li>`).join('')}</ol>`
    : `<p class="muted" id="proof">${checkpoint ? 'No signed checkpoint covers this entry yet (checkpoints follow CHECKPOINT_EVERY and CHECKPOINT_INTERVAL_S).' : 'No proof without a signed checkpoint.'}</p>`;
  return `<h2>Ledger entry</h2>${entryTable}<h2>Latest signed checkpoint</h2>${cp}<h2>Inclusion proof</h2>${proofHtml}`;
}

function resolutionSection(d: DecisionRecord): string {
  if (d.execution_status !== 'REQUIRE_APPROVAL' && d.execution_status !== 'ESCALATE') return '';
  const r = d.resolution;
  if (!r) return '<h2>Resolution</h2><p class="muted" id="resolution">Held: awaiting an admin (resolve it from the decisions list).</p>';
  return `<h2>Resolution</h2><table id="resolution"><tbody>${row('Resolution', esc(r.status), 'resolution-status')}${row('By', esc(r.resolved_by), 'resolution-by')}${row('At', mono(r.resolved_at), 'resolution-at')}${row('Note', esc(r.note) || '<span class="muted">none</span>', 'resolution-note')}</tbody></table>`;
}

function sampledText(id: string, label: string, text: string | null, truncated: boolean, none: string): string {
  if (text === null) return `<h3>${esc(label)}</h3><p class="muted" id="${id}">${esc(none)}</p>`;
  const cut = truncated ? `<p class="muted" id="${id}-truncated">Truncated: only its first 64 KiB were kept.</p>` : '';
  return `<h3>${esc(label)}</h3><pre class="sample" id="${id}" tabindex="0">${esc(text)}</pre>${cut}`;
}

/** The labels of a sample's two texts: a proxied call's request and answer, or an MCP tool call's arguments and result. */
function sampleTexts(s: RequestSample): string {
  if (s.endpoint === MCP_TOOL_CALL_ENDPOINT) {
    const what = `As sent to the MCP server and as returned to the agent, after PII redaction; sampled at <span class="mono">${esc(s.sampled_at)}</span>${s.stream ? ' (the result came as the final message of an event stream)' : ''}.`;
    return `<p class="muted">${what}</p>${sampledText('sample-request', 'Arguments (as sent to the server)', s.request, s.request_truncated, 'Not kept: the call was refused before it was sent, so its arguments were never redacted.')}${sampledText('sample-answer', 'Result (as returned to the agent)', s.answer, s.answer_truncated, "Not kept: the agent got the gateway's own error (a refusal, an output policy's block, a server that failed) or the server's error.")}`;
  }
  return `<p class="muted">As forwarded and as returned, after PII redaction; sampled at <span class="mono">${esc(s.sampled_at)}</span>${s.stream ? ' (a streamed answer: the text its events carried)' : ''}.</p>${sampledText('sample-request', 'Request (as sent upstream)', s.request, s.request_truncated, 'Nothing was forwarded upstream.')}${sampledText('sample-answer', 'Answer (as returned to the agent)', s.answer, s.answer_truncated, 'Not kept: the answer was the gateway\'s own (a refusal or an error), an output policy cut it, or it was not a JSON answer the output checks read.')}`;
}

/** The call's sampled texts (docs/console.md, "Request log"): only ever as redacted, escaped here. */
function sampleSection(d: DecisionRecord, lookup: SampleLookup): string {
  const h = '<h2>Sampled request and answer</h2>';
  if (!d.event_type.startsWith('proxy.') && d.event_type !== MCP_TOOL_CALL_ENDPOINT) return `${h}<p class="muted" id="sample">Only proxied calls and MCP tool calls are sampled.</p>`;
  switch (lookup.kind) {
    case 'off':
      return `${h}<p class="muted" id="sample" data-sample="off">Not sampled: the request log is off (see <a href="/console/settings">settings</a>).</p>`;
    case 'not_sampled':
      return `${h}<p class="muted" id="sample" data-sample="not-sampled">Not sampled: this call was not drawn for the request log.</p>`;
    case 'unreadable':
      return `${h}<p class="muted" id="sample" data-sample="unreadable">A sample was kept but cannot be opened with this gateway's REQUEST_LOG_KEY.</p>`;
    case 'elsewhere':
      return `${h}<p class="muted" id="sample" data-sample="elsewhere">Samples stay at the sidecar that made the call${lookup.sidecar ? `, instance <span class="mono" id="sample-sidecar">${esc(lookup.sidecar)}</span> (its <span class="mono">/health</span> names it)` : ''}, on its own console; this control plane keeps none.</p>`;
    case 'sampled':
      return `${h}<div id="sample" data-sample="sampled">${sampleTexts(lookup.sample)}</div>`;
  }
}

/** Why a decision was judged so (docs/console.md, "Decision page"). */
export function decisionPage(v: Viewer, d: DecisionRecord, policies: ReadonlyMap<string, PolicyRecord>, view: DecisionLedgerView | null, sample: SampleLookup | null = null): string {
  const payload = view?.entry?.payload ?? null;
  const summary = `<table id="summary"><tbody>${row('Verdict', `<span class="verdict verdict-${esc(d.execution_status)}">${esc(d.execution_status)}</span>`, 'verdict')}${row('Deciding rule', ruleCell(d.rule, policies), 'rule')}${row('Risk score', String(d.risk_score))}${row('Decision', mono(d.decision_id))}${row('Time', mono(d.created_at))}</tbody></table>`;
  const body = `<p><a href="/console/decisions?since=all">← All decisions</a></p>${summary}${rulesSection(d, policies)}${redactionsSection(payload)}${actionSection(d, payload)}${routeSection(payload)}${latencySection(payload)}${sample ? sampleSection(d, sample) : ''}${resolutionSection(d)}${ledgerSection(view)}`;
  return page(v, 'decisions', `Decision ${d.decision_id}`, body);
}
