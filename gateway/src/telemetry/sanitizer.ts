import { LRUCache } from 'lru-cache';
import { createPiiRedactor, type PiiRedactor } from '../policy/pii/index.js';

const MAX_DEPTH = 8;
/**
 * Integers from this size up are read as digits too: a card, a CPF or a phone sent as a JSON number. Below it no
 * entity fits (the shortest, a bare CPF, has 11 digits; a CPF with a leading zero loses it as a number and has 10).
 */
const NUMERIC_FROM = 1e9;

/** A log as telemetry keeps and forwards it: every field that may carry personal data, redacted. */
export interface SanitizedLog {
  message: string;
  attributes: Record<string, unknown>;
  agentId: string;
  traceId: string;
  /** `attributes.ruleId` when it is a string (redacted like the rest): the rule an error event belongs to. */
  ruleId: string;
}

/** What an ingested log holds before redaction (POST /v1/telemetry/ingest, or a control plane's own ingest). */
export interface LogInput {
  agentId: string;
  traceId: string;
  log: { message: string; attributes?: Record<string, unknown> | undefined };
}

/**
 * PII redaction of everything telemetry keeps or forwards (docs/telemetry.md, "Redaction"): the proxy's recognizers,
 * every entity, compiled once (at first use), with their normalisation of encoded text (full-width characters,
 * percent-encoding, HTML entities). Ids (tenant, agent, trace) are redacted too, since an operator may have named an
 * agent after a person; tenant and agent ids' redacted form is cached, as the same few come back on every export.
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

  /**
   * A copy of a JSON value with every string (keys included) redacted; deeper than a few levels is cut. A large
   * integer is read as its digits, and as an E.164 number (a phone stored as a number has lost its `+`): when either
   * holds an entity, the value becomes its redaction label, a string.
   */
  value(v: unknown, depth = 0): unknown {
    if (typeof v === 'string') return this.text(v);
    if (typeof v === 'number') return this.#number(v);
    if (v === null || typeof v !== 'object') return v;
    if (depth >= MAX_DEPTH) return '[TRUNCATED]';
    if (Array.isArray(v)) return v.map((x) => this.value(x, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[this.text(k)] = this.value(x, depth + 1);
    return out;
  }

  #number(n: number): number | string {
    if (!Number.isInteger(n) || Math.abs(n) < NUMERIC_FROM) return n;
    const digits = String(Math.abs(n));
    const plain = this.text(digits);
    if (plain !== digits) return plain;
    const e164 = `+${digits}`;
    const phone = this.text(e164);
    return phone !== e164 ? phone : n;
  }
}

let shared: Sanitizer | null = null;

/**
 * The sanitiser's entry point for one log: its message, attributes, agent and trace ids redacted, and the rule its
 * error event belongs to. A plain function, so whatever ingests logs (a gateway, a control plane) redacts them alike;
 * `sanitizer` shares one id cache between calls (default: one for the process).
 */
export function sanitizeLog(input: LogInput, sanitizer: Sanitizer = (shared ??= new Sanitizer())): SanitizedLog {
  const attributes = sanitizer.value(input.log.attributes ?? {}) as Record<string, unknown>;
  const rule = attributes['ruleId'];
  return {
    message: sanitizer.text(input.log.message),
    attributes,
    agentId: sanitizer.id(input.agentId),
    // Trace ids are mostly unique: not worth a place in the id cache.
    traceId: sanitizer.text(input.traceId),
    ruleId: typeof rule === 'string' ? rule : '',
  };
}
