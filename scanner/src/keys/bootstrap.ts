import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateToken, hashToken, uuid } from '@aduana/shared';
import type { KeyRecord, ScannerStore } from '../storage/scanner-store.js';
import { ensureOrg } from './key-store.js';

export const BOOTSTRAP_KEY_FILE = 'bootstrap-scanner.key';

/**
 * First start of an empty data directory: organisation `default` and one API key for it, written to
 * DATA_DIR/bootstrap-scanner.key (mode 0600). Returns the key when it was made now (the caller prints it once),
 * undefined when the store already had an organisation. The "no key yet" test and the key's write share one
 * transaction, so two processes starting together on one empty directory make one key between them.
 */
export async function bootstrapStore(store: ScannerStore, dataDir: string): Promise<string | undefined> {
  if (store.orgs.getKeysCount() > 0) return undefined;
  const org = await ensureOrg(store, 'default');
  const key = generateToken('sk');
  const record: KeyRecord = { id: uuid(), orgId: org.id, hash: hashToken(key), hint: key.slice(0, 12), createdAt: new Date().toISOString(), revokedAt: null };
  const made = { now: false };
  await store.root.transaction(() => {
    for (const { value } of store.keys.getRange()) if (value.orgId === org.id) return;
    void store.keys.put(record.id, record);
    void store.keyHashes.put(record.hash, record.id);
    made.now = true;
  });
  if (!made.now) return undefined;
  writeFileSync(join(dataDir, BOOTSTRAP_KEY_FILE), `${key}\n`, { mode: 0o600 });
  return key;
}
