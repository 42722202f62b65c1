import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isWellFormedToken } from '@aduana/shared';
import { SESSION_TTL_MS, uniqueId, type OpenBackend, type StorageBackend } from './backend.js';

export function describeSessionRepository(open: OpenBackend): void {
  describe('SessionRepository', () => {
    let b: StorageBackend;
    beforeAll(async () => {
      b = await open();
    });
    afterAll(() => b.close());

    it('opens a session found by its token, with the configured lifetime; revokes it once', async () => {
      const tenant = uniqueId('ses');
      const { token, record } = await b.repos.sessions.open(tenant, 'usr_1', 'password');
      expect(isWellFormedToken(token, 'ses')).toBe(true);
      expect(record).toMatchObject({ tenant_id: tenant, user_id: 'usr_1', method: 'password', revoked_at: null });
      expect(Date.parse(record.expires_at) - Date.parse(record.created_at)).toBe(SESSION_TTL_MS);
      expect(b.repos.sessions.find(token)).toEqual(record);
      expect(b.repos.sessions.find('adu_ses_malformed')).toBeUndefined();
      expect(await b.repos.sessions.revoke(token)).toBe(true);
      const revokedAt = b.repos.sessions.find(token)?.revoked_at;
      expect(revokedAt).toEqual(expect.any(String));
      expect(await b.repos.sessions.revoke(token)).toBe(true);
      expect(b.repos.sessions.find(token)?.revoked_at).toBe(revokedAt);
    });

    it('prunes sessions that expired before the cut-off, revoked or not, and keeps the rest', async () => {
      const tenant = uniqueId('ses');
      const live = await b.repos.sessions.open(tenant, 'usr_3', 'password');
      const revoked = await b.repos.sessions.open(tenant, 'usr_4', 'oidc');
      await b.repos.sessions.revoke(revoked.token);
      // Nothing has expired yet: a cut-off of now keeps both.
      await b.repos.sessions.pruneExpired(new Date(), 1_000);
      expect(b.repos.sessions.find(live.token)).toEqual(live.record);
      expect(b.repos.sessions.find(revoked.token)?.revoked_at).toEqual(expect.any(String));
      // Past their lifetime both go, in batches of the given size.
      const later = new Date(Date.now() + SESSION_TTL_MS + 60_000);
      let pruned = 0;
      for (let n = -1; n !== 0; pruned += n) n = await b.repos.sessions.pruneExpired(later, 1);
      expect(pruned).toBeGreaterThanOrEqual(2);
      expect(b.repos.sessions.find(live.token)).toBeUndefined();
      expect(b.repos.sessions.find(revoked.token)).toBeUndefined();
      expect(await b.repos.sessions.revoke(live.token)).toBe(false);
    });

    it('revoking an unknown session is false', async () => {
      const other = await b.repos.sessions.open(uniqueId('ses'), 'usr_2', 'oidc');
      expect(await b.repos.sessions.revoke(`${other.token.slice(0, -2)}zz`)).toBe(false);
      expect(b.repos.sessions.find(other.token)?.revoked_at).toBeNull();
    });
  });
}
