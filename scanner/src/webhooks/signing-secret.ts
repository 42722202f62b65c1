import { randomBytes } from 'node:crypto';

/** A new signing secret: 32 random bytes, base64url, with a prefix that says what it is. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}
