import type { Database } from 'lmdb';
import { describe, expect, it, vi } from 'vitest';
import type { SharedLimits } from '../../fleet/limits/shared-limits.js';
import type { Principal } from '../../identity/auth/principal.js';
import type { PolicyRepository, TenantRepository } from '../../storage/repositories.js';
import { TenantRuntimes } from './tenant-runtime.js';

const LIMITS = { maxPolicies: 1000, maxPatterns: 200, maxPatternSize: 200, maxProgramSize: 5000, maxTextChars: 1 << 20, evalBurstMs: 2000, evalPerSecondMs: 250 };

function runtimes(): TenantRuntimes {
  const policies = { version: () => 1, all: () => [] } as unknown as PolicyRepository;
  const tenants = { get: () => undefined } as unknown as TenantRepository;
  const counters = { get: () => undefined, put: () => true, transaction: (write: () => void) => Promise.resolve(write()) } as unknown as Database;
  return new TenantRuntimes(tenants, policies, counters, LIMITS);
}

// The parts are wired apart; request threads drop their copies only when told, so each change must still tell them.
describe('tenant runtimes', () => {
  it('tell of a policy change when a set is installed or forgotten, and of a plan change when the plan is refreshed', () => {
    const r = runtimes();
    const told: string[] = [];
    r.sets.onChange = (tenantId) => told.push(`policies ${tenantId}`);
    r.admission.onChange = (tenantId) => told.push(`plan ${tenantId}`);
    // A set compiled on first use is not a change.
    r.sets.policySet('acme');
    expect(told).toEqual([]);
    r.sets.install(r.sets.compile('acme', 2, []));
    r.sets.forget('globex');
    r.admission.refreshPlan('acme');
    expect(told).toEqual(['policies acme', 'policies globex', 'plan acme']);
  });

  it('count plan admissions and spend on the shared limits once they are used', async () => {
    const r = runtimes();
    const shared = { admit: vi.fn(), addSpend: vi.fn() };
    r.useSharedLimits(shared as unknown as SharedLimits);
    r.admission.admit({ tenantId: 'acme' } as Principal);
    r.limits.addSpend('acme', 'bot', 1, Date.now());
    expect(shared.admit).toHaveBeenCalledTimes(1);
    // Day and month, for the agent and for the tenant.
    expect(shared.addSpend).toHaveBeenCalledTimes(4);
    await r.limits.flushSpend();
  });
});
