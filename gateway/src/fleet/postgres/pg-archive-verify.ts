import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { verifyCheckpointSignature } from '../../ledger/merkle/checkpoint.js';
import { entryHash, GENESIS_PREV_HASH, leafHash } from '../../ledger/log/hash.js';
import { pushLeaf, rootFromPeaks, type Peak } from '../../ledger/merkle/merkle.js';
import { archiveCheckpoints, type ChainInfo } from './pg-archive-reads.js';
import type { Queryable } from './stored-subtrees.js';

/** The local ledger's verify report, for one archived chain. */
export interface ChainVerifyReport {
  chain_id: string;
  instance_id: string;
  ok: boolean;
  checked: number;
  firstBrokenSeq: number | null;
  reason: string | null;
  expectedSize: number;
  checkpointsChecked: number;
  head: { size: number; hash: string };
}

const PAGE = 10_000;

/**
 * Re-verifies one archived chain from seq 1, as the local ledger's verifier does its own: rows contiguous from 1,
 * each row's hash recomputed from its canonical text and the previous row's hash, the text naming its seq and
 * tenant, each stored subtree root rebuilt, every checkpoint's signature (the chain's pinned key) and root, and the
 * chain row's head. Reads in pages of 10,000 rows and yields between them.
 */
export async function verifyArchivedChain(db: Queryable, chain: ChainInfo): Promise<ChainVerifyReport> {
  const checkpoints = await archiveCheckpoints(db, chain.chain_id, 0, 1_000_000);
  const base = { chain_id: chain.chain_id, instance_id: chain.instance_id, expectedSize: chain.head.size, head: chain.head };
  const broken = (seq: number, reason: string, cps: number): ChainVerifyReport => ({ ...base, ok: false, checked: seq - 1, firstBrokenSeq: seq, reason, checkpointsChecked: cps });
  for (const cp of checkpoints) {
    if (chain.public_key === null || !verifyCheckpointSignature(cp, chain.public_key) || cp.tenant_id !== chain.tenant_id) {
      return broken(Math.min(cp.tree_size, chain.head.size + 1), `checkpoint at tree size ${cp.tree_size} has a bad signature`, 0);
    }
  }
  const roots = new Map(checkpoints.map((cp) => [cp.tree_size, cp.root_hash]));
  const tenantJson = JSON.stringify(chain.tenant_id);
  const peaks: Peak[] = [];
  let prev = GENESIS_PREV_HASH;
  let seq = 0;
  let cpsChecked = 0;
  for (;;) {
    const res = await db.query<{ seq: string; hash: Buffer; nodes: Buffer; entry: string }>(
      'SELECT seq, hash, nodes, entry FROM ledger_entries WHERE chain_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
      [chain.chain_id, seq, PAGE],
    );
    for (const row of res.rows) {
      const at = seq + 1;
      if (Number(row.seq) !== at) return broken(at, `entry ${at} is missing (next stored entry is ${row.seq})`, cpsChecked);
      if (!row.entry.endsWith(`,"prev_hash":"${prev}","seq":${at},"tenant_id":${tenantJson}}`)) {
        return broken(at, `entry ${at} does not carry seq ${at}, tenant ${chain.tenant_id} and prev_hash ${prev} (moved, or changed)`, cpsChecked);
      }
      const h = entryHash(prev, row.entry);
      if (!h.equals(row.hash)) return broken(at, `entry ${at}: stored hash does not match its content`, cpsChecked);
      const completed = pushLeaf(peaks, leafHash(h));
      if (!Buffer.concat(completed).equals(row.nodes)) return broken(at, `entry ${at}: stored Merkle subtree roots do not match`, cpsChecked);
      const cpRoot = roots.get(at);
      if (cpRoot !== undefined) {
        if (rootFromPeaks(peaks).toString('hex') !== cpRoot) return broken(at, `checkpoint at tree size ${at}: root does not match the entries`, cpsChecked);
        cpsChecked++;
      }
      prev = h.toString('hex');
      seq = at;
    }
    if (res.rows.length < PAGE) break;
    await yieldToLoop();
  }
  if (seq < chain.head.size) return broken(seq + 1, `entry ${seq + 1} is missing (the chain should hold ${chain.head.size})`, cpsChecked);
  if (seq > chain.head.size || prev !== chain.head.hash) return broken(chain.head.size + 1, `the chain's recorded head (${chain.head.size}) does not match its entries`, cpsChecked);
  const orphan = checkpoints.find((cp) => cp.tree_size > seq);
  if (orphan) return broken(seq + 1, `checkpoint at tree size ${orphan.tree_size} is past the end of the chain (${seq}): entries were removed`, cpsChecked);
  return { ...base, ok: true, checked: seq, firstBrokenSeq: null, reason: null, checkpointsChecked: cpsChecked };
}
