import type { TenantLimits } from '../../policy/runtime/tenant-limits.js';
import type { PriceTable } from '../pricing/price-table.js';
import type { ProxyContext, Usage } from '../proxy-context.js';
import type { ResponseStage } from './response-stage.js';

/**
 * Token usage → BRL cost → the agent's budget totals (budget policies read them on the next call; an unpriced model
 * costs 0, so budgets count priced spend only). A stream's usage
 * event that the gateway asked for on the client's behalf (the request-usage stage) is counted, then dropped.
 */
export function meterUsageStage(limits: TenantLimits, prices: PriceTable): ResponseStage {
  return {
    name: 'meter-usage',
    onPiece(c, piece) {
      const format = c.endpoint.format;
      const u = format.usage(piece.body);
      if (u === null) return;
      recordUsage(c, limits, prices, u);
      if (!piece.whole && !c.clientWantsStreamUsage && format.onlyUsage(piece.body)) piece.dropped = true;
    },
  };
}

/**
 * The call's usage so far and its cost; only the cost this report adds is spent (a stream that reports usage in parts,
 * as Anthropic's does, is charged once in all). What the report leaves out is kept from earlier ones.
 */
function recordUsage(c: ProxyContext, limits: TenantLimits, prices: PriceTable, u: Partial<Usage>): void {
  const before = c.usage;
  const prompt = u.prompt_tokens !== undefined ? Number(u.prompt_tokens) || 0 : (before?.prompt_tokens ?? 0);
  const completion = u.completion_tokens !== undefined ? Number(u.completion_tokens) || 0 : (before?.completion_tokens ?? 0);
  c.usage = { completion_tokens: completion, prompt_tokens: prompt, total_tokens: Number(u.total_tokens) || prompt + completion };
  const { brl: cost, priced } = prices.cost(c.model, prompt, completion);
  c.priced = priced;
  const added = cost - c.costBrl;
  c.costBrl = cost;
  if (added !== 0) limits.addSpend(c.principal!.tenantId, c.http.agentId, added, Date.now());
}
