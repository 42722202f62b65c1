/**
 * LEDGER_WRITER for the gateways the tests start: `npm test` runs the suite with the writer on its own thread, then
 * the gateway's black-box tests again with it inline (docs/architecture.md, "Threads"); unset, the gateway decides.
 */
export function ledgerWriterUnderTest(): { ledgerWriter?: string } {
  const mode = process.env['LEDGER_WRITER'];
  return mode ? { ledgerWriter: mode } : {};
}
