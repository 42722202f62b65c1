import { once } from 'node:events';
import type { Checkpoint, LedgerPublicKey } from './checkpoint.js';
import { entryLine, listCheckpoints, MAX_SEQ, type LedgerDbs } from './store.js';

export const EXPORT_FORMAT = 'aduana-ledger-export/1';

/** First line of an export. */
export interface ExportHeader {
  format: typeof EXPORT_FORMAT;
  kind: 'header';
  tenant_id: string;
  exported_at: string;
  hash: string;
  merkle: string;
  public_key: LedgerPublicKey;
}

/** Last line: the exported size, and every checkpoint up to it (the last signed for exactly that size). */
export interface ExportFooter {
  format: typeof EXPORT_FORMAT;
  kind: 'footer';
  tenant_id: string;
  size: number;
  checkpoints: Checkpoint[];
}

const CHUNK = 64 * 1024;

export async function exportTenantJsonl(
  dbs: LedgerDbs,
  tenantId: string,
  out: NodeJS.WritableStream,
  publicKey: LedgerPublicKey,
  checkpointAt: (size: number) => Checkpoint,
): Promise<number> {
  const write = async (text: string): Promise<void> => {
    if (!out.write(text)) await once(out, 'drain');
  };
  const header: ExportHeader = {
    format: EXPORT_FORMAT,
    kind: 'header',
    tenant_id: tenantId,
    exported_at: new Date().toISOString(),
    hash: 'sha256(prev_hash || JCS(entry without hash)), hex',
    merkle: 'RFC 9162: leaf = sha256(0x00 || entry hash bytes), node = sha256(0x01 || left || right)',
    public_key: publicKey,
  };
  await write(`${JSON.stringify(header)}\n`);
  let size = 0;
  let chunk = '';
  // One range = one read snapshot: a consistent prefix of the chain even while appends continue.
  for (const { value } of dbs.entries.getRange({ start: [tenantId, 1], end: [tenantId, MAX_SEQ] })) {
    chunk += entryLine(value);
    size++;
    if (chunk.length >= CHUNK) {
      await write(chunk);
      chunk = '';
    }
  }
  if (chunk) await write(chunk);
  const checkpoints = size > 0 ? listCheckpoints(dbs, tenantId).filter((cp) => cp.tree_size < size) : [];
  if (size > 0) checkpoints.push(checkpointAt(size));
  const footer: ExportFooter = { format: EXPORT_FORMAT, kind: 'footer', tenant_id: tenantId, size, checkpoints };
  await write(`${JSON.stringify(footer)}\n`);
  return size;
}
