import { canonicalJson } from '@aduana/shared/core';
import { LedgerError } from '../errors.js';
import { instantMs } from './instant.js';

/** What a caller appends. `created_at` defaults to the append time (ISO 8601, UTC). */
export interface LedgerInput {
  event_type: string;
  payload: Record<string, unknown>;
  metadata: Record<string, unknown>;
  /** The decision envelope (or a decision-like object) this event carried, or null. */
  decision: Record<string, unknown> | null;
  created_at?: string;
}

/** A chained entry as stored and returned. */
export interface LedgerEntry extends Required<LedgerInput> {
  seq: number;
  tenant_id: string;
  prev_hash: string;
  hash: string;
}

/**
 * An input validated and encoded before any chain state changes, so a bad item in a batch fails the whole batch
 * before anything is assigned or written. `prefix` is the canonical JSON of the five caller fields without its
 * closing brace: under RFC 8785's key order (created_at < decision < event_type < metadata < payload < prev_hash <
 * seq < tenant_id) the full entry's canonical text is `prefix + chainTail(...)` (as UTF-8 bytes).
 */
export interface PreparedInput extends ChainInput {
  /**
   * The caller's five fields, as given: not re-parsed from the canonical text (that cost ~10% of batch throughput).
   * canonicalize follows JSON.stringify's rules (toJSON, dropped undefined members), so their JSON form is exactly
   * what was hashed; `get`/`list` return the stored, parsed form.
   */
  fields: Required<LedgerInput>;
}

/** What the chain writer needs of an input: its bytes and the keys it is indexed and counted under. */
export interface ChainInput extends PreparedKeys {
  /** UTF-8, encoded once rather than per copy. */
  prefix: Buffer;
}

/** Where a chained entry landed: its seq and the hashes either side of it (the rest of the entry is the caller's input). */
export interface ChainLink {
  seq: number;
  prev_hash: string;
  hash: string;
}

/** The entry as returned: the caller's fields (as given) and where they were chained. */
export function chainedEntry(fields: Required<LedgerInput>, tenantId: string, link: ChainLink): LedgerEntry {
  return { ...fields, seq: link.seq, tenant_id: tenantId, prev_hash: link.prev_hash, hash: link.hash };
}

/** An input's index and counter keys: what a request thread hands the writer thread beside the text. */
export interface PreparedKeys {
  eventType: string;
  agentId: string | null;
  /** agent id and event_type joined by \0 (neither holds control characters): the batch's counter grouping. */
  countKey: string;
}

/** An input validated with its canonical text not yet encoded: the form that crosses to the writer thread as a string. */
export interface PreparedText extends PreparedKeys {
  /** The canonical JSON without its closing brace. */
  text: string;
  fields: Required<LedgerInput>;
}

/**
 * Longest tenant id, agent id and event_type, in UTF-8 bytes: they are parts of LMDB keys, and the longest key
 * (tenant, agent, event_type, seq) must stay under lmdb-js's 1,978-byte limit so a put can never throw mid-batch.
 */
export const MAX_NAME_LENGTH = 256;
// Control characters are refused in key parts so no two distinct key tuples can encode alike.
function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

export function isValidName(value: unknown): value is string {
  return (
    typeof value === 'string' && value.length > 0 && value.length <= MAX_NAME_LENGTH && !hasControlCharacter(value) && Buffer.byteLength(value) <= MAX_NAME_LENGTH
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function prepareInput(input: unknown, index: number, now: string, maxEntryBytes: number): PreparedInput {
  const p = prepareText(input, index, now, maxEntryBytes);
  return { prefix: Buffer.from(p.text), eventType: p.eventType, agentId: p.agentId, countKey: p.countKey, fields: p.fields };
}

/** prepareInput without encoding the text: validation, canonical JSON and the size limit, all before any chain state changes. */
export function prepareText(input: unknown, index: number, now: string, maxEntryBytes: number): PreparedText {
  const bad = (why: string): LedgerError => new LedgerError('invalid_input', `events[${index}]: ${why}`, index);
  if (!isPlainObject(input)) throw bad('must be an object');
  const { event_type: eventType, payload, metadata } = input;
  const decision = input.decision ?? null;
  const createdAt = input.created_at ?? now;
  if (!isValidName(eventType)) throw bad(`event_type must be a non-empty string of at most ${MAX_NAME_LENGTH} UTF-8 bytes without control characters`);
  if (!isPlainObject(payload)) throw bad('payload must be an object');
  if (!isPlainObject(metadata)) throw bad('metadata must be an object');
  if (decision !== null && !isPlainObject(decision)) throw bad('decision must be an object or null');
  if (typeof createdAt !== 'string' || Number.isNaN(instantMs(createdAt))) throw bad('created_at must be an ISO 8601 date-time string');
  const agent = metadata.agent_id;
  let agentId: string | null = null;
  if (agent !== undefined && agent !== null) {
    if (!isValidName(agent)) throw bad(`metadata.agent_id must be a non-empty string of at most ${MAX_NAME_LENGTH} UTF-8 bytes without control characters`);
    agentId = agent;
  }
  let canonical: string;
  try {
    canonical = canonicalJson({ created_at: createdAt, decision, event_type: eventType, metadata, payload });
  } catch (err) {
    throw bad(`not JSON-serialisable (${err instanceof Error ? err.message : String(err)})`);
  }
  const fields = { created_at: createdAt, decision, event_type: eventType, metadata, payload };
  // UTF-8 is at most three bytes per UTF-16 unit: most entries need no count.
  if (canonical.length * 3 > maxEntryBytes && Buffer.byteLength(canonical) > maxEntryBytes) throw bad(`larger than ${maxEntryBytes} bytes`);
  return { text: canonical.slice(0, -1), eventType, agentId, countKey: `${agentId ?? ''}\0${eventType}`, fields };
}

/** The canonical text's fixed tail after `prefix`: prev_hash, seq and tenant_id (JSON-encoded), then `}`. */
export function chainTail(prevHash: string, seq: number, tenantJson: string): string {
  return `,"prev_hash":"${prevHash}","seq":${seq},"tenant_id":${tenantJson}}`;
}
