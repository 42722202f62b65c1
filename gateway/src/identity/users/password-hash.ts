import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * A stored password: scrypt with a per-user salt, and the parameters it was made with kept beside it, so the cost can
 * be raised later (PASSWORD_SCRYPT_LOG_N) without invalidating the hashes made before.
 */
export interface PasswordHash {
  algorithm: 'scrypt';
  log_n: number;
  r: number;
  p: number;
  /** base64 */
  salt: string;
  /** base64 */
  hash: string;
}

const KEY_LENGTH = 32;
const R = 8;
const P = 1;

function derive(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** logN;
  // scrypt needs 128 * N * r bytes; the default cap (32 MiB) is just short of N = 2^15.
  const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r };
  return new Promise((resolve, reject) => scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))));
}

export async function hashPassword(password: string, logN: number): Promise<PasswordHash> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, logN, R, P);
  return { algorithm: 'scrypt', log_n: logN, r: R, p: P, salt: salt.toString('base64'), hash: key.toString('base64') };
}

/** Constant-time comparison of the derived key. */
export async function verifyPassword(password: string, stored: PasswordHash): Promise<boolean> {
  const expected = Buffer.from(stored.hash, 'base64');
  const key = await derive(password, Buffer.from(stored.salt, 'base64'), stored.log_n, stored.r, stored.p);
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/**
 * The hash checked when the e-mail is unknown (or the account has no password, or is disabled): random salt and key
 * with the current parameters, so verifying against it runs the same scrypt work and fails, and the answer and its
 * time do not tell whether an account exists (docs/authentication.md). Nothing is derived to make it.
 */
export function dummyHash(logN: number): PasswordHash {
  return { algorithm: 'scrypt', log_n: logN, r: R, p: P, salt: randomBytes(16).toString('base64'), hash: randomBytes(KEY_LENGTH).toString('base64') };
}
