import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { ConfigError } from '../config/load-config.js';

/**
 * Secrets and texts at rest: AES-256-GCM under a 32-byte key, a fresh 96-bit nonce per seal, and associated data
 * naming what the sealed value belongs to (a webhook id, a tenant's decision), so a value copied onto another record
 * does not open. Sealed as nonce | tag | ciphertext (base64 for the string form).
 */
export interface SecretBox {
  seal(text: string, associated: string): string;
  open(sealed: string, associated: string): string;
  sealBytes(plain: string | Buffer, associated: string): Buffer;
  /** Throws when the key, the associated data or the bytes do not match. */
  openBytes(sealed: Buffer, associated: string): Buffer;
}

const HEX64 = /^[0-9a-fA-F]{64}$/;

/**
 * The box for a key given as 64 hexadecimal characters; undefined when the setting is empty (what needs it then
 * answers 503). `key` and `env` name the setting in the error a malformed key throws.
 */
export function secretBoxFrom(secretKeyHex: string, key: string, env: string): SecretBox | undefined {
  if (secretKeyHex === '') return undefined;
  if (!HEX64.test(secretKeyHex)) throw new ConfigError(key, env, 'must be 64 hexadecimal characters (32 bytes)');
  const k = Buffer.from(secretKeyHex, 'hex');
  const sealBytes = (plain: string | Buffer, associated: string): Buffer => {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', k, nonce);
    cipher.setAAD(Buffer.from(associated));
    const body = Buffer.concat([typeof plain === 'string' ? cipher.update(plain, 'utf8') : cipher.update(plain), cipher.final()]);
    return Buffer.concat([nonce, cipher.getAuthTag(), body]);
  };
  const openBytes = (raw: Buffer, associated: string): Buffer => {
    const decipher = createDecipheriv('aes-256-gcm', k, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(associated));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]);
  };
  return {
    seal: (text, associated) => sealBytes(text, associated).toString('base64'),
    open: (sealed, associated) => openBytes(Buffer.from(sealed, 'base64'), associated).toString('utf8'),
    sealBytes,
    openBytes,
  };
}
