import { createHash, timingSafeEqual } from 'node:crypto';

const HASHED = /^sha256:([0-9a-fA-F]{64})$/;
/** A bearer value: printable ASCII without spaces (it travels in an Authorization header). */
const PLAIN = /^[\x21-\x7e]+$/;
const MIN_CHARS = 32;

function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * The operator's Prometheus scrape credential (METRICS_SCRAPE_TOKEN, docs/telemetry.md "Prometheus"): every tenant's
 * series, where a tenant's own token sees its tenant's alone. Set as the token itself (at least 32 printable
 * characters) or as `sha256:<64 hex>`, its SHA-256, so the gateway's configuration need not hold it in clear. Either
 * way only the hash is kept, and a bearer is compared by its SHA-256 in constant time (both digests are 32 bytes, so
 * neither the content nor the length of the secret shows in the time taken).
 */
export class ScrapeCredential {
  readonly #hash: Buffer;

  private constructor(hash: Buffer) {
    this.#hash = hash;
  }

  /** null when the setting is empty (no scrape credential); throws naming the setting when it is malformed. */
  static fromSetting(raw: string): ScrapeCredential | null {
    if (raw === '') return null;
    const hashed = HASHED.exec(raw);
    if (hashed) return new ScrapeCredential(Buffer.from((hashed[1] as string).toLowerCase(), 'hex'));
    if (raw.startsWith('sha256:')) throw new Error('METRICS_SCRAPE_TOKEN: sha256: must be followed by the 64 hex digits of the SHA-256 of the token');
    if (raw.length < MIN_CHARS || !PLAIN.test(raw)) {
      throw new Error(`METRICS_SCRAPE_TOKEN: at least ${MIN_CHARS} printable characters without spaces (e.g. openssl rand -hex 32), or sha256:<hex of its SHA-256>`);
    }
    return new ScrapeCredential(sha256(raw));
  }

  /** Whether a request's bearer token is the scrape credential. */
  matches(bearer: string): boolean {
    if (bearer === '') return false;
    return timingSafeEqual(sha256(bearer), this.#hash);
  }
}
