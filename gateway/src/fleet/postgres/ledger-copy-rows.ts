import { instantMs } from '../../ledger/log/instant.js';
import type { VerifiedEntry } from '../shipping/verify-batch.js';

/** The columns, in the order each row below writes them. */
export const COPY_ENTRIES =
  'COPY ledger_entries (chain_id, seq, tenant_id, created_at, event_type, agent_id, decision_id, hash, nodes, entry) FROM STDIN (FORMAT binary)';

const FIELDS = 10;
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
/** Signature, flags (int32) and header extension length (int32). */
const HEADER = 11 + 4 + 4;
/** A row's field count (int16), its ten length words (int32) and its two int8 values (seq, created_at). */
const ROW_FIXED = 2 + FIELDS * 4 + 8 + 8;
/** PostgreSQL's timestamp epoch, 2000-01-01T00:00:00Z, in Unix milliseconds. */
const PG_EPOCH_MS = 946_684_800_000;
const TWO_32 = 4_294_967_296;

/**
 * The verified entries of one batch as the body of a binary COPY into ledger_entries. The binary format takes each
 * value as its bytes with a length in front: nothing to escape, no hex for the two bytea columns, and PostgreSQL
 * parses no text for the timestamp or the integers. The canonical text is the very bytes the entry's hash covered.
 * created_at is the instant Date.parse reads (to the millisecond, as the ledger writes it), read by instantMs.
 */
export function ledgerCopyRows(chainId: string, tenantId: string, entries: readonly VerifiedEntry[]): Buffer {
  const chain = Buffer.from(chainId, 'utf8');
  const tenant = Buffer.from(tenantId, 'utf8');
  let size = HEADER + 2;
  for (const e of entries) {
    size += ROW_FIXED + chain.length + tenant.length + Buffer.byteLength(e.eventType) + e.hash.length + e.nodes.length + Buffer.byteLength(e.canonical);
    if (e.agentId !== null) size += Buffer.byteLength(e.agentId);
    if (e.decisionId !== null) size += e.decisionId.length; // an id is ASCII (verify-batch.ts)
  }
  const out = Buffer.allocUnsafe(size);
  let at = SIGNATURE.copy(out, 0);
  at = out.writeInt32BE(0, at);
  at = out.writeInt32BE(0, at);
  const bytes = (b: Uint8Array): void => {
    at = out.writeInt32BE(b.length, at);
    out.set(b, at);
    at += b.length;
  };
  const text = (s: string | null): void => {
    if (s === null) {
      at = out.writeInt32BE(-1, at);
      return;
    }
    const n = out.write(s, at + 4, 'utf8');
    out.writeInt32BE(n, at);
    at += 4 + n;
  };
  /** An int8 value that is a safe integer, without a BigInt. */
  const int8 = (value: number): void => {
    at = out.writeInt32BE(8, at);
    const high = Math.floor(value / TWO_32);
    at = out.writeInt32BE(high, at);
    at = out.writeUInt32BE(value - high * TWO_32, at);
  };
  /** A timestamptz: microseconds since PostgreSQL's epoch (past ±285 years of it, no longer a safe integer). */
  const timestamp = (unixMs: number): void => {
    const ms = unixMs - PG_EPOCH_MS;
    if (Number.isSafeInteger(ms * 1000)) return int8(ms * 1000);
    at = out.writeInt32BE(8, at);
    at = out.writeBigInt64BE(BigInt(ms) * 1000n, at);
  };
  for (const e of entries) {
    at = out.writeInt16BE(FIELDS, at);
    bytes(chain);
    int8(e.seq);
    bytes(tenant);
    timestamp(instantMs(e.createdAt));
    text(e.eventType);
    text(e.agentId);
    text(e.decisionId);
    bytes(e.hash);
    bytes(e.nodes);
    text(e.canonical);
  }
  at = out.writeInt16BE(-1, at);
  if (at !== size) throw new Error(`ledger COPY rows: wrote ${at} bytes of ${size}`);
  return out;
}
