import type pg from 'pg';
import { leafHash } from '../../ledger/log/hash.js';
import type { SubtreeReader } from '../../ledger/merkle/merkle.js';

export type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

const PLACEHOLDER = Buffer.alloc(32);

/**
 * Runs a Merkle computation (merkle.ts: rangeHash, inclusionPath, consistencyPath) over a chain's stored subtree
 * roots. Which roots a computation reads depends only on the sizes, never on the hashes, so a first pass with
 * placeholder hashes learns the O(log n) rows it needs, one query reads them, and a second pass computes.
 */
export async function withStoredSubtrees<T>(db: Queryable, chainId: string, compute: (read: SubtreeReader) => T): Promise<T> {
  const wanted = new Set<number>();
  compute((level, index) => {
    wanted.add((index + 1) * 2 ** level);
    return PLACEHOLDER;
  });
  const rows = new Map<number, { hash: Buffer; nodes: Buffer }>();
  if (wanted.size > 0) {
    const res = await db.query<{ seq: string; hash: Buffer; nodes: Buffer }>(
      'SELECT seq, hash, nodes FROM ledger_entries WHERE chain_id = $1 AND seq = ANY($2::bigint[])',
      [chainId, [...wanted]],
    );
    for (const row of res.rows) rows.set(Number(row.seq), { hash: row.hash, nodes: row.nodes });
  }
  return compute((level, index) => {
    const seq = (index + 1) * 2 ** level;
    const row = rows.get(seq);
    if (!row) throw new RangeError(`ledger archive entry ${chainId}#${seq} is missing`);
    if (level === 0) return leafHash(row.hash);
    const node = row.nodes.subarray((level - 1) * 32, level * 32);
    if (node.length !== 32) throw new RangeError(`ledger archive entry ${chainId}#${seq} lacks its level-${level} subtree root`);
    return node;
  });
}
