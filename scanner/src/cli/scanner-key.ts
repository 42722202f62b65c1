import { loadScannerConfig } from '../config.js';
import { issueKey, listKeys, revokeKey } from '../keys/key-store.js';
import { openScannerStore } from '../storage/scanner-store.js';

export const KEY_USAGE = `  scanner-key create --org NAME  issue an API key for organisation NAME (created if new); printed once
  scanner-key list               every key: id, organisation, first characters, created, revoked
  scanner-key revoke ID          revoke a key; effective on the key's next request
`;

function option(argv: readonly string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
}

/**
 * `aduana scanner-key …`: acts on DATA_DIR's scanner store, the one a running scanner uses (LMDB is safe across
 * processes, and the service reads keys at every request, so a revocation here applies at once).
 */
export async function runScannerKey(argv: readonly string[], out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Promise<number> {
  const [sub, ...rest] = argv;
  const config = loadScannerConfig();
  const store = openScannerStore(config.dataDir);
  try {
    switch (sub) {
      case 'create': {
        const org = option(rest, '--org');
        if (org === undefined || org.trim() === '' || org.length > 120) {
          err.write(`aduana scanner-key create: --org NAME is required (1 to 120 characters)\n${KEY_USAGE}`);
          return 2;
        }
        const issued = await issueKey(store, org.trim());
        err.write(`key ${issued.id} for organisation ${issued.org.name} (${issued.org.id}); shown once:\n`);
        out.write(`${issued.key}\n`);
        return 0;
      }
      case 'list':
        for (const k of listKeys(store)) out.write(`${k.id}\t${k.org}\t${k.hint}…\t${k.createdAt}\t${k.revokedAt ?? 'active'}\n`);
        return 0;
      case 'revoke': {
        const id = rest[0];
        if (id === undefined || !(await revokeKey(store, id.toLowerCase()))) {
          err.write(`aduana scanner-key revoke: no key ${id ?? '(missing id)'}\n`);
          return 1;
        }
        err.write(`key ${id} revoked\n`);
        return 0;
      }
      default:
        err.write(`usage:\n${KEY_USAGE}`);
        return 2;
    }
  } finally {
    await store.close();
  }
}
