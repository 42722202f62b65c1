/**
 * Where the gateways the tests start make the ledger's writes, from the environment `npm test` sets for each run of
 * the suite: LEDGER_WRITER (on a thread of their own, or inline) (docs/architecture.md, "Threads"). Unset, the
 * gateway's default decides. Request threads serve only the agents' port, which the tests of threads ask for.
 */
export function threadingUnderTest(): { ledgerWriter?: string } {
  const mode = process.env['LEDGER_WRITER'];
  return mode ? { ledgerWriter: mode } : {};
}
