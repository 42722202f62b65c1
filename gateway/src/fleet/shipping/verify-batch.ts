import { createPublicKey, hash } from 'node:crypto';
import { parsedCanonicalJson } from './parsed-canonical-json.js';
import { verifyCheckpointSignature, type Checkpoint, type LedgerPublicKey } from '../../ledger/merkle/checkpoint.js';
import type { LedgerEntry } from '../../ledger/log/entry-input.js';
import { entryHash, leafHash } from '../../ledger/log/hash.js';
import { peakLevels, pushLeaf, rootFromPeaks, type Peak } from '../../ledger/merkle/merkle.js';
import type { ShippedBatch } from './shipping-format.js';

/** What a decision id looks like (`dec_` and a ULID); anything else is not indexed. */
const DECISION_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** What the control plane holds of a chain: its head and the Merkle right edge over entries 1..seq. */
export interface ChainHead {
  seq: number;
  /** Hash of entry `seq`; 64 zeros when the chain is empty. */
  hash: string;
  peaks: Peak[];
}

/** An entry whose content is checked against its hash: what the control plane keeps of it (no parsed payload). */
export interface CheckedEntry {
  seq: number;
  createdAt: string;
  eventType: string;
  agentId: string | null;
  /** The decision's id when the entry records one (the control plane finds held decisions by it). */
  decisionId: string | null;
  prevHash: string;
  hash: Buffer;
  /** The same hash as lowercase hex: the shipped text, verified equal to the recomputed hash. */
  hashHex: string;
  /** RFC 8785 canonical JSON of the entry without `hash`: its UTF-8 is exactly what its hash covers (and stored). */
  canonical: string;
}

/** A new entry, verified against the chain and ready to store. */
export interface VerifiedEntry extends CheckedEntry {
  /** Roots of the aligned subtrees this entry completes, levels 1..m, concatenated (what its row stores). */
  nodes: Buffer;
}

/**
 * A shipped batch whose every entry is checked against its own hash and its predecessor in the batch: all that can be
 * known of its entries before the chain's stored head is read. Its checkpoints are verifyBatch's (the pinned key).
 */
export interface CheckedBatch {
  chain_id: string;
  tenant_id: string;
  public_key: LedgerPublicKey;
  entries: CheckedEntry[];
  checkpoints: Checkpoint[];
}

export type ContentVerdict = { ok: true; batch: CheckedBatch } | { ok: false; code: 'chain_invalid'; reason: string };

export type BatchVerdict =
  | { ok: true; entries: VerifiedEntry[]; checkpoints: Checkpoint[]; head: ChainHead; skipped: number }
  | { ok: false; code: 'chain_invalid' | 'chain_forked'; reason: string };

export interface VerifyBatchInput {
  batch: CheckedBatch;
  head: ChainHead;
  /** The chain's pinned key (the batch's own on a new chain). */
  pinnedKey: LedgerPublicKey;
  /** Stored hashes (hex) of the batch's entries at or below head.seq: a resend must match them. */
  storedHashes: ReadonlyMap<number, string>;
  /** Merkle roots (hex) at the sizes of the batch's checkpoints at or below head.seq, from stored subtree roots. */
  storedRoots: ReadonlyMap<number, string>;
}

/** Whether two public keys are the same key (a chain's key never changes). */
export function sameKey(a: LedgerPublicKey, b: LedgerPublicKey): boolean {
  return a.key_id === b.key_id && a.raw === b.raw && a.pem === b.pem;
}

/** A well-formed Ed25519 key whose key_id and raw form belong to its PEM (as the ledger's signer derives them). */
export function isConsistentKey(key: LedgerPublicKey): boolean {
  try {
    const pub = createPublicKey(key.pem);
    if (pub.asymmetricKeyType !== 'ed25519') return false;
    const der = pub.export({ format: 'der', type: 'spki' });
    const raw = der.subarray(der.length - 32);
    return raw.toString('base64') === key.raw && hash('sha256', raw, 'hex').slice(0, 16) === key.key_id;
  } catch {
    return false;
  }
}

/** The canonical text an entry's hash covers: every field but `hash`, RFC 8785 (as the local ledger writes it). */
export function canonicalOf(e: LedgerEntry): string {
  return parsedCanonicalJson({
    created_at: e.created_at,
    decision: e.decision,
    event_type: e.event_type,
    metadata: e.metadata,
    payload: e.payload,
    prev_hash: e.prev_hash,
    seq: e.seq,
    tenant_id: e.tenant_id,
  });
}

const invalid = (reason: string): { ok: false; code: 'chain_invalid'; reason: string } => ({ ok: false, code: 'chain_invalid', reason });

/**
 * The first half of verifying a shipped batch, which needs nothing stored (docs/fleet.md, "Shipping the ledger"):
 * every entry's hash recomputed from its canonical JSON and prev_hash, and consecutive seqs of the batch's tenant
 * linked by prev_hash. The control plane runs it as soon as the body is parsed, before it takes a database
 * connection: hashing a batch of 5,000 entries is ~40 ms of CPU that would otherwise run with a pooled connection
 * checked out and the chain's row locked, in an open transaction. What it keeps of an entry is not its parsed
 * payload but the fields its row needs and the canonical text.
 */
export function checkBatchContent(batch: ShippedBatch): ContentVerdict {
  const entries = batch.entries;
  const first = entries[0]?.seq;
  const checked: CheckedEntry[] = [];
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    if (e.seq !== first! + i) return invalid(`entries[${i}] has seq ${e.seq}; expected ${first! + i}`);
    if (e.tenant_id !== batch.tenant_id) return invalid(`entry ${e.seq} belongs to tenant ${JSON.stringify(e.tenant_id)}, not the batch's`);
    if (i > 0 && e.prev_hash !== entries[i - 1]!.hash) return invalid(`entry ${e.seq} does not link to entry ${e.seq - 1} (prev_hash)`);
    let canonical: string;
    try {
      canonical = canonicalOf(e);
    } catch (err) {
      return invalid(`entry ${e.seq} has no canonical JSON form (${err instanceof Error ? err.message : 'unknown'})`);
    }
    const h = entryHash(e.prev_hash, canonical);
    if (h.toString('hex') !== e.hash) return invalid(`entry ${e.seq}: hash does not match its content`);
    const agent = e.metadata.agent_id;
    const decisionId = e.decision?.decision_id;
    checked.push({
      seq: e.seq,
      createdAt: e.created_at,
      eventType: e.event_type,
      agentId: typeof agent === 'string' ? agent : null,
      // Indexed only when it is an id (no separator or control character can reach the column-wise insert).
      decisionId: typeof decisionId === 'string' && DECISION_ID.test(decisionId) ? decisionId : null,
      prevHash: e.prev_hash,
      hash: h,
      hashHex: e.hash,
      canonical,
    });
  }
  return { ok: true, batch: { chain_id: batch.chain_id, tenant_id: batch.tenant_id, public_key: batch.public_key, entries: checked, checkpoints: batch.checkpoints } };
}

/**
 * The second half, against what the control plane holds of the chain, as the local ledger's verifier checks its
 * own: the batch's key is the chain's pinned key, a checkpoint at its last entry's seq, entries already held equal to
 * them (else a fork), the first new one linked to the stored head, and every checkpoint signed by the pinned key over
 * the Merkle root of the chain's first tree_size entries. The caller checks the chain's binding first, so another
 * sidecar token's batch is refused as such (403), checkpoint or none.
 * Pure: the caller reads the head, the overlapping hashes and earlier roots, and stores the result.
 */
export function verifyBatch({ batch, head, pinnedKey, storedHashes, storedRoots }: VerifyBatchInput): BatchVerdict {
  if (!sameKey(batch.public_key, pinnedKey)) return invalid('public_key differs from the key pinned to this chain');
  const entries = batch.entries;
  const first = entries[0]?.seq;
  // A batch of entries ends in a checkpoint over them, whose signature (the chain's key) and root are checked below:
  // only the holder of the key appends to a chain, at one signature a batch, not one an entry.
  const lastSeq = entries[entries.length - 1]?.seq;
  if (lastSeq !== undefined && !batch.checkpoints.some((cp) => cp.tree_size === lastSeq)) {
    return invalid(`the batch does not end in a checkpoint covering entry ${lastSeq} (every batch of entries must carry one, signed by the chain's key)`);
  }
  if (first !== undefined && first > head.seq + 1) return invalid(`entries start at seq ${first}; the control plane holds this chain up to ${head.seq}`);

  // Entries the control plane already holds: an idempotent resend, or a fork.
  let skipped = 0;
  while (skipped < entries.length && entries[skipped]!.seq <= head.seq) {
    const e = entries[skipped]!;
    const stored = storedHashes.get(e.seq);
    if (stored === undefined) return invalid(`entry ${e.seq} is at or below the stored head but was not looked up`);
    if (stored !== e.hashHex) return { ok: false, code: 'chain_forked', reason: `entry ${e.seq} differs from the stored entry ${e.seq} of chain ${batch.chain_id}` };
    skipped++;
  }
  if (skipped < entries.length) {
    const e = entries[skipped]!;
    if (e.prevHash !== head.hash) return invalid(`entry ${e.seq} does not link to the stored entry ${head.seq} (prev_hash)`);
  }

  // The new entries extend the right edge; a checkpoint inside the batch is compared when its size is reached.
  const checkpointsAt = new Map<number, Checkpoint>();
  for (const cp of batch.checkpoints) {
    if (cp.tenant_id !== batch.tenant_id) return invalid(`checkpoint at tree size ${cp.tree_size} names another tenant`);
    if (!verifyCheckpointSignature(cp, pinnedKey)) return invalid(`checkpoint at tree size ${cp.tree_size} has a bad signature`);
    checkpointsAt.set(cp.tree_size, cp);
  }
  const newHeadSeq = Math.max(head.seq, first === undefined ? 0 : first + entries.length - 1);
  for (const size of checkpointsAt.keys()) {
    if (size > newHeadSeq) return invalid(`checkpoint at tree size ${size} is past the chain's entries (${newHeadSeq})`);
    if (size <= head.seq) {
      const root = storedRoots.get(size);
      if (root === undefined) return invalid(`checkpoint at tree size ${size}: no stored root was looked up`);
      if (root !== checkpointsAt.get(size)!.root_hash) return invalid(`checkpoint at tree size ${size}: root does not match the stored entries`);
    }
  }
  const peaks = head.peaks.map((p) => ({ level: p.level, hash: p.hash }));
  const verified: VerifiedEntry[] = [];
  for (let i = skipped; i < entries.length; i++) {
    const e = entries[i]!;
    const completed = pushLeaf(peaks, leafHash(e.hash));
    const cp = checkpointsAt.get(e.seq);
    if (cp && rootFromPeaks(peaks).toString('hex') !== cp.root_hash) return invalid(`checkpoint at tree size ${e.seq}: root does not match the entries`);
    verified.push({ ...e, nodes: completed.length === 1 ? completed[0]! : Buffer.concat(completed) });
  }
  const last = verified[verified.length - 1];
  const newHead: ChainHead = last ? { seq: last.seq, hash: last.hashHex, peaks } : head;
  return { ok: true, entries: verified, checkpoints: [...checkpointsAt.values()], head: newHead, skipped };
}

/** The frontier as stored: one 32-byte peak per set bit of `size`, largest subtree first. */
export function encodeFrontier(peaks: readonly Peak[]): Buffer {
  return Buffer.concat(peaks.map((p) => p.hash));
}

export function decodeFrontier(size: number, bytes: Uint8Array): Peak[] {
  const peaks: Peak[] = [];
  let at = 0;
  for (const level of peakLevels(size)) {
    peaks.push({ level, hash: Buffer.from(bytes.subarray(at, at + 32)) });
    at += 32;
  }
  if (at !== bytes.length) throw new Error(`ledger chain frontier holds ${bytes.length} bytes; a tree of ${size} needs ${at}`);
  return peaks;
}
