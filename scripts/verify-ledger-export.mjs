#!/usr/bin/env node
// Verifies an aduana ledger export offline with nothing but Node's built-ins (no repo code, no dependencies), short
// enough for an auditor to read before trusting it:
//
//   node scripts/verify-ledger-export.mjs FILE.jsonl [--pubkey KEY.pem] [--tsa-cert TSA.pem]
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
// A checkpoint may carry an RFC 3161 time-stamp token (`anchor`, enterprise tenants): a CMS SignedData over a TSTInfo,
// read below with a small DER reader. Its imprint must be SHA-256 of the checkpoint's signed bytes (the JCS text its
// Ed25519 signature covers), its nonce the recorded one, and it must be signed (signed attributes: content type and
// message digest) by its one signer's certificate carried in the token, a certificate for time-stamping valid at the
// token's time. --tsa-cert pins the TSA: the signer must be that certificate or one it issued.
// Exit 0: verified; 1: the chain or a checkpoint is broken (the first broken seq is printed); 2: unusable input.
import { createHash, createPublicKey, verify, X509Certificate } from 'node:crypto';
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

/** The bytes a checkpoint's signature covers (and its time-stamp's imprint hashes): JCS of every field but these two. */
function signedBytes(cp) {
  const { signature: _signature, anchor: _anchor, ...signed } = cp;
  return Buffer.from(jcs(signed));
}

function checkpointSignatureOk(cp, publicKey) {
  try {
    return verify(null, signedBytes(cp), publicKey, Buffer.from(cp.signature, 'base64'));
  } catch {
    return false;
  }
}

// --- RFC 3161 time-stamp tokens: a DER reader just large enough for CMS SignedData, TSTInfo and X.509 names ---

/** The DER element at `at` of `buf`: its tag, its content and its whole encoding (both views of `buf`). */
function der(buf, at = 0) {
  const tag = buf[at];
  let len = buf[at + 1];
  let p = at + 2;
  if (tag === undefined || len === undefined || (tag & 0x1f) === 0x1f) throw new Error('not DER');
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4) throw new Error('not DER');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + (buf[p++] ?? NaN);
  }
  const end = p + len;
  if (!(end <= buf.length)) throw new Error('truncated DER');
  return { tag, content: buf.subarray(p, end), bytes: buf.subarray(at, end) };
}

function children(el) {
  const out = [];
  for (let p = 0; p < el.content.length; ) {
    const c = der(el.content, p);
    out.push(c);
    p += c.bytes.length;
  }
  return out;
}

function expectTag(el, tag, what) {
  if (!el || el.tag !== tag) throw new Error(`${what} is missing or malformed`);
  return el;
}

function oid(el) {
  const b = expectTag(el, 0x06, 'an object identifier').content;
  const arcs = [];
  let v = 0;
  for (const byte of b) {
    v = v * 128 + (byte & 0x7f);
    if (byte & 0x80) continue;
    if (arcs.length === 0) arcs.push(v < 80 ? Math.floor(v / 40) : 2, v < 80 ? v % 40 : v - 80);
    else arcs.push(v);
    v = 0;
  }
  return arcs.join('.');
}

function integer(el) {
  const b = expectTag(el, 0x02, 'an integer').content;
  const n = BigInt(`0x${b.toString('hex') || '0'}`);
  return b[0] & 0x80 ? n - (1n << BigInt(8 * b.length)) : n;
}

function generalizedTime(el) {
  const t = expectTag(el, 0x18, 'genTime').content.toString('latin1');
  const m = /^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\.\d+)?Z$/.exec(t);
  if (!m) throw new Error(`genTime ${t} is not a UTC GeneralizedTime`);
  return new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${m[7] ?? ''}Z`);
}

const HASHES = { '2.16.840.1.101.3.4.2.1': 'sha256', '2.16.840.1.101.3.4.2.2': 'sha384', '2.16.840.1.101.3.4.2.3': 'sha512' };
// Signature algorithm -> digest for node:crypto's verify ('' = the signer info's digest, null = none: Ed25519).
const SIGNATURES = {
  '1.2.840.113549.1.1.1': '',
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
  '1.3.101.112': null,
};

/** Checks one token for `message`; returns the signer's certificate, or throws saying what is wrong. */
function checkToken(token, message, nonce, pinned) {
  const [contentType, wrapped] = children(expectTag(der(token), 0x30, 'ContentInfo'));
  if (oid(contentType) !== '1.2.840.113549.1.7.2') throw new Error('is not a CMS SignedData');
  const sd = children(expectTag(der(expectTag(wrapped, 0xa0, 'the SignedData').content), 0x30, 'SignedData'));
  let i = 3;
  const certs = sd[i]?.tag === 0xa0 ? children(sd[i++]) : [];
  if (sd[i]?.tag === 0xa1) i++;
  const signers = children(expectTag(sd[i], 0x31, 'signerInfos'));
  const [eType, eWrapped] = children(expectTag(sd[2], 0x30, 'encapContentInfo'));
  if (oid(eType) !== '1.2.840.113549.1.9.16.1.4') throw new Error('does not hold a TSTInfo');
  const tstBytes = expectTag(der(expectTag(eWrapped, 0xa0, 'eContent').content), 0x04, 'eContent').content;
  const tst = children(expectTag(der(tstBytes), 0x30, 'TSTInfo'));
  const [imprintAlg, imprint] = children(expectTag(tst[2], 0x30, 'messageImprint'));
  if (oid(children(imprintAlg)[0]) !== '2.16.840.1.101.3.4.2.1') throw new Error('has an imprint that is not SHA-256');
  if (!expectTag(imprint, 0x04, 'hashedMessage').content.equals(sha256(message))) throw new Error("time-stamps other data (its imprint is not this checkpoint's)");
  const genTime = generalizedTime(tst[4]);
  const tokenNonce = tst.slice(5).find((el) => el.tag === 0x02);
  if (!tokenNonce || integer(tokenNonce) !== BigInt(nonce)) throw new Error('does not carry the nonce that was sent');

  if (signers.length !== 1) throw new Error('does not have exactly one signer');
  const si = children(signers[0]);
  const [sid, digestAlg, attrs, sigAlg, signature] = si.slice(1);
  const digest = HASHES[oid(children(expectTag(digestAlg, 0x30, 'digestAlgorithm'))[0])];
  if (!digest) throw new Error('uses an unsupported digest');
  let contentTypeOk = false;
  let digestOk = false;
  for (const attr of children(expectTag(attrs, 0xa0, 'signedAttrs'))) {
    const [type, values] = children(attr);
    const value = children(expectTag(values, 0x31, 'an attribute value'))[0];
    if (oid(type) === '1.2.840.113549.1.9.3') contentTypeOk = oid(value) === '1.2.840.113549.1.9.16.1.4';
    if (oid(type) === '1.2.840.113549.1.9.4') digestOk = expectTag(value, 0x04, 'messageDigest').content.equals(createHash(digest).update(tstBytes).digest());
  }
  if (!contentTypeOk) throw new Error('has no signed content-type attribute of TSTInfo');
  if (!digestOk) throw new Error("has a message-digest attribute that is not its TSTInfo's digest");

  // The signer: issuerAndSerialNumber (a SEQUENCE) or subjectKeyIdentifier ([0], SHA-1 of the public key bits).
  let signer = null;
  for (const c of certs.filter((el) => el.tag === 0x30)) {
    const tbs = children(children(c)[0]);
    const at = tbs[0].tag === 0xa0 ? 1 : 0;
    const [serial, , issuer] = tbs.slice(at);
    const keyBits = children(tbs[at + 5])[1].content.subarray(1);
    const match =
      sid.tag === 0x30
        ? children(sid)[0].bytes.equals(issuer.bytes) && children(sid)[1].content.equals(serial.content)
        : sid.tag === 0x80 && sid.content.equals(createHash('sha1').update(keyBits).digest());
    if (match) signer = new X509Certificate(c.bytes);
  }
  if (!signer) throw new Error("does not carry its signer's certificate");
  const sigDigest = SIGNATURES[oid(children(expectTag(sigAlg, 0x30, 'signatureAlgorithm'))[0])];
  if (sigDigest === undefined) throw new Error('uses an unsupported signature algorithm');
  const signedAttrs = Buffer.concat([Buffer.from([0x31]), attrs.bytes.subarray(1)]); // signed as a SET OF (RFC 5652 §5.4)
  let ok;
  try {
    ok = verify(sigDigest === null ? null : sigDigest || digest, signedAttrs, signer.publicKey, expectTag(signature, 0x04, 'signature').content);
  } catch {
    ok = false;
  }
  if (!ok) throw new Error('has a bad signature');
  if (!(signer.keyUsage ?? []).includes('1.3.6.1.5.5.7.3.8')) throw new Error('is signed by a certificate that is not for time-stamping');
  if (genTime < new Date(signer.validFrom) || genTime > new Date(signer.validTo)) throw new Error("was made outside its signing certificate's validity");
  if (pinned && signer.fingerprint256 !== pinned.fingerprint256 && !(signer.checkIssued(pinned) && signer.verify(pinned.publicKey))) {
    throw new Error('is not signed by the pinned TSA certificate (--tsa-cert) nor by one it issued');
  }
  return signer;
}

function readPem(at, flag) {
  try {
    return readFileSync(args.splice(at, 2)[1] ?? '', 'utf8');
  } catch (err) {
    fail(2, `${flag}: ${err.message}`);
  }
}

const args = process.argv.slice(2);
const pinAt = args.indexOf('--pubkey');
const pinnedPem = pinAt >= 0 ? readPem(pinAt, '--pubkey') : null;
const tsaAt = args.indexOf('--tsa-cert');
let pinnedTsa = null;
if (tsaAt >= 0) {
  try {
    pinnedTsa = new X509Certificate(readPem(tsaAt, '--tsa-cert'));
  } catch (err) {
    fail(2, `--tsa-cert: not a certificate (${err.message})`);
  }
}
const file = args[0];
if (!file) fail(2, 'usage: node scripts/verify-ledger-export.mjs FILE.jsonl [--pubkey KEY.pem] [--tsa-cert TSA.pem]');

let header = null;
let publicKey = null;
let checkpoints = [];
let nextCheckpoint = 0;
let stamped = 0;
let pending = 0;
const tsaSubjects = new Set();
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
    if (cp.anchor?.status === 'pending') pending++;
    if (cp.anchor?.status !== 'anchored') continue;
    try {
      tsaSubjects.add(checkToken(Buffer.from(String(cp.anchor.token), 'base64'), signedBytes(cp), String(cp.anchor.nonce), pinnedTsa).subject.replace(/\n/g, ', '));
    } catch (err) {
      fail(1, `checkpoint at tree size ${cp.tree_size}: time-stamp token ${err.message}`);
    }
    stamped++;
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
if (stamped > 0 || pending > 0) {
  console.log(`    ${stamped} checkpoint(s) time-stamped (RFC 3161), every token verified${pending ? `; ${pending} still waiting for the TSA` : ''}`);
  if (stamped > 0) console.log(`    TSA: ${[...tsaSubjects].join('; ')}${pinnedTsa ? ' (pinned)' : " (from the tokens: compare it with the operator's TSA, or pin it with --tsa-cert)"}`);
}
