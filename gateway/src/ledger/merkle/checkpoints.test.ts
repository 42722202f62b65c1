import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SIGNING_KEY_FILE, verifyCheckpointSignature, verifyConsistency, verifyInclusion } from '../index.js';
import { event, TempLedger } from '../../../test/helpers/ledger/temp-ledger.js';

const open: TempLedger[] = [];
function temp(options: ConstructorParameters<typeof TempLedger>[0] = {}): TempLedger {
  const t = new TempLedger(options);
  open.push(t);
  return t;
}
afterEach(async () => {
  for (const t of open.splice(0)) await t.dispose();
});

async function appendSingles(t: TempLedger, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await t.ledger.append('acme', [event(i)]);
}

describe('signed checkpoints', () => {
  it('signs one every N durable entries with a key kept in keyDir (mode 0600) across restarts', async () => {
    const t = temp({ checkpointEvery: 10 });
    await appendSingles(t, 25);
    await t.root.flushed;
    const cps = t.ledger.checkpoints('acme');
    expect(cps.map((cp) => cp.tree_size)).toEqual([10, 20]);
    for (const cp of cps) {
      expect(verifyCheckpointSignature(cp, t.ledger.publicKey)).toBe(true);
      expect(cp.root_hash).toBe(t.ledger.rootAt('acme', cp.tree_size));
    }
    expect(statSync(join(t.dir, SIGNING_KEY_FILE)).mode & 0o777).toBe(0o600);
    const keyId = t.ledger.publicKey.key_id;
    const reopened = await t.reopen({ checkpointEvery: 10 });
    expect(reopened.publicKey.key_id).toBe(keyId);
    expect(reopened.latestCheckpoint('acme')?.tree_size).toBe(25); // close signs the tail
    expect(await reopened.verify('acme')).toMatchObject({ ok: true, checkpointsChecked: 3 });
  });

  it('rejects a forged or re-keyed checkpoint', async () => {
    const t = temp();
    await appendSingles(t, 3);
    const cp = t.ledger.checkpointNow('acme')!;
    expect(verifyCheckpointSignature(cp, t.ledger.publicKey)).toBe(true);
    expect(verifyCheckpointSignature({ ...cp, tree_size: 2 }, t.ledger.publicKey)).toBe(false);
    expect(verifyCheckpointSignature({ ...cp, root_hash: 'ab'.repeat(32) }, t.ledger.publicKey)).toBe(false);
    const other = temp();
    expect(verifyCheckpointSignature(cp, other.ledger.publicKey)).toBe(false);
    expect(verifyCheckpointSignature({ ...cp, key_id: other.ledger.publicKey.key_id }, other.ledger.publicKey)).toBe(false);
  });

  it('signs on the interval when new entries exist, and not when none do', async () => {
    const t = temp({ checkpointIntervalMs: 40 });
    await t.ledger.append('acme', [event(1), event(2), event(3)]); // one batch: no tick can land between entries
    await new Promise((r) => setTimeout(r, 150));
    await t.root.flushed;
    expect(t.ledger.checkpoints('acme').map((cp) => cp.tree_size)).toEqual([3]);
    await new Promise((r) => setTimeout(r, 100));
    expect(t.ledger.checkpoints('acme')).toHaveLength(1);
  });
});

describe('Merkle proofs through the ledger', () => {
  it('proves every entry against a signed checkpoint, and consistency between checkpoints', async () => {
    const t = temp({ checkpointEvery: 7 });
    await appendSingles(t, 30);
    await t.root.flushed;
    const cps = t.ledger.checkpoints('acme');
    expect(cps.map((cp) => cp.tree_size)).toEqual([7, 14, 21, 28]);
    const last = cps[cps.length - 1]!;
    for (let seq = 1; seq <= last.tree_size; seq++) {
      const proof = t.ledger.inclusionProof('acme', seq, last.tree_size);
      expect(proof.root_hash).toBe(last.root_hash);
      expect(proof.entry_hash).toBe(t.ledger.get('acme', seq)!.hash);
      expect(verifyInclusion(proof)).toBe(true);
      expect(verifyInclusion({ ...proof, entry_hash: t.ledger.get('acme', (seq % 30) + 1)!.hash })).toBe(false);
      if (proof.audit_path.length > 0) expect(verifyInclusion({ ...proof, audit_path: [...proof.audit_path].reverse().concat('00'.repeat(32)) })).toBe(false);
    }
    for (const from of cps) {
      for (const to of cps.filter((cp) => cp.tree_size > from.tree_size)) {
        const proof = t.ledger.consistencyProof('acme', from.tree_size, to.tree_size);
        expect([proof.from_root, proof.to_root]).toEqual([from.root_hash, to.root_hash]);
        expect(verifyConsistency(proof)).toBe(true);
        expect(verifyConsistency({ ...proof, proof: proof.proof.slice(0, -1) })).toBe(false);
        expect(verifyConsistency({ ...proof, from_root: cps[0]!.root_hash === from.root_hash ? to.root_hash : cps[0]!.root_hash })).toBe(false);
      }
    }
    const head = t.ledger.inclusionProof('acme', 30);
    expect(head.tree_size).toBe(30);
    expect(verifyInclusion(head)).toBe(true);
    expect(() => t.ledger.inclusionProof('acme', 31)).toThrow(/not in the tree/);
    expect(() => t.ledger.inclusionProof('acme', 1, 31)).toThrow(/tree size/);
    expect(() => t.ledger.consistencyProof('acme', 0, 10)).toThrow(/from size/);
    expect(() => t.ledger.inclusionProof('other', 1)).toThrow(/tree size/);
  });
});
