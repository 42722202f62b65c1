import { LRUCache } from 'lru-cache';
import { createPiiRedactor, type PiiRedactor } from '../pii/index.js';

const MAX_DEPTH = 8;

/**
 * PII redaction of everything telemetry keeps or forwards (docs/telemetry.md, "Redaction"): the proxy's recognizers,
 * every entity, compiled once (at first use). Ids (tenant, agent) are redacted too, since an operator may have named an agent after
 * a person; their redacted form is cached, as the same few ids come back on every export.
 */
export class Sanitizer {
  // Compiled at first use: a gateway that never ingests or forwards does not hold every recognizer in memory.
  #redactor: PiiRedactor | null = null;
  readonly #ids = new LRUCache<string, string>({ max: 10_000 });

  text(s: string): string {
    this.#redactor ??= createPiiRedactor();
    return this.#redactor.redact(s).text;
  }

  id(s: string): string {
    let out = this.#ids.get(s);
    if (out === undefined) {
      out = this.text(s);
      this.#ids.set(s, out);
    }
    return out;
  }

  /** A copy of a JSON value with every string (keys included) redacted; deeper than a few levels is cut. */
  value(v: unknown, depth = 0): unknown {
    if (typeof v === 'string') return this.text(v);
    if (v === null || typeof v !== 'object') return v;
    if (depth >= MAX_DEPTH) return '[TRUNCATED]';
    if (Array.isArray(v)) return v.map((x) => this.value(x, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[this.text(k)] = this.value(x, depth + 1);
    return out;
  }
}
