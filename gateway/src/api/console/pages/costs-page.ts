import { esc } from '../html-headers.js';
import type { CostRow, Costs } from '../console-data.js';
import { page, type Viewer } from './layout.js';

/** The range as the viewer chose it: UTC days, both included (YYYY-MM-DD). */
export interface CostRange {
  from: string;
  to: string;
}

const brl = (n: number) => n.toFixed(6);
const count = (n: number) => n.toLocaleString('en-US');

function table(id: string, label: string, rows: CostRow[], usd: number | null): string {
  const head = `<tr><th scope="col">${label}</th><th scope="col">Calls</th><th scope="col">Tokens in</th><th scope="col">Tokens out</th><th scope="col">Cost (BRL)</th>${usd ? '<th scope="col">Cost (USD)</th>' : ''}<th scope="col">Unpriced calls</th></tr>`;
  const body = rows
    .map((r) => {
      // A group whose every call is unpriced has no cost to show, not a cost of 0.
      const allUnpriced = r.unpriced_calls === r.calls;
      const cost = allUnpriced ? '<span class="muted">unpriced</span>' : brl(r.cost_brl);
      const inUsd = usd ? `<td data-col="usd">${allUnpriced ? '<span class="muted">unpriced</span>' : (r.cost_brl / usd).toFixed(6)}</td>` : '';
      return `<tr data-key="${esc(r.key)}"><td class="mono">${esc(r.key)}</td><td data-col="calls">${count(r.calls)}</td><td data-col="in">${count(r.prompt_tokens)}</td><td data-col="out">${count(r.completion_tokens)}</td><td data-col="brl">${cost}</td>${inUsd}<td data-col="unpriced">${count(r.unpriced_calls)}</td></tr>`;
    })
    .join('');
  const cols = usd ? 7 : 6;
  return `<table id="${id}"><thead>${head}</thead><tbody>${body || `<tr><td colspan="${cols}" class="muted">No proxied calls in this range.</td></tr>`}</tbody></table>`;
}

/**
 * Tokens and cost of proxied calls by model, agent and UTC day (docs/console.md, "Costs"), from the decision index.
 * Calls of a model no price table lists are counted apart as unpriced: their tokens are shown, their cost is not
 * guessed. `usd` is USD_BRL_RATE (BRL per dollar), or null for BRL only.
 */
export function costsPage(v: Viewer, c: Costs, range: CostRange, usd: number | null): string {
  const t = c.total;
  const form = `<form class="filters" method="get" action="/console/costs">
<label>From<input type="date" name="from" value="${esc(range.from)}" required></label>
<label>To<input type="date" name="to" value="${esc(range.to)}" required></label>
<button type="submit">Show</button></form>
<p class="muted">Days in UTC, both included. Costs in BRL${usd ? ` and in USD at ${esc(String(usd))} BRL per dollar (USD_BRL_RATE)` : ''}; prices from the gateway's price table.</p>`;
  const partial = c.complete ? '' : `<p class="notice" id="costs-partial">Only the newest ${count(c.scanned)} decisions were read (CONSOLE_SCAN_LIMIT): calls older than those are not counted.</p>`;
  const unpricedNote =
    t.unpriced_calls > 0
      ? `<p id="unpriced-note">${count(t.unpriced_calls)} ${t.unpriced_calls === 1 ? 'call' : 'calls'} (${count(t.unpriced_prompt_tokens)} tokens in, ${count(t.unpriced_completion_tokens)} out) used a model no price table lists: they cost 0 here and in budgets. Add the model to MODEL_PRICES_FILE or MODEL_PRICES_BRL to price its next calls.</p>`
      : '';
  const body = `${form}${partial}
<div class="cards">
<div class="card"><div class="label">Calls</div><div class="value" id="stat-calls">${count(t.calls)}</div></div>
<div class="card"><div class="label">Tokens in</div><div class="value" id="stat-in">${count(t.prompt_tokens)}</div></div>
<div class="card"><div class="label">Tokens out</div><div class="value" id="stat-out">${count(t.completion_tokens)}</div></div>
<div class="card"><div class="label">Cost (BRL)</div><div class="value" id="stat-brl">${brl(t.cost_brl)}</div></div>
${usd ? `<div class="card"><div class="label">Cost (USD)</div><div class="value" id="stat-usd">${(t.cost_brl / usd).toFixed(6)}</div></div>` : ''}
<div class="card"><div class="label">Unpriced calls</div><div class="value" id="stat-unpriced">${count(t.unpriced_calls)}</div></div>
</div>${unpricedNote}
<h2>By model</h2>${table('costs-by-model', 'Model', c.byModel, usd)}
<h2>By agent</h2>${table('costs-by-agent', 'Agent', c.byAgent, usd)}
<h2>By day</h2>${table('costs-by-day', 'Day (UTC)', c.byDay, usd)}`;
  return page(v, 'costs', 'Costs', body);
}
