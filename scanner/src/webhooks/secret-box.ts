import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { ConfigError } from '@aduana/shared';

/**
 * Webhook signing secrets at rest: AES-256-GCM under SCANNER_SECRET_KEY, a fresh 96-bit nonce per secret, and the
 * webhook's id as associated data, so a sealed secret copied onto another webhook record does not open.
 * Stored as base64 of nonce | tag | ciphertext.
 */
export interface SecretBox {
  seal(secret: string, webhookId: string): string;
  open(sealed: string, webhookId: string): string;
}

const HEX64 = /^[0-9a-fA-F]{64}$/;

/** The box for SCANNER_SECRET_KEY; undefined when the key is unset (webhook creation then answers 503). */
export function secretBoxFrom(secretKeyHex: string): SecretBox | undefined {
  if (secretKeyHex === '') return undefined;
  if (!HEX64.test(secretKeyHex)) throw new ConfigError('secretKey', 'SCANNER_SECRET_KEY', 'must be 64 hexadecimal characters (32 bytes)');
  const key = Buffer.from(secretKeyHex, 'hex');
  return {
    seal(secret, webhookId) {
      const nonce = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, nonce);
      cipher.setAAD(Buffer.from(webhookId));
      const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return Buffer.concat([nonce, cipher.getAuthTag(), body]).toString('base64');
    },
    open(sealed, webhookId) {
      const raw = Buffer.from(sealed, 'base64');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(webhookId));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}

/** A new signing secret: 32 random bytes, base64url, with a prefix that says what it is. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}
