import { esc } from '../html-headers.js';
import type { Overview } from '../console-data.js';
import { page, type Viewer } from './layout.js';

export const RANGES = { '1h': { ms: 3_600_000, buckets: 60 }, '24h': { ms: 86_400_000, buckets: 48 }, '7d': { ms: 7 * 86_400_000, buckets: 84 } } as const;
export type RangeName = keyof typeof RANGES;

/** JSON inside a non-executable script block: `<` is escaped so no text can close the block. */
function jsonBlock(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

export function overviewPage(v: Viewer, o: Overview, range: RangeName): string {
  const ranges = (Object.keys(RANGES) as RangeName[]).map((r) => (r === range ? `<strong>${r}</strong>` : `<a href="/console?range=${r}">${r}</a>`)).join(' · ');
  const spendRows = o.spendByAgent.map((s) => `<tr><td>${esc(s.agent_id)}</td><td>${s.spend_brl.toFixed(4)}</td></tr>`).join('') || '<tr><td colspan="2" class="muted">No spend recorded in this range.</td></tr>';
  // Figures come from the newest CONSOLE_SCAN_LIMIT decisions (console.md, "Overview"): say so when the range holds more.
  const partial = o.complete ? '' : `<p class="notice" id="partial">This range holds more decisions than the newest ${o.scanLimit.toLocaleString('en')} that the overview reads (CONSOLE_SCAN_LIMIT): its figures are theirs.</p>`;
  const body = `<p class="muted">Range: ${ranges}</p>${partial}
<div class="cards">
<div class="card"><div class="label">Decisions</div><div class="value" id="stat-total">${o.total}</div></div>
<div class="card"><div class="label">Blocked rate</div><div class="value" id="stat-blocked">${(o.blockedRate * 100).toFixed(1)}%</div></div>
<div class="card"><div class="label">Held</div><div class="value" id="stat-held">${o.held}</div></div>
<div class="card"><div class="label">Latency p50</div><div class="value" id="stat-p50">${o.latencyP50.toFixed(2)} ms</div></div>
<div class="card"><div class="label">Latency p99</div><div class="value" id="stat-p99">${o.latencyP99.toFixed(2)} ms</div></div>
</div>
<div class="chart" id="chart-verdicts"></div>
<div class="chart" id="chart-latency"></div>
${o.spendByAgent.length > 0 ? '<div class="chart" id="chart-spend"></div>' : ''}
<h2>Spend by agent</h2><table id="spend"><thead><tr><th>Agent</th><th>BRL</th></tr></thead><tbody>${spendRows}</tbody></table>
<script type="application/json" id="chart-data">${jsonBlock(o)}</script>`;
  return page(v, 'overview', 'Overview', body, { charts: true });
}
