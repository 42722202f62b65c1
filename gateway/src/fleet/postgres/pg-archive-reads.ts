import { GatewayError } from '../../errors.js';
import type { Checkpoint, LedgerPublicKey } from '../../ledger/merkle/checkpoint.js';
import type { LedgerEntry } from '../../ledger/log/entry-input.js';
import type { ConsistencyProof, InclusionProof } from '../../ledger/ledger-types.js';
import { consistencyPath, inclusionPath, rangeHash } from '../../ledger/merkle/merkle.js';
import { withStoredSubtrees, type Queryable } from './stored-subtrees.js';

/** An archived entry as the control plane's GET /v1/events returns it: the local entry plus the chain it is from. */
export type ArchivedEntry = LedgerEntry & { chain_id: string };

export interface ArchiveListQuery {
  limit: number;
  cursor: string | null;
  agentId: string | null;
  eventType: string | null;
  order: 'asc' | 'desc';
  /** Only this chain's entries. */
  chainId: string | null;
}

export interface ArchivePage {
  events: ArchivedEntry[];
  cursor: string | null;
  total: number;
}

export interface ChainInfo {
  chain_id: string;
  tenant_id: string;
  instance_id: string;
  /** The key pinned at the chain's first batch; null for the control plane's own chain, which has no checkpoints. */
  public_key: LedgerPublicKey | null;
  head: { size: number; hash: string };
  checkpoint_size: number;
}

interface ListRow {
  chain_id: string;
  seq: string;
  hash: string;
  entry: string;
  at: string;
}

// A cursor is the (created_at, chain_id, seq) of the previous page's last entry, with its order: opaque to clients.
function encodeCursor(order: 'asc' | 'desc', row: ListRow): string {
  return Buffer.from(JSON.stringify([order, row.at, row.chain_id, Number(row.seq)])).toString('base64url');
}

function decodeCursor(cursor: string, order: 'asc' | 'desc'): [string, string, number] {
  const fail = () => new GatewayError('invalid_request', 'cursor: not one this list returned');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw fail();
  }
  if (!Array.isArray(parsed) || parsed.length !== 4 || parsed[0] !== order) throw fail();
  const [, at, chain, seq] = parsed as unknown[];
  if (typeof at !== 'string' || !/^[0-9 :.+-]{10,40}$/.test(at) || typeof chain !== 'string' || typeof seq !== 'number' || !Number.isSafeInteger(seq)) throw fail();
  return [at, chain, seq];
}

/**
 * A tenant's archived entries across all its chains, ordered by (created_at, chain_id, seq), oldest or newest first,
 * keyset-paginated (docs/fleet.md, "Reading the archive").
 */
export async function listArchived(db: Queryable, tenantId: string, q: ArchiveListQuery): Promise<ArchivePage> {
  const where = ['tenant_id = $1'];
  const params: unknown[] = [tenantId];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where.push(sql.replace('?', `$${params.length}`));
  };
  if (q.agentId !== null) add('agent_id = ?', q.agentId);
  if (q.eventType !== null) add('event_type = ?', q.eventType);
  if (q.chainId !== null) add('chain_id = ?', q.chainId);
  const filter = where.join(' AND ');
  const countParams = params.slice();
  const desc = q.order === 'desc';
  if (q.cursor) {
    const [at, chain, seq] = decodeCursor(q.cursor, q.order);
    params.push(at, chain, seq);
    const n = params.length;
    where.push(`(created_at, chain_id, seq) ${desc ? '<' : '>'} ($${n - 2}::timestamptz, $${n - 1}, $${n})`);
  }
  params.push(q.limit + 1);
  const dir = desc ? 'DESC' : 'ASC';
  const rows = await db.query<ListRow>(
    `SELECT chain_id, seq, encode(hash, 'hex') AS hash, entry, created_at::text AS at FROM ledger_entries WHERE ${where.join(' AND ')}
     ORDER BY created_at ${dir}, chain_id ${dir}, seq ${dir} LIMIT $${params.length}`,
    params,
  );
  const total = await db.query<{ n: string }>(`SELECT count(*) AS n FROM ledger_entries WHERE ${filter}`, countParams);
  const more = rows.rows.length > q.limit;
  const page = more ? rows.rows.slice(0, q.limit) : rows.rows;
  const events = page.map((r) => ({ ...(JSON.parse(r.entry) as LedgerEntry), hash: r.hash, chain_id: r.chain_id }));
  return { events, cursor: more ? encodeCursor(q.order, page[page.length - 1]!) : null, total: Number(total.rows[0]!.n) };
}

interface ChainRow {
  chain_id: string;
  tenant_id: string;
  instance_id: string;
  public_key: LedgerPublicKey | null;
  head_seq: string;
  head_hash: string;
  checkpoint_size: string;
}

function toInfo(r: ChainRow): ChainInfo {
  return {
    chain_id: r.chain_id,
    tenant_id: r.tenant_id,
    instance_id: r.instance_id,
    public_key: r.public_key,
    head: { size: Number(r.head_seq), hash: r.head_hash },
    checkpoint_size: Number(r.checkpoint_size),
  };
}

const CHAIN_COLUMNS = 'chain_id, tenant_id, instance_id, public_key, head_seq, head_hash, checkpoint_size';

export async function listChains(db: Queryable, tenantId: string): Promise<ChainInfo[]> {
  const res = await db.query<ChainRow>(`SELECT ${CHAIN_COLUMNS} FROM ledger_chains WHERE tenant_id = $1 ORDER BY chain_id`, [tenantId]);
  return res.rows.map(toInfo);
}

/** One chain of the tenant; 404 for an unknown chain or another tenant's (indistinguishable on purpose). */
export async function tenantChain(db: Queryable, tenantId: string, chainId: string): Promise<ChainInfo> {
  const res = await db.query<ChainRow>(`SELECT ${CHAIN_COLUMNS} FROM ledger_chains WHERE chain_id = $1 AND tenant_id = $2`, [chainId, tenantId]);
  if (!res.rows[0]) throw new GatewayError('not_found', 'no such chain');
  return toInfo(res.rows[0]);
}

const hex = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');

function checkSize(size: number, min: number, head: number, name: string): number {
  if (size < min || size > head) throw new GatewayError('not_found', `${name} must be in ${min}..${head}`);
  return size;
}

/** The local ledger's inclusion proof shape, for one archived chain (plus its chain_id). */
export async function archiveInclusionProof(db: Queryable, chain: ChainInfo, seq: number, treeSize?: number): Promise<InclusionProof & { chain_id: string }> {
  const size = checkSize(treeSize ?? chain.head.size, 1, chain.head.size, 'tree size');
  if (seq < 1 || seq > size) throw new GatewayError('not_found', `seq ${seq} is not in the tree of size ${size}`);
  const res = await db.query<{ hash: string }>("SELECT encode(hash, 'hex') AS hash FROM ledger_entries WHERE chain_id = $1 AND seq = $2", [chain.chain_id, seq]);
  if (!res.rows[0]) throw new GatewayError('not_found', 'event not found');
  const { root, path } = await withStoredSubtrees(db, chain.chain_id, (read) => ({ root: rangeHash(read, 0, size), path: inclusionPath(read, seq - 1, size) }));
  return {
    chain_id: chain.chain_id,
    tenant_id: chain.tenant_id,
    seq,
    leaf_index: seq - 1,
    tree_size: size,
    entry_hash: res.rows[0].hash,
    root_hash: hex(root),
    audit_path: path.map(hex),
  };
}

export async function archiveConsistencyProof(db: Queryable, chain: ChainInfo, fromSize: number, toSize?: number): Promise<ConsistencyProof & { chain_id: string }> {
  const to = checkSize(toSize ?? chain.head.size, 1, chain.head.size, 'to');
  checkSize(fromSize, 1, to, 'from');
  const r = await withStoredSubtrees(db, chain.chain_id, (read) => ({
    from: rangeHash(read, 0, fromSize),
    to: rangeHash(read, 0, to),
    proof: consistencyPath(read, fromSize, to),
  }));
  return { chain_id: chain.chain_id, tenant_id: chain.tenant_id, from_size: fromSize, to_size: to, from_root: hex(r.from), to_root: hex(r.to), proof: r.proof.map(hex) };
}

export async function archiveCheckpoints(db: Queryable, chainId: string, fromSize: number, limit: number): Promise<Checkpoint[]> {
  const res = await db.query<{ checkpoint: Checkpoint }>(
    'SELECT checkpoint FROM ledger_checkpoints WHERE chain_id = $1 AND tree_size >= $2 ORDER BY tree_size LIMIT $3',
    [chainId, fromSize, limit],
  );
  return res.rows.map((r) => r.checkpoint);
}
