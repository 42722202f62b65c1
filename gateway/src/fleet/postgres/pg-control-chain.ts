import type pg from 'pg';
import { isoTime } from '@aduana/shared';
import { GatewayError } from '../../errors.js';
import { withTransaction } from './database.js';
import { AUDITED_EVENT_TYPES, auditEntryMatches, type AuditFilter, type AuditPage } from '../../governance/admin-actions.js';
import { chainTail, prepareInput, type LedgerEntry, type LedgerInput } from '../../ledger/log/entry-input.js';
import { entryHash, GENESIS_PREV_HASH, leafHash } from '../../ledger/log/hash.js';
import { instantMs } from '../../ledger/log/instant.js';
import { pushLeaf } from '../../ledger/merkle/merkle.js';
import { decodeFrontier, encodeFrontier } from '../shipping/verify-batch.js';

/**
 * The instance id of the control plane's own chains: `control-plane/<tenant id>`. A sidecar's instance id is `sci_…`
 * (instance-id.ts), and a shipped batch naming this one is refused (pg-ledger-archive.ts), so only the control plane
 * appends to them.
 */
export const CONTROL_INSTANCE_ID = 'control-plane';

export function controlChainId(tenantId: string): string {
  return `${CONTROL_INSTANCE_ID}/${tenantId}`;
}

export function isControlChain(chainId: string): boolean {
  return chainId.startsWith(`${CONTROL_INSTANCE_ID}/`);
}

interface HeadRow {
  head_seq: string;
  head_hash: string;
  frontier: Buffer;
}

const LOCK = 'SELECT head_seq, head_hash, frontier FROM ledger_chains WHERE chain_id = $1 FOR UPDATE';
/** Largest canonical entry, bytes: the local ledger's default. Admin action payloads are digests, far below it. */
const MAX_ENTRY_BYTES = 1024 * 1024;
const PAGE = 200;
/** Entries read per audit page at most, as the embedded gateway's readAuditTrail. */
const SCAN_LIMIT = 20_000;

/**
 * The control plane's own chain of a tenant's admin actions, plan changes and resolutions (docs/ledger.md, "Admin
 * actions"), kept in the ledger archive's tables beside the chains sidecars ship: each entry has the local ledger's
 * format and hash (prepareInput, chainTail, entryHash) and its row the subtree roots a shipped entry's row has, so the
 * archive's verifier and proofs read it like any chain. It has no signing key, hence no checkpoints (the row's
 * `public_key` is JSON null). Appends are serialised per tenant across replicas by the chain row's lock, taken in the
 * transaction that writes the entry and moves the head.
 */
export class PgControlChain {
  constructor(
    private readonly pool: pg.Pool,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async append(tenantId: string, input: LedgerInput): Promise<LedgerEntry> {
    // Checked before a connection is taken; prepared again once the lock is held, so an entry without a time of its
    // own gets one no earlier than its predecessor's (replicas' clocks aside) and the chain reads in time order.
    let prepared = prepareInput(input, 0, isoTime(this.now().getTime()), MAX_ENTRY_BYTES);
    const chainId = controlChainId(tenantId);
    return withTransaction(this.pool, async (client) => {
      const head = await lockHead(client, chainId, tenantId);
      if (input.created_at === undefined) prepared = prepareInput(input, 0, isoTime(this.now().getTime()), MAX_ENTRY_BYTES);
      const prev = head.head_hash;
      const headSeq = Number(head.head_seq);
      const seq = headSeq + 1;
      const canonical = prepared.prefix.toString('utf8') + chainTail(prev, seq, JSON.stringify(tenantId));
      const hash = entryHash(prev, canonical);
      const peaks = decodeFrontier(headSeq, head.frontier);
      const nodes = Buffer.concat(pushLeaf(peaks, leafHash(hash)));
      const f = prepared.fields;
      await client.query(
        `INSERT INTO ledger_entries (chain_id, seq, tenant_id, created_at, event_type, agent_id, decision_id, hash, nodes, entry)
         VALUES ($1, $2, $3, $4, $5, $6, NULL, $7, $8, $9)`,
        [chainId, seq, tenantId, new Date(instantMs(f.created_at)), f.event_type, prepared.agentId, hash, nodes, canonical],
      );
      const hex = hash.toString('hex');
      await client.query('UPDATE ledger_chains SET head_seq = $2, head_hash = $3, frontier = $4, updated_at = now() WHERE chain_id = $1', [
        chainId,
        seq,
        hex,
        encodeFrontier(peaks),
      ]);
      return { ...f, seq, tenant_id: tenantId, prev_hash: prev, hash: hex };
    });
  }

  /**
   * The tenant's chain as the console's audit trail reads it (readAuditTrail's filters and cursor: `before` is a
   * seq of this chain), newest first, in pages of the chain's rows by seq.
   */
  async auditTrail(tenantId: string, f: AuditFilter): Promise<AuditPage> {
    const types = f.action !== null ? [f.action] : AUDITED_EVENT_TYPES;
    const out: LedgerEntry[] = [];
    let before = f.before ?? Number.MAX_SAFE_INTEGER;
    let read = 0;
    while (out.length <= f.limit && read < SCAN_LIMIT) {
      const res = await this.pool.query<{ seq: string; hash: string; entry: string }>(
        `SELECT seq, encode(hash, 'hex') AS hash, entry FROM ledger_entries
         WHERE chain_id = $1 AND seq < $2 AND event_type = ANY($3::text[])
           AND ($4::timestamptz IS NULL OR created_at >= $4) AND ($5::timestamptz IS NULL OR created_at <= $5)
         ORDER BY seq DESC LIMIT $6`,
        [controlChainId(tenantId), before, types, f.from === null ? null : new Date(f.from), f.to === null ? null : new Date(f.to), PAGE],
      );
      for (const row of res.rows) {
        read++;
        const e = { ...(JSON.parse(row.entry) as Omit<LedgerEntry, 'hash'>), hash: row.hash };
        if (auditEntryMatches(e, f)) out.push(e);
        if (out.length > f.limit || read >= SCAN_LIMIT) break;
      }
      if (res.rows.length < PAGE) break;
      before = Number(res.rows[res.rows.length - 1]!.seq);
    }
    const more = out.length > f.limit;
    if (more) out.length = f.limit;
    return { entries: out, next: more ? out[out.length - 1]!.seq : null };
  }
}

/** The chain's head row, locked for this transaction; created empty on the tenant's first entry. */
async function lockHead(client: pg.PoolClient, chainId: string, tenantId: string): Promise<HeadRow> {
  let res = await client.query<HeadRow>(LOCK, [chainId]);
  if (res.rows[0]) return res.rows[0];
  // Two first appends racing: the second's insert waits on the first's row, does nothing, and then locks it.
  await client.query(
    `INSERT INTO ledger_chains (chain_id, tenant_id, instance_id, public_key, head_hash) VALUES ($1, $2, $3, 'null'::jsonb, $4) ON CONFLICT (chain_id) DO NOTHING`,
    [chainId, tenantId, CONTROL_INSTANCE_ID, GENESIS_PREV_HASH],
  );
  res = await client.query<HeadRow>(LOCK, [chainId]);
  if (!res.rows[0]) throw new GatewayError('internal', `the control plane's chain ${chainId} could not be opened`);
  return res.rows[0];
}
