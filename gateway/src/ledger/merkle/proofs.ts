import type { ConsistencyProof, InclusionProof } from '../ledger-types.js';
import { verifyConsistencyPath, verifyInclusionPath } from './merkle.js';

/**
 * True when the audit path leads from the entry hash to `root_hash`. The proof carries its own root: a verifier
 * must also check that root equals a signed checkpoint's root_hash for the same tree_size.
 */
export function verifyInclusion(proof: InclusionProof): boolean {
  return proof.leaf_index === proof.seq - 1 && verifyInclusionPath(proof.entry_hash, proof.leaf_index, proof.tree_size, proof.audit_path, proof.root_hash);
}

/** True when the proof shows the tree with root `to_root` extends the tree with root `from_root` (RFC 9162 §2.1.4.2). */
export function verifyConsistency(proof: ConsistencyProof): boolean {
  return verifyConsistencyPath(proof.from_size, proof.to_size, proof.from_root, proof.to_root, proof.proof);
}
