import { newId } from '@aduana/shared';
import type { Database } from 'lmdb';

const KEY = 'instance_id';

/**
 * This sidecar's instance id, generated once per data dir and kept in its LMDB: the prefix of its ledger chains at
 * the control plane (`<instance id>/<tenant id>`), so two replicas sharing one sidecar token still keep two chains.
 */
export async function instanceId(fleet: Database): Promise<string> {
  const existing = fleet.get(KEY) as string | undefined;
  if (existing) return existing;
  const id = newId('sci');
  await fleet.ifNoExists(KEY, () => fleet.put(KEY, id));
  return fleet.get(KEY) as string;
}
