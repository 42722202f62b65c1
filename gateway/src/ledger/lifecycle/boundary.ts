import { canonicalJson } from '@aduana/shared/core';
import { verifyCheckpointSignature, verifyLedgerSignature, type Checkpoint, type CheckpointSigner, type LedgerPublicKey } from '../merkle/checkpoint.js';
import { isHashHex, leafHash } from '../log/hash.js';
import { peakLevels, pushLeaf, rootFromPeaks, type Peak } from '../merkle/merkle.js';

/**
 * What retention keeps of a pruned prefix (docs/ledger.md, "Retention"): entries 1..pruned_through are gone, and
 * this is what the rest of the chain and its Merkle tree still need of them. It is signed with the ledger key and
 * must match the signed checkpoint at exactly pruned_through, so whoever can edit LMDB but not sign cannot move it
 * to hide deleted entries.
 */
export interface PruneBoundary {
  tenant_id: string;
  /** Entries 1..pruned_through were removed; always the tree_size of a signed checkpoint. */
  pruned_through: number;
  /** Hash of entry pruned_through: the prev_hash the first remaining entry must name. */
  entry_hash: string;
  /** Peaks (complete-subtree roots, highest first, hex) of the tree of the first pruned_through - 1 leaves. */
  frontier: string[];
  /** root_hash of the signed checkpoint at tree_size pruned_through. */
  root_hash: string;
  timestamp: string;
  key_id: string;
  /** Base64 Ed25519 over boundarySigningInput(boundary). */
  signature: string;
}

export const BOUNDARY_KIND = 'aduana-ledger-pruned/1';

/** Signed bytes: RFC 8785 JSON of every field but `signature`, plus a `kind` no checkpoint carries (no confusion). */
export function boundarySigningInput(b: Omit<PruneBoundary, 'signature'>): Buffer {
  return Buffer.from(
    canonicalJson({
      entry_hash: b.entry_hash,
      frontier: b.frontier,
      key_id: b.key_id,
      kind: BOUNDARY_KIND,
      pruned_through: b.pruned_through,
      root_hash: b.root_hash,
      tenant_id: b.tenant_id,
      timestamp: b.timestamp,
    }),
  );
}

export function signBoundary(signer: CheckpointSigner, fields: Omit<PruneBoundary, 'key_id' | 'signature'>): PruneBoundary {
  const unsigned = { ...fields, key_id: signer.publicKey.key_id };
  return { ...unsigned, signature: signer.signBytes(boundarySigningInput(unsigned)) };
}


/**
 * The peaks of the tree of the first pruned_through leaves: the frontier plus the boundary entry's leaf. Together
 * with the stored subtree roots of the remaining records they are every node a root, proof or append past the
 * boundary reads. Throws on a malformed boundary.
 */
export function boundaryPeaks(b: PruneBoundary): Peak[] {
  const before = b.pruned_through - 1;
  if (!Number.isSafeInteger(before) || before < 0 || !isHashHex(b.entry_hash)) throw new RangeError('malformed pruning boundary');
  const levels = peakLevels(before);
  if (levels.length !== b.frontier.length || !b.frontier.every(isHashHex)) throw new RangeError('malformed pruning boundary');
  const peaks: Peak[] = levels.map((level, i) => ({ level, hash: Buffer.from(b.frontier[i]!, 'hex') }));
  pushLeaf(peaks, leafHash(Buffer.from(b.entry_hash, 'hex')));
  return peaks;
}

/** The aligned subtrees the peaks of a tree of `size` leaves stand for, keyed `level/index` (merkle.ts SubtreeReader). */
export function peakNodes(peaks: readonly Peak[]): Map<string, Buffer> {
  const nodes = new Map<string, Buffer>();
  let start = 0;
  for (const { level, hash } of peaks) {
    const width = 2 ** level;
    nodes.set(`${level}/${start / width}`, hash);
    start += width;
  }
  return nodes;
}

/**
 * Null when the boundary is the ledger key's and agrees with the signed checkpoint at its size (its peaks fold to
 * that checkpoint's root), else why not.
 */
export function checkBoundary(b: PruneBoundary, tenantId: string, checkpoint: Checkpoint | undefined, publicKey: LedgerPublicKey): string | null {
  const { signature, ...signed } = b;
  if (b.tenant_id !== tenantId || b.key_id !== publicKey.key_id || !verifyLedgerSignature(boundarySigningInput(signed), signature, publicKey)) {
    return `the pruning boundary at seq ${b.pruned_through} has a bad signature`;
  }
  if (!checkpoint || !verifyCheckpointSignature(checkpoint, publicKey) || checkpoint.tenant_id !== tenantId) {
    return `no validly signed checkpoint at tree size ${b.pruned_through} backs the pruning boundary`;
  }
  let root: string;
  try {
    root = rootFromPeaks(boundaryPeaks(b)).toString('hex');
  } catch {
    return `the pruning boundary at seq ${b.pruned_through} is malformed`;
  }
  if (root !== checkpoint.root_hash || root !== b.root_hash) return `the pruning boundary at seq ${b.pruned_through} does not match the signed checkpoint at that size`;
  return null;
}
