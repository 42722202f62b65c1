/**
 * How the gateways the tests start use threads, from the environment `npm test` sets for each run of the suite:
 * LEDGER_WRITER (the ledger's writes on a thread of their own, or inline) and GATEWAY_THREADS (the API port's
 * request threads) (docs/architecture.md, "Threads"). Unset, the gateway's defaults decide.
 */
export function threadingUnderTest(): { ledgerWriter?: string; gatewayThreads?: number } {
  const mode = process.env['LEDGER_WRITER'];
  const threads = Number(process.env['GATEWAY_THREADS'] ?? '');
  return { ...(mode ? { ledgerWriter: mode } : {}), ...(threads >= 1 ? { gatewayThreads: threads } : {}) };
}
