import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewUser } from '../../src/identity/users/user-store.js';
import { uniqueId, type OpenBackend, type StorageBackend } from './backend.js';

function user(tenantId: string, email: string, oidc: NewUser['oidc'] = null): NewUser {
  return { tenantId, email, name: email, role: 'viewer', provider: oidc ? 'oidc' : 'password', password: null, oidc };
}

export function describeUserRepository(open: OpenBackend): void {
  describe('UserRepository', () => {
    let b: StorageBackend;
    let tenant: string;
    beforeAll(async () => {
      b = await open();
      tenant = uniqueId('usr');
      await b.repos.tenants.create(tenant, 'community');
    });
    afterAll(() => b.close());

    it('creates a user found by id, e-mail and subject, listed oldest first', async () => {
      const mail = `${uniqueId('a')}@example.com`;
      const a = await b.repos.users.create(user(tenant, mail, { iss: 'https://idp.example', sub: uniqueId('sub') }));
      if (!a) throw new Error('not created');
      const c = await b.repos.users.create(user(tenant, `${uniqueId('c')}@example.com`));
      expect(a).toMatchObject({ tenant_id: tenant, email: mail, disabled_at: null });
      expect(b.repos.users.get(a.id)).toEqual(a);
      expect(b.repos.users.byEmail(mail)).toEqual(a);
      expect(b.repos.users.bySubject('https://idp.example', a.oidc?.sub ?? '')).toEqual(a);
      expect(b.repos.users.bySubject('https://other.example', a.oidc?.sub ?? '')).toBeUndefined();
      expect(b.repos.users.list(tenant).map((u) => u.id)).toEqual([a.id, c?.id]);
    });

    it('an e-mail or a subject taken (in any tenant) answers undefined and changes nothing', async () => {
      const mail = `${uniqueId('dup')}@example.com`;
      const sub = uniqueId('sub');
      const first = await b.repos.users.create(user(tenant, mail, { iss: 'https://idp.example', sub }));
      expect(await b.repos.users.create(user(uniqueId('elsewhere'), mail))).toBeUndefined();
      const other = `${uniqueId('other')}@example.com`;
      expect(await b.repos.users.create(user(tenant, other, { iss: 'https://idp.example', sub }))).toBeUndefined();
      expect(b.repos.users.byEmail(other)).toBeUndefined();
      expect(b.repos.users.byEmail(mail)).toEqual(first);
    });

    it('of two concurrent creations of one e-mail exactly one wins', async () => {
      const mail = `${uniqueId('race')}@example.com`;
      const out = await Promise.all([b.repos.users.create(user(tenant, mail)), b.repos.users.create(user(tenant, mail))]);
      const won = out.filter((u) => u !== undefined);
      expect(won).toHaveLength(1);
      expect(b.repos.users.byEmail(mail)).toEqual(won[0]);
    });

    it('disables a user of its tenant only; disabling again keeps the first time', async () => {
      const u = await b.repos.users.create(user(tenant, `${uniqueId('off')}@example.com`));
      if (!u) throw new Error('not created');
      expect(await b.repos.users.disable(uniqueId('other'), u.id)).toBeUndefined();
      expect(b.repos.users.get(u.id)?.disabled_at).toBeNull();
      const off = await b.repos.users.disable(tenant, u.id);
      expect(off?.disabled_at).toEqual(expect.any(String));
      expect((await b.repos.users.disable(tenant, u.id))?.disabled_at).toBe(off?.disabled_at);
      expect(b.repos.users.get(u.id)?.disabled_at).toBe(off?.disabled_at);
      expect(await b.repos.users.disable(tenant, 'usr_unknown')).toBeUndefined();
    });
  });
}
