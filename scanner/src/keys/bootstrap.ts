import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScannerStore } from '../storage/scanner-store.js';
import { ensureOrg, issueKey } from './key-store.js';

export const BOOTSTRAP_KEY_FILE = 'bootstrap-scanner.key';

/**
 * First start of an empty data directory: organisation `default` and one API key for it, written to
 * DATA_DIR/bootstrap-scanner.key (mode 0600). Returns the key when it was made now (the caller prints it once),
 * undefined when the store already had an organisation.
 */
export async function bootstrapStore(store: ScannerStore, dataDir: string): Promise<string | undefined> {
  if (store.orgs.getKeysCount() > 0) return undefined;
  const org = await ensureOrg(store, 'default');
  // Two processes starting together on one empty directory: only the first to see no key issues one.
  let hasKey = false;
  for (const { value } of store.keys.getRange()) if (value.orgId === org.id) hasKey = true;
  if (hasKey) return undefined;
  const issued = await issueKey(store, 'default');
  writeFileSync(join(dataDir, BOOTSTRAP_KEY_FILE), `${issued.key}\n`, { mode: 0o600 });
  return issued.key;
}
