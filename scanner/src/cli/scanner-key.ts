import { command, commandList, runCommandGroup, type CommandIo, type CommandSpec } from '@aduana/shared';
import { loadScannerConfig } from '../config.js';
import { issueKey, listKeys, revokeKey } from '../keys/key-store.js';
import { openScannerStore, type ScannerStore } from '../storage/scanner-store.js';

const KEY_CREATE = {
  name: 'scanner-key create',
  summary: 'issue an API key for an organisation (created if new); printed once',
  options: { org: { type: 'string', value: 'NAME', required: true, help: 'the organisation, 1 to 120 characters' } },
} as const satisfies CommandSpec;

const KEY_LIST = {
  name: 'scanner-key list',
  summary: 'every key: id, organisation, first characters, created, revoked',
  options: { 'no-header': { type: 'boolean', help: 'leave out the header row (for scripts)' } },
} as const satisfies CommandSpec;

const KEY_REVOKE = { name: 'scanner-key revoke', args: ['ID'], summary: "revoke a key; effective on the key's next request", options: {} } as const satisfies CommandSpec;

export const KEY_USAGE = commandList([KEY_CREATE, KEY_LIST, KEY_REVOKE]);

/**
 * `aduana scanner-key …`: acts on DATA_DIR's scanner store, the one a running scanner uses (LMDB is safe across
 * processes, and the service reads keys at every request, so a revocation here applies at once).
 */
export function runScannerKey(argv: readonly string[], out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Promise<number> {
  const io: CommandIo = { out, err };
  const withStore = async (act: (store: ScannerStore) => Promise<number>): Promise<number> => {
    const store = openScannerStore(loadScannerConfig().dataDir);
    try {
      return await act(store);
    } finally {
      await store.close();
    }
  };
  const create = command(KEY_CREATE, ({ values: { org } }) => {
    if (org.trim() === '' || org.length > 120) {
      err.write('aduana: scanner-key create: --org NAME must be 1 to 120 characters\n');
      return 2;
    }
    return withStore(async (store) => {
      const issued = await issueKey(store, org.trim());
      err.write(`key ${issued.id} for organisation ${issued.org.name} (${issued.org.id}); shown once:\n`);
      out.write(`${issued.key}\n`);
      return 0;
    });
  });
  const list = command(KEY_LIST, ({ values }) =>
    withStore(async (store) => {
      if (!values['no-header']) out.write('ID\tORGANISATION\tKEY\tCREATED\tREVOKED\n');
      for (const k of listKeys(store)) out.write(`${k.id}\t${k.org}\t${k.hint}…\t${k.createdAt}\t${k.revokedAt ?? 'active'}\n`);
      return 0;
    }),
  );
  const revoke = command(KEY_REVOKE, ({ args: [id] }) =>
    withStore(async (store) => {
      if (!(await revokeKey(store, id.toLowerCase()))) {
        err.write(`aduana: scanner-key revoke: no key ${id}\n`);
        return 2;
      }
      err.write(`key ${id} revoked\n`);
      return 0;
    }),
  );
  return runCommandGroup('scanner-key', [create, list, revoke], argv, io);
}
