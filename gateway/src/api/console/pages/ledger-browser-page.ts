import type { LedgerEntry } from '../../../ledger/index.js';
import type { AnchoredCheckpoint } from '../../../ledger/merkle/checkpoint.js';
import type { DecisionLedgerView } from '../decision-entry.js';
import type { EntriesPage } from '../ledger-browser.js';
import { esc } from '../html-headers.js';
import { ledgerSection } from './decision-page.js';
import { page, type Viewer } from './layout.js';

/** Where the chains are the sidecars' (a control plane): what to read instead. */
const PER_CHAIN_NOTE =
  'This control plane holds the chains its sidecars shipped, one per sidecar: read their entries per chain through <span class="mono">GET /v1/events?chain_id=…</span>, their proofs through <span class="mono">GET /v1/events/proofs/inclusion</span> and their checkpoints through <span class="mono">GET /v1/events/checkpoints?chain_id=…</span> (docs/fleet.md).';

const decisionIdOf = (e: LedgerEntry): string => {
  const id = e.decision?.['decision_id'];
  return typeof id === 'string' ? id : '';
};

const decisionLink = (id: string): string =>
  id ? `<a class="mono" href="/console/decisions/${encodeURIComponent(id)}" data-decision-link="${esc(id)}">${esc(id)}</a>` : '<span class="muted">—</span>';

const agentOf = (e: LedgerEntry): string => {
  const a = e.metadata['agent_id'];
  return typeof a === 'string' ? a : '';
};

/** The entries section of the ledger page: newest first, a cursor link to older ones. null: the chains are not held here. */
export function entriesSection(result: EntriesPage | null, paged: boolean): string {
  if (result === null) return `<h2>Entries</h2><p class="muted" id="entries-per-chain">${PER_CHAIN_NOTE}</p>`;
  const rows = result.entries
    .map(
      (e) =>
        `<tr data-seq="${e.seq}"><td><a href="/console/ledger/entries/${e.seq}" data-entry="${e.seq}">#${e.seq}</a></td><td><time datetime="${esc(e.created_at)}">${esc(e.created_at)}</time></td><td class="mono">${esc(e.event_type)}</td><td>${esc(agentOf(e))}</td><td>${decisionLink(decisionIdOf(e))}</td><td><span class="mono" title="${esc(e.hash)}">${esc(e.hash.slice(0, 12))}…</span></td></tr>`,
    )
    .join('');
  const links: string[] = [];
  if (paged) links.push('<a id="entries-newest" href="/console/ledger">Newest</a>');
  if (result.next !== null) links.push(`<a id="entries-older" rel="next" href="/console/ledger?cursor=${encodeURIComponent(result.next)}">Older entries</a>`);
  return `<h2>Entries</h2><p class="muted">Newest first; times in <span data-time-zone>UTC</span>. <a href="/console/ledger/checkpoints" id="checkpoints-link">All signed checkpoints</a></p>
<table id="entries"><thead><tr><th>Seq</th><th>Time</th><th>Event type</th><th>Agent</th><th>Decision</th><th>Entry hash</th></tr></thead><tbody>${rows || '<tr><td colspan="6" class="muted">No entries.</td></tr>'}</tbody></table>
${links.length ? `<p class="pages">${links.join(' · ')}</p>` : ''}<script src="/console/assets/local-time.js" defer></script>`;
}

const json = (v: unknown): string => `<pre class="mono">${esc(JSON.stringify(v, null, 2))}</pre>`;

/** One entry: its fields, hash and previous hash, and its inclusion proof against the latest signed checkpoint. */
export function ledgerEntryPage(v: Viewer, view: DecisionLedgerView & { entry: LedgerEntry }): string {
  const e = view.entry;
  const row = (label: string, value: string, id: string) => `<tr><th scope="row">${esc(label)}</th><td id="${id}">${value}</td></tr>`;
  const fields = `<table id="entry-fields"><tbody>${row('Seq', String(e.seq), 'field-seq')}${row('Time', `<time datetime="${esc(e.created_at)}">${esc(e.created_at)}</time>`, 'field-time')}${row('Event type', `<span class="mono">${esc(e.event_type)}</span>`, 'field-event-type')}${row('Agent', esc(agentOf(e)) || '<span class="muted">—</span>', 'field-agent')}${row('Decision', decisionLink(decisionIdOf(e)), 'field-decision')}</tbody></table>
<details><summary>Payload, metadata and decision as chained</summary><h3>Payload</h3>${json(e.payload)}<h3>Metadata</h3>${json(e.metadata)}<h3>Decision</h3>${json(e.decision)}</details>`;
  const body = `<p><a href="/console/ledger">← All entries</a></p>${fields}${ledgerSection(view)}<script src="/console/assets/local-time.js" defer></script>`;
  return page(v, 'ledger', `Ledger entry #${e.seq}`, body);
}

function anchorCell(cp: AnchoredCheckpoint): string {
  if (!cp.anchor) return '<span class="muted">not time-stamped</span>';
  if (cp.anchor.status === 'pending') return 'awaiting the time-stamp authority';
  return `time-stamped <time datetime="${esc(cp.anchor.gen_time)}">${esc(cp.anchor.gen_time)}</time>`;
}

/** The signed checkpoints, oldest first from `from`; null: the chains are not held here. */
export function checkpointsPage(v: Viewer, cps: AnchoredCheckpoint[] | null, next: number | null, paged: boolean): string {
  if (cps === null) return page(v, 'ledger', 'Signed checkpoints', `<p class="muted" id="checkpoints-per-chain">${PER_CHAIN_NOTE}</p>`);
  const rows = cps
    .map(
      (cp) =>
        `<tr data-tree-size="${cp.tree_size}"><td>${cp.tree_size}</td><td><span class="mono" title="${esc(cp.root_hash)}">${esc(cp.root_hash.slice(0, 16))}…</span></td><td><time datetime="${esc(cp.timestamp)}">${esc(cp.timestamp)}</time></td><td class="mono">${esc(cp.key_id)}</td><td data-anchor="${cp.anchor?.status ?? 'none'}">${anchorCell(cp)}</td></tr>`,
    )
    .join('');
  const links: string[] = [];
  if (paged) links.push('<a id="checkpoints-first" href="/console/ledger/checkpoints">Oldest</a>');
  if (next !== null) links.push(`<a id="checkpoints-later" rel="next" href="/console/ledger/checkpoints?from=${next}">Later checkpoints</a>`);
  const body = `<p><a href="/console/ledger">← Ledger</a></p><p class="muted">Oldest first, by tree size; times in <span data-time-zone>UTC</span>. Each signs the Merkle root of the chain's first <em>size</em> entries (Ed25519).</p>
<table id="checkpoints"><thead><tr><th>Tree size</th><th>Root hash</th><th>Signed at</th><th>Key id</th><th>Time-stamp</th></tr></thead><tbody>${rows || '<tr><td colspan="5" class="muted">No signed checkpoint yet.</td></tr>'}</tbody></table>
${links.length ? `<p class="pages">${links.join(' · ')}</p>` : ''}<script src="/console/assets/local-time.js" defer></script>`;
  return page(v, 'ledger', 'Signed checkpoints', body);
}
