import { hashToken, isWellFormedToken } from '@aduana/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueId, type OpenBackend, type StorageBackend } from './backend.js';

export function describeTokenRepository(open: OpenBackend): void {
  describe('TokenRepository', () => {
    let b: StorageBackend;
    let tenant: string;
    beforeAll(async () => {
      b = await open();
      tenant = uniqueId('tok');
      await b.repos.tenants.create(tenant, 'community');
    });
    afterAll(() => b.close());

    it('creates a token stored by its hash, found by token, hash and id, listed oldest first', async () => {
      const first = await b.repos.tokens.create({ tenantId: tenant, role: 'admin', name: 'first', expiresInDays: 30, agentId: 'agent-1' });
      const second = await b.repos.tokens.create({ tenantId: tenant, role: 'viewer', name: 'second', expiresInDays: 1 });
      expect(isWellFormedToken(first.token, 'pat')).toBe(true);
      expect(first.record).toMatchObject({ tenant_id: tenant, role: 'admin', name: 'first', revoked_at: null, last4: first.token.slice(-4), agent_id: 'agent-1' });
      expect(JSON.stringify(first.record)).not.toContain(first.token);
      expect(b.repos.tokens.findByToken(first.token)).toEqual(first.record);
      expect(b.repos.tokens.findByHash(hashToken(second.token))).toEqual(second.record);
      expect(b.repos.tokens.get(first.record.id)).toEqual(first.record);
      // Another last character (a token that already ends in x would otherwise be looked up unchanged).
      expect(b.repos.tokens.findByToken(`${first.token.slice(0, -1)}${first.token.endsWith('x') ? 'y' : 'x'}`)).toBeUndefined();
      expect(b.repos.tokens.list(tenant).map((t) => t.id)).toEqual([first.record.id, second.record.id]);
      expect(b.repos.tokens.list().map((t) => t.id)).toEqual(expect.arrayContaining([first.record.id, second.record.id]));
    });

    it('caps the expiry at notAfter', async () => {
      const notAfter = Date.now() + 3_600_000;
      const { record } = await b.repos.tokens.create({ tenantId: tenant, role: 'operator', name: 'capped', expiresInDays: 30, notAfter });
      expect(Date.parse(record.expires_at)).toBeLessThanOrEqual(notAfter);
    });

    it('revokes a token of its tenant only; revoking again keeps the first time', async () => {
      const { token, record } = await b.repos.tokens.create({ tenantId: tenant, role: 'admin', name: 'revoked', expiresInDays: 30 });
      expect(await b.repos.tokens.revoke(record.id, uniqueId('other'))).toBe(false);
      expect(b.repos.tokens.findByToken(token)?.revoked_at).toBeNull();
      expect(await b.repos.tokens.revoke('tok_unknown')).toBe(false);
      expect(await b.repos.tokens.revoke(record.id, tenant)).toBe(true);
      const revokedAt = b.repos.tokens.findByToken(token)?.revoked_at;
      expect(revokedAt).toEqual(expect.any(String));
      expect(await b.repos.tokens.revoke(record.id)).toBe(true);
      expect(b.repos.tokens.get(record.id)?.revoked_at).toBe(revokedAt);
    });

    it('rotates: a successor like the old token, whose expiry is brought forward to the grace period', async () => {
      const old = await b.repos.tokens.create({ tenantId: tenant, role: 'operator', name: 'deploy', expiresInDays: 30, agentId: 'a-7' });
      const out = await b.repos.tokens.rotate(old.record.id, 10, 3_600_000);
      if (out.kind !== 'rotated') throw new Error(`expected a rotation, got ${out.kind}`);
      expect(out.record).toMatchObject({ tenant_id: tenant, role: 'operator', name: 'deploy', agent_id: 'a-7', revoked_at: null });
      expect(b.repos.tokens.findByToken(out.token)).toEqual(out.record);
      const before = b.repos.tokens.get(old.record.id);
      expect(before).toMatchObject({ rotated_to: out.record.id, expires_at: out.oldExpiresAt });
      expect(Date.parse(out.oldExpiresAt)).toBeLessThanOrEqual(Date.now() + 3_600_000);
      expect(await b.repos.tokens.rotate('tok_unknown', 10, 0)).toEqual({ kind: 'not_found' });
      await b.repos.tokens.revoke(out.record.id);
      expect(await b.repos.tokens.rotate(out.record.id, 10, 0)).toEqual({ kind: 'not_active' });
    });
  });
}
