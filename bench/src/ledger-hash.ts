/**
 * Which SHA-256 the ledger uses: node:crypto (streaming createHash, one-shot crypto.hash) against @noble/hashes,
 * on the two shapes the ledger hashes: an entry (64 hex chars of prev_hash + ~450 bytes of canonical JSON) and a
 * Merkle node (0x01 || left || right, 65 bytes). The one-shot rows ask for the digest two ways: as a Buffer of its
 * own, and as a latin1 string copied into a pooled Buffer (what the ledger's sha256Bytes does).
 *
 * Run: `npx tsc -b && node bench/dist/ledger-hash.js`.
 */
import { createHash, hash as oneShotHash } from 'node:crypto';
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { sha256Bytes } from '@aduana/gateway/ledger';

const prevHex = 'ab'.repeat(32);
const canonical = JSON.stringify({
  created_at: '2026-11-22T06:00:00.000Z',
  decision: { decision_id: 'dec_0123456789abcdef', execution_status: 'ALLOW', risk_score: 12.5, policies: ['p1', 'p2'] },
  event_type: 'tool_call',
  metadata: { agent_id: 'agent-42', trace_id: '4bf92f3577b34da6a3ce929d0e0e4736' },
  payload: { tool: 'search', args: { q: 'quarterly revenue by region', top_k: 10 }, note: 'x'.repeat(120) },
  prev_hash: prevHex,
  seq: 123456,
  tenant_id: 'default',
});
const entryBytes = Buffer.from(prevHex + canonical);
const node = Buffer.alloc(65, 7);
const encoder = new TextEncoder();

function time(label: string, fn: () => unknown, iterations: number): { label: string; opsPerSec: number } {
  for (let i = 0; i < 2_000; i++) fn(); // warm-up: let V8 optimise before measuring
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) fn();
  const ns = Number(process.hrtime.bigint() - start);
  return { label, opsPerSec: Math.round((iterations / ns) * 1e9) };
}

const n = 200_000;
const rows = [
  time('entry: createHash().update(prev).update(canonical)', () => createHash('sha256').update(prevHex).update(canonical).digest(), n),
  time('entry: crypto.hash(prev + canonical)', () => oneShotHash('sha256', prevHex + canonical, 'buffer'), n),
  time('entry: crypto.hash(bytes)', () => oneShotHash('sha256', entryBytes, 'buffer'), n),
  time('entry: sha256Bytes(bytes) (latin1 digest)', () => sha256Bytes(entryBytes), n),
  time('entry: @noble sha256(utf8(prev + canonical))', () => nobleSha256(encoder.encode(prevHex + canonical)), n),
  time('entry: @noble sha256(bytes)', () => nobleSha256(entryBytes), n),
  time('node:  createHash().update(65 B)', () => createHash('sha256').update(node).digest(), n),
  time('node:  crypto.hash(65 B)', () => oneShotHash('sha256', node, 'buffer'), n),
  time('node:  sha256Bytes(65 B) (latin1 digest)', () => sha256Bytes(node), n),
  time('node:  @noble sha256(65 B)', () => nobleSha256(node), n),
];
console.log(`entry input ${entryBytes.length} bytes; Node ${process.version}`);
console.table(rows);
