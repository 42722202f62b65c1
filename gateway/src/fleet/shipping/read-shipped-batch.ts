import { isAscii } from 'node:buffer';
import type { Checkpoint, LedgerPublicKey } from '../../ledger/merkle/checkpoint.js';
import type { LedgerEntry } from '../../ledger/log/entry-input.js';
import { isValidName } from '../../ledger/log/entry-input.js';
import { isHashHex } from '../../ledger/log/hash.js';
import { instantMs } from '../../ledger/log/instant.js';
import { GatewayError } from '../../errors.js';
import { SHIPPING_FORMAT, type ShippedBatch } from './shipping-format.js';


function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function bad(why: string): GatewayError {
  return new GatewayError('invalid_request', why);
}

/**
 * Where in the body a field is: a path, or the index of an entry. Entries are named only when one is refused, since
 * building `entries[i]` for each of a batch's thousands of entries was 1.6 % of the ingest's CPU.
 */
type Where = string | number;

const named = (where: Where): string => (typeof where === 'number' ? `entries[${where}]` : where);

function str(obj: Record<string, unknown>, key: string, where: Where): string {
  const v = obj[key];
  if (typeof v !== 'string') throw bad(`${named(where)}.${key}: string required`);
  return v;
}

function seqOf(obj: Record<string, unknown>, key: string, where: Where): number {
  const v = obj[key];
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) throw bad(`${named(where)}.${key}: positive integer required`);
  return v;
}

function readEntry(raw: unknown, where: number): LedgerEntry {
  if (!isObject(raw)) throw bad(`${named(where)}: object required`);
  const eventType = str(raw, 'event_type', where);
  if (!isValidName(eventType)) throw bad(`${named(where)}.event_type: not a valid event type`);
  const createdAt = str(raw, 'created_at', where);
  if (Number.isNaN(instantMs(createdAt))) throw bad(`${named(where)}.created_at: ISO 8601 date-time required`);
  const { payload, metadata, decision } = raw;
  if (!isObject(payload)) throw bad(`${named(where)}.payload: object required`);
  if (!isObject(metadata)) throw bad(`${named(where)}.metadata: object required`);
  if (decision !== null && !isObject(decision)) throw bad(`${named(where)}.decision: object or null required`);
  const agent = metadata.agent_id;
  if (agent !== undefined && agent !== null && !isValidName(agent)) throw bad(`${named(where)}.metadata.agent_id: not a valid agent id`);
  const prevHash = str(raw, 'prev_hash', where);
  const hash = str(raw, 'hash', where);
  // Their digits are verify-batch.ts's to check: `hash` must equal the recomputed hash as lowercase hex, and each
  // prev_hash the hash before it (or the stored head), so a hash that is not hex is refused there (422) without two
  // 64-character scans per entry here (6 % of the ingest's CPU).
  if (prevHash.length !== 64 || hash.length !== 64) throw bad(`${named(where)}: prev_hash and hash must be 64 lowercase hex digits`);
  // Only the ledger's own fields: anything else would be neither hashed nor stored.
  return {
    created_at: createdAt,
    decision: decision,
    event_type: eventType,
    metadata,
    payload,
    prev_hash: prevHash,
    seq: seqOf(raw, 'seq', where),
    tenant_id: str(raw, 'tenant_id', where),
    hash,
  };
}

function readCheckpoint(raw: unknown, where: string): Checkpoint {
  if (!isObject(raw)) throw bad(`${where}: object required`);
  const root = str(raw, 'root_hash', where);
  if (!isHashHex(root)) throw bad(`${where}.root_hash: 64 lowercase hex digits required`);
  return {
    tenant_id: str(raw, 'tenant_id', where),
    tree_size: seqOf(raw, 'tree_size', where),
    root_hash: root,
    timestamp: str(raw, 'timestamp', where),
    key_id: str(raw, 'key_id', where),
    signature: str(raw, 'signature', where),
  };
}

function readPublicKey(raw: unknown): LedgerPublicKey {
  if (!isObject(raw)) throw bad('public_key: object required');
  return { key_id: str(raw, 'key_id', 'public_key'), pem: str(raw, 'pem', 'public_key'), raw: str(raw, 'raw', 'public_key') };
}

/**
 * A POST /v1/fleet/ledger body as JSON (400 `invalid_json` when it is not). Unlike other routes' bodies it is not
 * scanned for nesting depth and duplicate keys first (that scan was a sixth of the ingest's CPU, bench:fleet-ingest):
 * JSON.parse itself does not recurse, every entry's payload, metadata and decision then go through the canonical
 * walk that refuses nesting past 64 levels (422), and what is hashed and stored is the parsed value's canonical
 * form, so a duplicated key cannot be read one way and stored another (docs/fleet.md, "Shipping the ledger").
 */
export function parseShippedBody(raw: Buffer): unknown {
  if (raw.length === 0) throw new GatewayError('invalid_json', 'request body is empty');
  try {
    // A body of ASCII (most are: a payload may hold any text, the rest of an entry is ASCII) reads as latin1 to the
    // same string without UTF-8 decoding, in a third of the time for a 3 MB batch.
    return JSON.parse(isAscii(raw) ? raw.toString('latin1') : raw.toString('utf8')) as unknown;
  } catch {
    throw new GatewayError('invalid_json');
  }
}

/**
 * The shape of a POST /v1/fleet/ledger body (400 `invalid_request` when it is not a batch at all); whether it
 * verifies is verify-batch.ts's question (422/409). Limits: at most `maxEntries` entries and as many checkpoints.
 */
export function readShippedBatch(body: unknown, maxEntries: number): ShippedBatch {
  if (!isObject(body)) throw bad('body: a ledger batch object is required');
  if (body.format !== SHIPPING_FORMAT) throw bad(`format: must be "${SHIPPING_FORMAT}"`);
  const chainId = str(body, 'chain_id', 'batch');
  const tenantId = str(body, 'tenant_id', 'batch');
  if (!isValidName(tenantId)) throw bad('tenant_id: not a valid tenant id');
  const slash = chainId.indexOf('/');
  if (slash < 1 || chainId.length > 600 || chainId.slice(slash + 1) !== tenantId || !isValidName(chainId.slice(0, slash))) {
    throw bad('chain_id: must be "<instance id>/<tenant id>" of this tenant');
  }
  const { entries, checkpoints } = body;
  if (!Array.isArray(entries) || !Array.isArray(checkpoints)) throw bad('entries and checkpoints: arrays required');
  if (entries.length > maxEntries) throw new GatewayError('payload_too_large', `a ledger batch holds at most ${maxEntries} entries; this one has ${entries.length}`);
  if (checkpoints.length > maxEntries) throw new GatewayError('payload_too_large', `a ledger batch holds at most ${maxEntries} checkpoints`);
  if (entries.length === 0 && checkpoints.length === 0) throw bad('a ledger batch holds at least one entry or checkpoint');
  return {
    format: SHIPPING_FORMAT,
    chain_id: chainId,
    tenant_id: tenantId,
    public_key: readPublicKey(body.public_key),
    entries: entries.map((e, i) => readEntry(e, i)),
    checkpoints: checkpoints.map((c, i) => readCheckpoint(c, `checkpoints[${i}]`)),
  };
}
