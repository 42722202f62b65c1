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

    it('revoking an unknown session is false', async () => {
      const other = await b.repos.sessions.open(uniqueId('ses'), 'usr_2', 'oidc');
      expect(await b.repos.sessions.revoke(`${other.token.slice(0, -2)}zz`)).toBe(false);
      expect(b.repos.sessions.find(other.token)?.revoked_at).toBeNull();
    });
  });
}
