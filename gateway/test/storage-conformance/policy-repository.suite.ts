import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile, ratePolicy, uniqueId, type OpenBackend, type StorageBackend } from './backend.js';

export function describePolicyRepository(open: OpenBackend): void {
  describe('PolicyRepository', () => {
    let b: StorageBackend;
    let tenant: string;
    beforeAll(async () => {
      b = await open();
    });
    afterAll(() => b.close());
    async function freshTenant(): Promise<string> {
      tenant = uniqueId('pol');
      await b.repos.tenants.create(tenant, 'community');
      return tenant;
    }

    it('creates policies in id order, each change bumping policy_version and compiling the set it writes', async () => {
      const t = await freshTenant();
      const a = await b.repos.policies.create(t, ratePolicy('a'), compile);
      expect(a.compiled).toEqual({ ids: [a.record.id], version: 1 });
      const c = await b.repos.policies.create(t, ratePolicy('c'), compile);
      expect(c.compiled).toEqual({ ids: [a.record.id, c.record.id], version: 2 });
      expect(b.repos.policies.version(t)).toBe(2);
      expect(b.repos.tenants.get(t)?.policy_version).toBe(2);
      expect(b.repos.policies.get(t, a.record.id)).toEqual(a.record);
      expect(b.repos.policies.all(t).map((p) => p.name)).toEqual(['a', 'c']);
      expect(b.repos.policies.all(uniqueId('empty'))).toEqual([]);
      const page = b.repos.policies.page(t, 1, null, null);
      expect(page).toMatchObject({ total: 2, cursor: a.record.id });
      expect(b.repos.policies.page(t, 1, page.cursor, null).data.map((p) => p.name)).toEqual(['c']);
    });

    it("keeps a policy's scope: an update without one leaves it, a scope of null removes it", async () => {
      const t = await freshTenant();
      const scope = { agents: ['bot-*'], doors: ['proxy' as const], direction: 'input' as const };
      const p = await b.repos.policies.create(t, { ...ratePolicy('scoped'), scope }, compile);
      expect(p.record.scope).toEqual(scope);
      expect(b.repos.policies.get(t, p.record.id)).toEqual(p.record);
      const kept = await b.repos.policies.update(t, p.record, { risk: 30 }, compile);
      expect(b.repos.policies.get(t, p.record.id)?.scope).toEqual(scope);
      const cleared = await b.repos.policies.update(t, kept.record, { scope: null }, compile);
      expect(cleared.record).not.toHaveProperty('scope');
      expect(b.repos.policies.get(t, p.record.id)).toEqual(cleared.record);
      expect(b.repos.policies.all(t)).toEqual([cleared.record]);
    });

    it('a set that does not compile changes nothing', async () => {
      const t = await freshTenant();
      const ok = await b.repos.policies.create(t, ratePolicy('ok'), compile);
      await expect(b.repos.policies.create(t, ratePolicy('broken'), compile)).rejects.toThrow(/does not compile/);
      await expect(b.repos.policies.update(t, ok.record, { name: 'broken' }, compile)).rejects.toThrow(/does not compile/);
      expect(b.repos.policies.version(t)).toBe(1);
      expect(b.repos.policies.all(t)).toEqual([ok.record]);
    });

    it('updates and removes; removing an unknown policy is null and bumps nothing', async () => {
      const t = await freshTenant();
      const p = await b.repos.policies.create(t, ratePolicy('p'), compile);
      const u = await b.repos.policies.update(t, p.record, { enabled: false, risk: 40 }, compile);
      expect(u.record).toMatchObject({ id: p.record.id, enabled: false, risk: 40, name: 'p' });
      expect(b.repos.policies.get(t, p.record.id)).toEqual(u.record);
      expect(b.repos.policies.page(t, 10, null, true).total).toBe(0);
      expect(await b.repos.policies.remove(t, 'pol_unknown', compile)).toBeNull();
      expect(b.repos.policies.version(t)).toBe(2);
      expect(await b.repos.policies.remove(t, p.record.id, compile)).toEqual({ ids: [], version: 3 });
      expect(b.repos.policies.get(t, p.record.id)).toBeUndefined();
      expect(b.repos.policies.version(t)).toBe(3);
    });

    it('applies a pack once: present keys are left alone, the version bumps once per apply that creates', async () => {
      const t = await freshTenant();
      const items = [
        { key: 'pack/one', input: ratePolicy('one') },
        { key: 'pack/two', input: ratePolicy('two') },
      ];
      const first = await b.repos.policies.applyPack(t, items, compile);
      expect(first.created.map((p) => p.pack_key)).toEqual(['pack/one', 'pack/two']);
      expect(first.compiled?.version).toBe(1);
      const again = await b.repos.policies.applyPack(t, items, compile);
      expect(again).toMatchObject({ created: [], compiled: null });
      expect(again.existing.map((p) => p.id).sort()).toEqual(first.created.map((p) => p.id).sort());
      expect(b.repos.policies.version(t)).toBe(1);
      await expect(b.repos.policies.applyPack(t, [{ key: 'pack/bad', input: ratePolicy('broken') }], compile)).rejects.toThrow();
      expect(b.repos.policies.all(t)).toHaveLength(2);
    });

    it('two concurrent changes serialise: each compiles the set with the other in it or not, never the same version', async () => {
      const t = await freshTenant();
      const [x, y] = await Promise.all([b.repos.policies.create(t, ratePolicy('x'), compile), b.repos.policies.create(t, ratePolicy('y'), compile)]);
      expect([x.compiled.version, y.compiled.version].sort()).toEqual([1, 2]);
      const later = x.compiled.version === 2 ? x : y;
      expect(later.compiled.ids).toHaveLength(2);
      expect(b.repos.policies.version(t)).toBe(2);
      expect(b.repos.policies.all(t)).toHaveLength(2);
    });
  });
}
