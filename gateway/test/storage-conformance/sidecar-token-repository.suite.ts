import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken, isWellFormedToken } from '@aduana/shared';
import { uniqueId, type OpenBackend, type StorageBackend } from './backend.js';

export function describeSidecarTokenRepository(open: OpenBackend): void {
  describe('SidecarTokenRepository', () => {
    let b: StorageBackend;
    beforeAll(async () => {
      b = await open();
    });
    afterAll(() => b.close());

    it('creates a sidecar token stored by its hash only, scoped to tenants or to all; lists and revokes it', async () => {
      const name = uniqueId('sidecar');
      const scoped = await b.sidecarTokens.create(name, ['acme', 'beta', 'acme']);
      const all = await b.sidecarTokens.create(`${name}-all`, null);
      expect(isWellFormedToken(scoped.token, 'sct')).toBe(true);
      expect(scoped.record).toMatchObject({ name, tenants: ['acme', 'beta'], revoked_at: null, last4: scoped.token.slice(-4) });
      expect(all.record.tenants).toBeNull();
      expect(JSON.stringify(scoped.record)).not.toContain(scoped.token);
      expect(b.sidecarTokens.findByHash(hashToken(scoped.token))).toEqual(scoped.record);
      expect(b.sidecarTokens.findByHash(hashToken(`${scoped.token}x`))).toBeUndefined();
      const ids = b.sidecarTokens.list().map((r) => r.id);
      expect(ids.indexOf(scoped.record.id)).toBeLessThan(ids.indexOf(all.record.id));
      expect(await b.sidecarTokens.revoke(scoped.record.id)).toBe(true);
      const revokedAt = b.sidecarTokens.findByHash(hashToken(scoped.token))?.revoked_at;
      expect(revokedAt).toEqual(expect.any(String));
      expect(await b.sidecarTokens.revoke(scoped.record.id)).toBe(true);
      expect(b.sidecarTokens.findByHash(hashToken(scoped.token))?.revoked_at).toBe(revokedAt);
      expect(b.sidecarTokens.findByHash(hashToken(all.token))?.revoked_at).toBeNull();
      expect(await b.sidecarTokens.revoke('sct_unknown')).toBe(false);
    });

    it('rotates a token into a successor that keeps its ledger chains, revoking it at once, once', async () => {
      const name = uniqueId('rotated');
      const first = await b.sidecarTokens.create(name, ['acme']);
      const second = await b.sidecarTokens.rotate(first.record.id);
      if (second.kind !== 'rotated') throw new Error(`expected a rotation, got ${second.kind}`);
      expect(isWellFormedToken(second.token, 'sct')).toBe(true);
      expect(second.record).toMatchObject({ name, tenants: ['acme'], revoked_at: null, chain_owner: first.record.id, last4: second.token.slice(-4) });
      expect(b.sidecarTokens.findByHash(hashToken(second.token))).toEqual(second.record);
      expect(b.sidecarTokens.findByHash(hashToken(first.token))).toMatchObject({ id: first.record.id, revoked_at: expect.any(String), rotated_to: second.record.id });
      expect((await b.sidecarTokens.rotate(first.record.id)).kind).toBe('already_rotated');
      // The line keeps its first id as the chains' owner.
      const third = await b.sidecarTokens.rotate(second.record.id);
      expect(third.kind === 'rotated' && third.record.chain_owner).toBe(first.record.id);
      // A revoked token may be rotated (a leaked one is revoked first, then replaced).
      const leaked = await b.sidecarTokens.create(`${name}-leaked`, null);
      expect(await b.sidecarTokens.revoke(leaked.record.id)).toBe(true);
      const revokedAt = b.sidecarTokens.findByHash(hashToken(leaked.token))?.revoked_at;
      const replaced = await b.sidecarTokens.rotate(leaked.record.id);
      expect(replaced.kind === 'rotated' && replaced.record.chain_owner).toBe(leaked.record.id);
      expect(b.sidecarTokens.findByHash(hashToken(leaked.token))?.revoked_at).toBe(revokedAt);
      expect((await b.sidecarTokens.rotate('sct_unknown')).kind).toBe('not_found');
    });
  });
}
