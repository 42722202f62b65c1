import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EMPTY_ROOT, entryHash, entryHashOfBytes, leafHash, nodeHash, sha256Bytes } from './hash.js';

const reference = (...parts: Array<string | Uint8Array>): Buffer => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};

describe('the ledger hashes', () => {
  it('sha256Bytes is SHA-256 of its input, every digest byte kept (the latin1 hand-over loses none above 0x7f)', () => {
    expect(EMPTY_ROOT.toString('hex')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Bytes('abc').toString('hex')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    let high = 0;
    for (let i = 0; i < 2000; i++) {
      const input = randomBytes(i % 300);
      const digest = sha256Bytes(input);
      expect(digest.length).toBe(32);
      expect(digest.equals(reference(input))).toBe(true);
      high += digest.filter((b) => b >= 0x80).length;
    }
    expect(high).toBeGreaterThan(0);
  });

  it('entry, leaf and node hashes are RFC 9162 / the documented entry hash over their inputs', () => {
    const prev = 'ab'.repeat(32);
    const canonical = '{"created_at":"2026-11-25T00:00:00.000Z","payload":{"name":"Zoë ✓"},"seq":1}';
    const expected = reference(prev, Buffer.from(canonical, 'utf8'));
    expect(entryHash(prev, canonical).equals(expected)).toBe(true);
    expect(entryHashOfBytes(prev, Buffer.from(canonical, 'utf8')).equals(expected)).toBe(true);
    const left = randomBytes(32);
    const right = randomBytes(32);
    expect(leafHash(left).equals(reference(Buffer.from([0]), left))).toBe(true);
    expect(nodeHash(left, right).equals(reference(Buffer.from([1]), left, right))).toBe(true);
  });
});
