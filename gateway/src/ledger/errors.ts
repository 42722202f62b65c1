/** Why a ledger call failed; the HTTP layer maps `code` to its error registry (invalid_* → 400, out_of_range → 404, pruned → 410). */
export type LedgerErrorCode =
  | 'invalid_input' // an input is malformed or not JSON-serialisable; `index` names the first bad item of a batch
  | 'invalid_tenant'
  | 'invalid_query'
  | 'invalid_cursor'
  | 'out_of_range' // a seq or tree size beyond the committed chain
  | 'pruned' // the entry, or a tree size or proof that needs it, was removed by retention (below the pruned boundary)
  | 'write_failed' // LMDB refused the write; nothing of that batch is on disk
  | 'busy' // the writer thread is too far behind the disk; nothing was queued (retry)
  | 'closed';

export class LedgerError extends Error {
  readonly code: LedgerErrorCode;
  /** Index of the offending item inside a batch, when the error is about one input. */
  readonly index: number | null;

  constructor(code: LedgerErrorCode, message: string, index: number | null = null, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LedgerError';
    this.code = code;
    this.index = index;
  }
}
