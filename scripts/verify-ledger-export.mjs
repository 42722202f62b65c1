#!/usr/bin/env node
// Verifies an aduana ledger export offline with nothing but Node's built-ins (no repo code, no dependencies), short
// enough for an auditor to read before trusting it:
//
//   node scripts/verify-ledger-export.mjs FILE.jsonl [--pubkey KEY.pem]
//
// Line 1 is a header (tenant, size, public key, signed checkpoints); then one entry per line. For each entry: seq
// continues from 1, tenant_id matches, prev_hash links to the previous entry, and
//   hash = SHA-256( prev_hash || JCS(entry without "hash") )      (hex; JCS = RFC 8785 canonical JSON)
// An RFC 9162 Merkle tree is rebuilt as it goes (leaf = SHA-256(0x00 || entry hash bytes), node = SHA-256(0x01 ||
// left || right)) and each checkpoint's root and Ed25519 signature are checked; the last must cover every entry.
// An export of a ledger that retention pruned starts at seq pruned_through + 1: the header's `boundary` (signed with
// the same key) carries the pruned entry's hash and the Merkle tree's frontier, whose root must equal the signed
// checkpoint at pruned_through; checkpoints below it can only be signature-checked.
// --pubkey pins the signing key; without it the header's key is used and its key_id printed for comparison.
// Exit 0: verified; 1: the chain or a checkpoint is broken (the first broken seq is printed); 2: unusable input.
import { createHash, createPublicKey, verify } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const FORMAT = 'aduana-ledger-export/1';
const BOUNDARY_KIND = 'aduana-ledger-pruned/1';

/** RFC 8785 for JSON-parsed values: ES number and string serialisation, object keys sorted by UTF-16 code units. */
function jcs(value) {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error('number not representable in JSON');
    return String(value); // Number.prototype.toString is RFC 8785's number form (and -0 prints as 0)
  }
  if (Array.isArray(value)) return `[${value.map(jcs).join(',')}]`;
  const keys = Object.keys(value).sort(); // the default sort compares UTF-16 code units, as RFC 8785 requires
  return `{${keys.map((k) => `${JSON.stringify(k)}:${jcs(value[k])}`).join(',')}}`;
}

function sha256(...parts) {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
}

function fail(code, message) {
  console.error(`FAIL: ${message}`);
  process.exit(code);
}

function checkpointSignatureOk(cp, publicKey) {
  const { signature, ...signed } = cp;
  try {
    return verify(null, Buffer.from(jcs(signed)), publicKey, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}

const args = process.argv.slice(2);
const pinAt = args.indexOf('--pubkey');
const pinnedPem = pinAt >= 0 ? readFileSync(args.splice(pinAt, 2)[1] ?? '', 'utf8') : null;
const file = args[0];
if (!file) fail(2, 'usage: node scripts/verify-ledger-export.mjs FILE.jsonl [--pubkey KEY.pem]');

let header = null;
let publicKey = null;
let checkpoints = [];
let nextCheckpoint = 0;
let seq = 0;
let prev = '0'.repeat(64);
const peaks = []; // right edge of the Merkle tree: [{ level, hash }]

function root() {
  let r = peaks[peaks.length - 1].hash;
  for (let i = peaks.length - 2; i >= 0; i--) r = sha256(Buffer.from([1]), peaks[i].hash, r);
  return r.toString('hex');
}

function readHeader(line) {
  try {
    header = JSON.parse(line);
    publicKey = createPublicKey(pinnedPem ?? header.public_key.pem);
  } catch (err) {
    fail(2, `first line is not a usable export header (${err.message})`);
  }
  if (header.format !== FORMAT || header.kind !== 'header') fail(2, 'first line is not an aduana ledger export header');
  checkpoints = [...header.checkpoints].sort((a, b) => a.tree_size - b.tree_size);
  for (const cp of checkpoints) {
    if (cp.tenant_id !== header.tenant_id) fail(1, `checkpoint at ${cp.tree_size} belongs to another tenant`);
    if (!checkpointSignatureOk(cp, publicKey)) fail(1, `checkpoint at tree size ${cp.tree_size}: bad signature`);
  }
  if (header.size > 0 && checkpoints.at(-1)?.tree_size !== header.size) fail(1, 'no signed checkpoint covers the whole export');
  if (header.boundary) startAtBoundary(header.boundary);
}

/** A pruned export: start from the signed boundary, which must fold to the signed checkpoint at its size. */
function startAtBoundary(b) {
  const { signature, ...signed } = b;
  let ok;
  try {
    ok = verify(null, Buffer.from(jcs({ ...signed, kind: BOUNDARY_KIND })), publicKey, Buffer.from(signature, 'base64'));
  } catch {
    ok = false;
  }
  if (!ok || b.tenant_id !== header.tenant_id) fail(1, `the pruning boundary at seq ${b.pruned_through}: bad signature`);
  const before = b.pruned_through - 1;
  if (!Number.isSafeInteger(before) || before < 0 || !Array.isArray(b.frontier)) fail(1, 'the pruning boundary is malformed');
  let i = 0;
  for (let level = Math.floor(Math.log2(Math.max(before, 1))); level >= 0; level--) {
    if (Math.floor(before / 2 ** level) % 2 === 1) peaks.push({ level, hash: Buffer.from(String(b.frontier[i++] ?? ''), 'hex') });
  }
  if (i !== b.frontier.length) fail(1, 'the pruning boundary is malformed');
  pushLeaf(Buffer.from(b.entry_hash, 'hex'));
  seq = b.pruned_through;
  prev = b.entry_hash;
  const cp = checkpoints.find((c) => c.tree_size === seq);
  if (!cp || cp.root_hash !== root() || b.root_hash !== cp.root_hash) fail(1, `the pruning boundary at seq ${seq} does not match the signed checkpoint at that size`);
  while (checkpoints[nextCheckpoint] && checkpoints[nextCheckpoint].tree_size <= seq) nextCheckpoint++;
}

function pushLeaf(entryHash) {
  let node = { level: 0, hash: sha256(Buffer.from([0]), entryHash) };
  while (peaks.length > 0 && peaks[peaks.length - 1].level === node.level) {
    node = { level: node.level + 1, hash: sha256(Buffer.from([1]), peaks.pop().hash, node.hash) };
  }
  peaks.push(node);
}

function checkEntry(line) {
  const expected = seq + 1;
  let entry;
  try {
    entry = JSON.parse(line);
  } catch {
    fail(1, `broken at seq ${expected}: line is not JSON`);
  }
  const { hash, ...withoutHash } = entry;
  if (entry.seq !== expected) fail(1, `broken at seq ${expected}: found seq ${entry.seq} (entry missing or moved)`);
  if (entry.tenant_id !== header.tenant_id) fail(1, `broken at seq ${expected}: tenant_id is not the export's`);
  if (entry.prev_hash !== prev) fail(1, `broken at seq ${expected}: prev_hash does not link to seq ${seq}`);
  const computed = sha256(prev + jcs(withoutHash));
  if (computed.toString('hex') !== hash) fail(1, `broken at seq ${expected}: hash does not match the entry's content`);
  pushLeaf(computed);
  seq = expected;
  prev = hash;
  for (let cp = checkpoints[nextCheckpoint]; cp && cp.tree_size === seq; cp = checkpoints[++nextCheckpoint]) {
    if (cp.root_hash !== root()) fail(1, `broken at or before seq ${seq}: Merkle root differs from the signed checkpoint at tree size ${seq}`);
  }
}

try {
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    if (line === '') continue;
    if (header === null) readHeader(line);
    else checkEntry(line);
  }
} catch (err) {
  fail(2, `cannot read ${file}: ${err.message}`);
}
if (header === null) fail(2, 'empty file');
if (seq !== header.size) fail(1, `broken at seq ${seq + 1}: the export holds ${seq} entries, its header says ${header.size}`);

const last = checkpoints.at(-1);
const from = header.boundary ? header.boundary.pruned_through : 0;
console.log(`OK  tenant ${header.tenant_id}: ${seq - from} entries${from ? ` (${from + 1}..${seq}; 1..${from} pruned by retention, proven by the signed boundary)` : ''}, head ${prev}`);
console.log(`    ${checkpoints.length} signed checkpoint(s) verified; key_id ${header.public_key.key_id}${pinnedPem ? ' (pinned)' : ' (from the file: compare it with the operator\'s published key id)'}`);
if (last) console.log(`    last checkpoint: size ${last.tree_size}, root ${last.root_hash}, ${last.timestamp}`);
