import { once } from 'node:events';
import type { PruneBoundary } from './boundary.js';
import type { AnchoredCheckpoint, Checkpoint, LedgerPublicKey } from '../merkle/checkpoint.js';
import { anchorState, committedSize, entryLine, listCheckpoints, readBoundary, type LedgerDbs } from '../storage/store.js';

export const EXPORT_FORMAT = 'aduana-ledger-export/1';

/**
 * First line of an export; one entry per line follows (its canonical JSON with `hash` appended). The header comes
 * first and carries everything a verifier needs, so verification is one streaming pass: the exported size, and every
 * checkpoint up to it, the last signed for exactly that size.
 */
export interface ExportHeader {
  format: typeof EXPORT_FORMAT;
  kind: 'header';
  tenant_id: string;
  exported_at: string;
  size: number;
  hash: string;
  merkle: string;
  public_key: LedgerPublicKey;
  /** Each with its RFC 3161 time-stamp (`anchor`) when its tenant's checkpoints are time-stamped. */
  checkpoints: AnchoredCheckpoint[];
  /**
   * Only after retention pruned entries 1..pruned_through: the signed boundary the first line after the header
   * (seq pruned_through + 1) links to; it must match the checkpoint of its size among `checkpoints`.
   */
  boundary?: PruneBoundary;
}

const CHUNK = 64 * 1024;

/** The export's two writes, made by whichever thread owns the ledger's writes. */
export interface ExportWrites {
  /** The checkpoint for exactly `size` committed entries: the stored one, or one signed and stored now. */
  checkpointAt(tenantId: string, size: number): Checkpoint | Promise<Checkpoint>;
  /** Records that entries 1..size were exported completely (export-mark.ts). */
  markExported(tenantId: string, size: number): Promise<void>;
}

export async function exportTenantJsonl(
  dbs: LedgerDbs,
  tenantId: string,
  out: NodeJS.WritableStream,
  publicKey: LedgerPublicKey,
  writes: ExportWrites,
): Promise<number> {
  const write = async (text: string): Promise<void> => {
    if (!out.write(text)) await once(out, 'drain');
  };
  // Entries 1..size are committed and never change, so appends racing the export cannot make it inconsistent.
  const size = committedSize(dbs, tenantId);
  const boundary = readBoundary(dbs, tenantId);
  const from = boundary?.pruned_through ?? 0;
  const signed = size > 0 ? [...listCheckpoints(dbs, tenantId).filter((cp) => cp.tree_size < size), await writes.checkpointAt(tenantId, size)] : [];
  const checkpoints = signed.map((cp): AnchoredCheckpoint => {
    const anchor = anchorState(dbs, tenantId, cp.tree_size);
    return anchor ? { ...cp, anchor } : cp;
  });
  const header: ExportHeader = {
    format: EXPORT_FORMAT,
    kind: 'header',
    tenant_id: tenantId,
    exported_at: new Date().toISOString(),
    size,
    hash: 'sha256(prev_hash || JCS(entry without hash)), hex',
    merkle: 'RFC 9162: leaf = sha256(0x00 || entry hash bytes), node = sha256(0x01 || left || right)',
    public_key: publicKey,
    checkpoints,
    ...(boundary ? { boundary } : {}),
  };
  await write(`${JSON.stringify(header)}\n`);
  let written = 0;
  let chunk = '';
  for (const { value } of dbs.entries.getRange({ start: [tenantId, from + 1], end: [tenantId, size + 1] })) {
    chunk += entryLine(value);
    written++;
    if (chunk.length >= CHUNK) {
      await write(chunk);
      chunk = '';
    }
  }
  if (chunk) await write(chunk);
  // Every line is handed to the stream: retention may now prune through `size` (once a checkpoint and age allow).
  if (size > 0) await writes.markExported(tenantId, size);
  return written;
}
