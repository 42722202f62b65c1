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
  });
}
