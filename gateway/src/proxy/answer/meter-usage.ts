import type { TenantRuntimes } from '../../policy/runtime/tenant-runtime.js';
import type { PriceTable } from '../pricing/price-table.js';
import type { ProxyContext, Usage } from '../proxy-context.js';
import type { ResponseStage } from './response-stage.js';

/**
 * Token usage → BRL cost → the agent's budget totals (budget policies read them on the next call). A stream's usage
 * event that the gateway asked for on the client's behalf (the request-usage stage) is counted, then dropped.
 */
export function meterUsageStage(runtimes: TenantRuntimes, prices: PriceTable): ResponseStage {
  return {
    name: 'meter-usage',
    onPiece(c, piece) {
      const format = c.endpoint.format;
      const u = format.usage(piece.body);
      if (u === null) return;
      recordUsage(c, runtimes, prices, u);
      if (!piece.whole && !c.clientWantsStreamUsage && format.onlyUsage(piece.body)) piece.dropped = true;
    },
  };
}

function recordUsage(c: ProxyContext, runtimes: TenantRuntimes, prices: PriceTable, u: Partial<Usage>): void {
  const prompt = Number(u.prompt_tokens) || 0;
  const completion = Number(u.completion_tokens) || 0;
  c.usage = { completion_tokens: completion, prompt_tokens: prompt, total_tokens: Number(u.total_tokens) || prompt + completion };
  c.costBrl = prices.cost(c.model, prompt, completion);
  runtimes.addSpend(c.principal!.tenantId, c.http.agentId, c.costBrl, Date.now());
}
