import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPrivateKey, createPublicKey, generateKeyPairSync, hash, sign, verify, type KeyObject } from 'node:crypto';
import { canonicalJson } from '@aduana/shared/core';

/** A signed statement: "tenant T's ledger had tree_size entries with Merkle root root_hash at timestamp". */
export interface Checkpoint {
  tenant_id: string;
  tree_size: number;
  root_hash: string;
  timestamp: string;
  key_id: string;
  /** Base64 Ed25519 signature over checkpointSigningInput(checkpoint). */
  signature: string;
}

/**
 * A checkpoint's RFC 3161 time-stamp (docs/ledger.md, "Anchoring"): the TSA's token over SHA-256 of the checkpoint's
 * signed bytes (checkpointSigningInput), the nonce the request carried, and the token's time.
 */
export interface CheckpointAnchor {
  /** The TimeStampToken (CMS ContentInfo), DER, base64. */
  token: string;
  /** The request's nonce, a decimal integer: the token must carry it. */
  nonce: string;
  /** genTime of the token, ISO 8601 (informative: verifiers read it from the token). */
  gen_time: string;
}

/** How a checkpoint stands with the TSA: queued (the TSA has not answered yet) or time-stamped. */
export type AnchorState = { status: 'pending' } | ({ status: 'anchored' } & CheckpointAnchor);

/** A checkpoint as the API and exports show it: with its anchor when its tenant's checkpoints are time-stamped. */
export type AnchoredCheckpoint = Checkpoint & { anchor?: AnchorState };

/** The public half of the signing key, for verifiers. */
export interface LedgerPublicKey {
  key_id: string;
  /** SPKI PEM. */
  pem: string;
  /** Raw 32-byte Ed25519 key, base64. */
  raw: string;
}

/** Signed bytes: RFC 8785 canonical JSON of every checkpoint field except `signature`. */
export function checkpointSigningInput(cp: Omit<Checkpoint, 'signature'>): Buffer {
  return Buffer.from(
    canonicalJson({ key_id: cp.key_id, root_hash: cp.root_hash, tenant_id: cp.tenant_id, timestamp: cp.timestamp, tree_size: cp.tree_size }),
  );
}

/** Checks a checkpoint's signature against a public key (PEM or KeyObject); also that key ids agree. */
export function verifyCheckpointSignature(cp: Checkpoint, publicKey: LedgerPublicKey): boolean {
  if (cp.key_id !== publicKey.key_id) return false;
  let input: Buffer;
  try {
    input = checkpointSigningInput(cp); // a damaged stored checkpoint (say, a NaN size) has no signing input
  } catch {
    return false;
  }
  return verifyLedgerSignature(input, cp.signature, publicKey);
}

/** Checks an Ed25519 signature (base64) over `data` made by the ledger key `publicKey`. */
export function verifyLedgerSignature(data: Buffer, signature: string, publicKey: LedgerPublicKey): boolean {
  try {
    return verify(null, data, createPublicKey(publicKey.pem), Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}

export const SIGNING_KEY_FILE = 'ledger-signing-key.pem';

/** The Ed25519 key that signs checkpoints: created once in `keyDir` (mode 0600), reused on every later open. */
export class CheckpointSigner {
  readonly publicKey: LedgerPublicKey;
  readonly #privateKey: KeyObject;

  private constructor(privateKey: KeyObject) {
    this.#privateKey = privateKey;
    const pub = createPublicKey(privateKey);
    const der = pub.export({ format: 'der', type: 'spki' });
    // The raw key is the last 32 bytes of an Ed25519 SPKI.
    const raw = der.subarray(der.length - 32);
    this.publicKey = {
      key_id: hash('sha256', raw, 'hex').slice(0, 16),
      pem: pub.export({ format: 'pem', type: 'spki' }).toString(),
      raw: raw.toString('base64'),
    };
  }

  static load(keyDir: string): CheckpointSigner {
    mkdirSync(keyDir, { recursive: true, mode: 0o700 });
    const file = join(keyDir, SIGNING_KEY_FILE);
    let pem: string;
    try {
      pem = readFileSync(file, 'utf8');
      // A key file loosened by hand (or a copy tool) is tightened again: it signs the audit trail.
      if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      const { privateKey } = generateKeyPairSync('ed25519');
      pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
      try {
        // 'wx': never overwrite a key another process created a moment ago.
        writeFileSync(file, pem, { mode: 0o600, flag: 'wx' });
      } catch (writeErr) {
        if ((writeErr as NodeJS.ErrnoException).code !== 'EEXIST') throw writeErr;
        pem = readFileSync(file, 'utf8');
      }
    }
    const key = createPrivateKey(pem);
    if (key.asymmetricKeyType !== 'ed25519') throw new Error(`${file} is not an Ed25519 private key`);
    return new CheckpointSigner(key);
  }

  /** Ed25519 over `data`, base64: for the ledger's other signed statements (the retention boundary, boundary.ts). */
  signBytes(data: Buffer): string {
    return sign(null, data, this.#privateKey).toString('base64');
  }

  sign(fields: { tenant_id: string; tree_size: number; root_hash: string; timestamp: string }): Checkpoint {
    const unsigned = { ...fields, key_id: this.publicKey.key_id };
    const signature = this.signBytes(checkpointSigningInput(unsigned));
    return { tenant_id: fields.tenant_id, tree_size: fields.tree_size, root_hash: fields.root_hash, timestamp: fields.timestamp, key_id: unsigned.key_id, signature };
  }
}
