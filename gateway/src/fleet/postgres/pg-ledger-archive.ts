import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { GatewayError } from '../../errors.js';
import type { LedgerPublicKey } from '../../ledger/merkle/checkpoint.js';
import { GENESIS_PREV_HASH } from '../../ledger/log/hash.js';
import { rangeHash } from '../../ledger/merkle/merkle.js';
import type { ShippedAck, ShippedBatch } from '../shipping/shipping-format.js';
import { checkBatchContent, decodeFrontier, encodeFrontier, isConsistentKey, verifyBatch, type ChainHead, type CheckedBatch } from '../shipping/verify-batch.js';
import { withTransaction } from './database.js';
import { COPY_ENTRIES, ledgerCopyRows } from './ledger-copy-rows.js';
import { withStoredSubtrees, type Queryable } from './stored-subtrees.js';
import { CONTROL_INSTANCE_ID, isControlChain } from './pg-control-chain.js';
import {
  archiveCheckpoints,
  archiveConsistencyProof,
  archiveInclusionProof,
  listArchived,
  listChains,
  tenantChain,
  type ArchiveListQuery,
  type ArchivePage,
  type ChainInfo,
} from './pg-archive-reads.js';
import { verifyArchivedChain, type ChainVerifyReport } from './pg-archive-verify.js';
import type { Checkpoint } from '../../ledger/merkle/checkpoint.js';
import type { ConsistencyProof, InclusionProof } from '../../ledger/ledger-types.js';

interface ChainRow {
  tenant_id: string;
  public_key: LedgerPublicKey;
  head_seq: string;
  head_hash: string;
  frontier: Buffer;
  /** The sidecar token (first of its line) whose sidecar opened the chain; null for chains stored by earlier builds. */
  sidecar_token_id: string | null;
}

const INSERT_CHECKPOINTS = `
INSERT INTO ledger_checkpoints (chain_id, tree_size, checkpoint)
SELECT $1, u.tree_size, u.checkpoint FROM unnest($2::bigint[], $3::jsonb[]) AS u(tree_size, checkpoint)
ON CONFLICT (chain_id, tree_size) DO NOTHING`;

/**
 * The control plane's store of shipped ledgers (docs/fleet.md, "Shipping the ledger"). Each batch is verified and
 * stored in one transaction with its chain row locked, so concurrent batches of one chain are serialised and a
 * refused batch leaves nothing behind. A chain is bound to the sidecar token that opened it (`sidecarId`: the first
 * token of its line of rotations): another token's batches are refused, whatever they hold. Reads across a tenant's
 * chains live in pg-archive-reads.ts.
 */
export class PgLedgerArchive {
  readonly pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.pool = pool;
  }

  /** An archive on a pool of its own (tools and benchmarks; the control plane shares its process's pool). */
  static open(connectionString: string, max: number): PgLedgerArchive {
    const pool = new pg.Pool({ connectionString, max });
    pool.on('error', () => {}); // an idle connection the server dropped is replaced on next use
    return new PgLedgerArchive(pool);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  /**
   * Verifies and stores a batch: its content first (checkBatchContent, synchronously, before any wait), then against
   * the chain (ingestChecked).
   */
  ingest(batch: ShippedBatch, sidecarId: string): Promise<ShippedAck> {
    const content = checkBatchContent(batch);
    if (!content.ok) return Promise.reject(new GatewayError(content.code, content.reason));
    return this.ingestChecked(content.batch, sidecarId);
  }

  /** Stores a batch whose content checkBatchContent has verified, once it verifies against the stored chain. */
  async ingestChecked(batch: CheckedBatch, sidecarId: string): Promise<ShippedAck> {
    // The control plane's own chains (pg-control-chain.ts) have no sidecar token bound, which would let a first batch bind one.
    if (isControlChain(batch.chain_id)) {
      throw new GatewayError('chain_bound', `chain ${batch.chain_id} is the control plane's own (instance id ${CONTROL_INSTANCE_ID} is reserved): no sidecar ships to it`);
    }
    const client = await this.pool.connect();
    let broken: unknown = undefined;
    try {
      await client.query('BEGIN');
      try {
        const ack = await this.#ingestLocked(client, batch, sidecarId);
        await client.query('COMMIT');
        return ack;
      } catch (err) {
        await client.query('ROLLBACK').catch((rollbackErr: unknown) => {
          broken = rollbackErr;
        });
        throw err;
      }
    } catch (err) {
      if (!(err instanceof GatewayError)) broken ??= err;
      throw err;
    } finally {
      // A connection that failed mid-transaction is dropped rather than handed to the next batch.
      client.release(broken instanceof Error ? broken : undefined);
    }
  }

  async #ingestLocked(client: pg.PoolClient, batch: CheckedBatch, sidecarId: string): Promise<ShippedAck> {
    const row = await this.#lockChain(client, batch, sidecarId);
    if (row.tenant_id !== batch.tenant_id) throw new GatewayError('chain_invalid', `chain ${batch.chain_id} belongs to another tenant`);
    if (row.sidecar_token_id !== null && row.sidecar_token_id !== sidecarId) {
      throw new GatewayError('chain_bound', `chain ${batch.chain_id} is bound to another sidecar token (chain_bound): only the sidecar that opened it ships to it`);
    }
    const headSeq = Number(row.head_seq);
    const head: ChainHead = { seq: headSeq, hash: row.head_hash, peaks: decodeFrontier(headSeq, row.frontier) };

    const storedHashes = new Map<number, string>();
    const first = batch.entries[0]?.seq;
    if (first !== undefined && first <= headSeq) {
      const upTo = Math.min(headSeq, first + batch.entries.length - 1);
      const res = await client.query<{ seq: string; hash: string }>(
        "SELECT seq, encode(hash, 'hex') AS hash FROM ledger_entries WHERE chain_id = $1 AND seq BETWEEN $2 AND $3",
        [batch.chain_id, first, upTo],
      );
      for (const r of res.rows) storedHashes.set(Number(r.seq), r.hash);
    }
    const storedRoots = new Map<number, string>();
    const earlier = batch.checkpoints.filter((cp) => cp.tree_size <= headSeq).map((cp) => cp.tree_size);
    if (earlier.length > 0) {
      const roots = await withStoredSubtrees(client, batch.chain_id, (read) => earlier.map((size) => Buffer.from(rangeHash(read, 0, size)).toString('hex')));
      earlier.forEach((size, i) => storedRoots.set(size, roots[i]!));
    }

    const verdict = verifyBatch({ batch, head, pinnedKey: row.public_key, storedHashes, storedRoots });
    if (!verdict.ok) throw new GatewayError(verdict.code, verdict.reason);

    const n = verdict.entries.length;
    if (n > 0) {
      const copy = client.query(copyFrom(COPY_ENTRIES));
      await pipeline(Readable.from([ledgerCopyRows(batch.chain_id, batch.tenant_id, verdict.entries)]), copy);
    }
    if (verdict.checkpoints.length > 0) {
      await client.query(INSERT_CHECKPOINTS, [batch.chain_id, verdict.checkpoints.map((cp) => cp.tree_size), verdict.checkpoints.map((cp) => JSON.stringify(cp))]);
    }
    const cpSize = verdict.checkpoints.reduce((m, cp) => Math.max(m, cp.tree_size), 0);
    if (n > 0 || cpSize > 0) {
      // A chain stored by an earlier build is bound by the first batch that appends to it: its new entries come with
      // a checkpoint signed by the chain's key, which a replay of what the control plane already holds cannot bring.
      await client.query(
        `UPDATE ledger_chains SET head_seq = $2, head_hash = $3, frontier = $4, checkpoint_size = GREATEST(checkpoint_size, $5),
           sidecar_token_id = COALESCE(sidecar_token_id, $6), updated_at = now() WHERE chain_id = $1`,
        [batch.chain_id, verdict.head.seq, verdict.head.hash, encodeFrontier(verdict.head.peaks), cpSize, n > 0 ? sidecarId : null],
      );
    }
    return { chain_id: batch.chain_id, acked_seq: verdict.head.seq };
  }

  list(tenantId: string, query: ArchiveListQuery): Promise<ArchivePage> {
    return listArchived(this.pool, tenantId, query);
  }

  chains(tenantId: string): Promise<ChainInfo[]> {
    return listChains(this.pool, tenantId);
  }

  /**
   * Every chain of the tenant re-verified from its stored rows, one report each. All are read in one snapshot
   * (a read-only repeatable-read transaction): a batch stored meanwhile would otherwise show entries past the head
   * read first, which reads as a broken chain.
   */
  async verifyTenant(tenantId: string): Promise<ChainVerifyReport[]> {
    return withTransaction(
      this.pool,
      async (client) => {
        const reports: ChainVerifyReport[] = [];
        for (const chain of await listChains(client, tenantId)) reports.push(await verifyArchivedChain(client, chain));
        return reports;
      },
      'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
    );
  }

  async inclusionProof(tenantId: string, chainId: string, seq: number, treeSize?: number): Promise<InclusionProof & { chain_id: string }> {
    return archiveInclusionProof(this.pool, await tenantChain(this.pool, tenantId, chainId), seq, treeSize);
  }

  async consistencyProof(tenantId: string, chainId: string, fromSize: number, toSize?: number): Promise<ConsistencyProof & { chain_id: string }> {
    return archiveConsistencyProof(this.pool, await tenantChain(this.pool, tenantId, chainId), fromSize, toSize);
  }

  async checkpoints(tenantId: string, chainId: string, fromSize: number, limit: number): Promise<{ chain: ChainInfo; data: Checkpoint[] }> {
    const chain = await tenantChain(this.pool, tenantId, chainId);
    return { chain, data: await archiveCheckpoints(this.pool, chainId, fromSize, limit) };
  }

  /**
   * The chain's row, locked for this transaction; created on its first batch, pinning the batch's key and binding it
   * to the sidecar token, unless another token's chains already hold the instance: a sidecar's chains are all its own.
   */
  async #lockChain(client: pg.PoolClient, batch: CheckedBatch, sidecarId: string): Promise<ChainRow> {
    const select = 'SELECT tenant_id, public_key, head_seq, head_hash, frontier, sidecar_token_id FROM ledger_chains WHERE chain_id = $1 FOR UPDATE';
    let res = await client.query<ChainRow>(select, [batch.chain_id]);
    if (res.rows[0]) return res.rows[0];
    if (!isConsistentKey(batch.public_key)) throw new GatewayError('chain_invalid', 'public_key is not an Ed25519 key matching its key_id and raw form');
    const instanceId = batch.chain_id.slice(0, batch.chain_id.indexOf('/'));
    const taken = await client.query(
      'SELECT 1 FROM ledger_chains WHERE instance_id = $1 AND sidecar_token_id IS NOT NULL AND sidecar_token_id <> $2 LIMIT 1',
      [instanceId, sidecarId],
    );
    if (taken.rows.length > 0) {
      throw new GatewayError('chain_bound', `the chains of instance ${instanceId} are bound to another sidecar token (chain_bound): only that sidecar opens its chains`);
    }
    // Two first batches racing: the second waits on the first's row and then finds it (and its binding).
    await client.query(
      'INSERT INTO ledger_chains (chain_id, tenant_id, instance_id, public_key, head_hash, sidecar_token_id) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (chain_id) DO NOTHING',
      [batch.chain_id, batch.tenant_id, instanceId, JSON.stringify(batch.public_key), GENESIS_PREV_HASH, sidecarId],
    );
    res = await client.query<ChainRow>(select, [batch.chain_id]);
    return res.rows[0]!;
  }
}

export type { Queryable, ArchiveListQuery, ArchivePage, ChainInfo, ChainVerifyReport };
