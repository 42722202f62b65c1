import type { GatewayConfig } from '../config.js';
import { adminActionEntry, CLI_ACTOR, type AdminAction } from '../governance/admin-actions.js';
import { lockDataDir, type DataDirLock } from '../storage/data-dir-lock.js';
import { openAdminStorage, type AdminStorage } from './admin-storage.js';

/** Chains one admin action of the command line (actor `cli`) in a tenant's ledger. */
export type ChainAction = (tenantId: string, action: AdminAction, target: string, before: unknown, after: unknown) => Promise<void>;

/**
 * Runs an admin command on the store with its action chained in the tenant's ledger (docs/ledger.md, "Admin actions"),
 * as `tenant set-plan` chains its change: on LMDB this process appends, so it takes the data dir's lock for the while.
 * Unlike a plan change these commands must work beside a running gateway (a revocation cannot wait for a restart):
 * there the change is made and stderr says it was not chained. With DATABASE_URL no lock is needed: the action is
 * chained in the control plane's own chain, whose appends PostgreSQL serialises.
 */
export async function withOfflineChain(config: GatewayConfig, command: string, act: (store: AdminStorage, chain: ChainAction) => Promise<number>): Promise<number> {
  let lock: DataDirLock | null = null;
  let why: string | null = null;
  if (!config.databaseUrl) {
    try {
      lock = lockDataDir(config.dataDir, 'gateway', `aduana ${command}`);
    } catch {
      why = `a running gateway holds the ledger of ${config.dataDir}; its API chains the actions made through it`;
    }
  }
  try {
    const store = await openAdminStorage(config);
    try {
      const chain: ChainAction = async (tenantId, action, target, before, after) => {
        if (why !== null || store.chain === null) {
          process.stderr.write(`aduana: ${command}: ${action} ${target} was not chained in tenant ${tenantId}'s ledger: ${why ?? 'no ledger'}\n`);
          return;
        }
        await store.chain(tenantId, adminActionEntry({ actor: CLI_ACTOR, action, target, before, after }));
      };
      return await act(store, chain);
    } finally {
      await store.close();
    }
  } finally {
    lock?.release();
  }
}
