import { command, runCommandGroup } from '@aduana/shared';
import { loadGatewayConfig } from '../config.js';
import { GatewayError } from '../errors.js';
import { CLI_ACTOR, type RecordAdminAction } from '../governance/admin-actions.js';
import { checkCredentialName, checkCredentialSecret, type CredentialStore } from '../credentials/credential-store.js';
import { openAdminStorage, type AdminStorage } from './admin-storage.js';
import { withOfflineChain, type ChainAction } from './offline-chain.js';
import { CREDENTIAL_DELETE, CREDENTIAL_LIST, CREDENTIAL_SET } from './commands.js';
import { readSecretInput } from './read-stdin.js';

function fail(sub: string, message: string): number {
  process.stderr.write(`aduana: credential ${sub}: ${message}\n`);
  return 2;
}

/** The arguments' refusals (a bad name or secret) as usage errors; null when they pass. */
function refusal(check: () => void): string | null {
  try {
    check();
    return null;
  } catch (err) {
    if (err instanceof GatewayError) return err.message;
    throw err;
  }
}

/** The control plane keeps no provider credentials: each gateway's are in its data dir or its environment. */
const NOT_AT_CONTROL_PLANE = "provider credentials are kept in a gateway's DATA_DIR, not at the control plane: run it without DATABASE_URL";

/** The CLI's chaining (offline-chain.ts) as the store records admin actions; the command line has no trace id. */
function recordWith(chain: ChainAction): RecordAdminAction {
  return (tenantId, a) => chain(tenantId, a.action, a.target, a.before, a.after);
}

/** Runs `act` on the data dir's credentials of an existing tenant; a refusal of the store (GatewayError) is a usage error. */
async function checked(sub: string, tenantId: string, store: AdminStorage, act: (credentials: CredentialStore) => Promise<number>): Promise<number> {
  if (store.credentials === null) return fail(sub, NOT_AT_CONTROL_PLANE);
  if (!store.tenants.get(tenantId)) return fail(sub, `no tenant ${tenantId}`);
  try {
    return await act(store.credentials);
  } catch (err) {
    if (err instanceof GatewayError) return fail(sub, err.message);
    throw err;
  }
}

/**
 * `checked` for a change, chained in the tenant's ledger as `user` and `token` changes are (offline-chain.ts): beside
 * a running gateway it is made, and stderr says it was not chained.
 */
function changeOnTenant(sub: string, tenantId: string, act: (credentials: CredentialStore, record: RecordAdminAction) => Promise<number>, config = loadGatewayConfig()): Promise<number> {
  return withOfflineChain(config, `credential ${sub}`, (store, chain) => checked(sub, tenantId, store, (credentials) => act(credentials, recordWith(chain))));
}

async function readOnTenant(sub: string, tenantId: string, act: (credentials: CredentialStore) => Promise<number>): Promise<number> {
  const store = await openAdminStorage(loadGatewayConfig());
  try {
    return await checked(sub, tenantId, store, act);
  } finally {
    await store.close();
  }
}

const set = command(CREDENTIAL_SET, async ({ values, args: [name] }) => {
  const tenant = values.tenant ?? 'default';
  const badName = refusal(() => checkCredentialName(name));
  if (badName !== null) return fail('set', badName);
  // Before the secret is asked for: without the key, or at a control plane, it could not be kept.
  const config = loadGatewayConfig();
  if (config.databaseUrl) return fail('set', NOT_AT_CONTROL_PLANE);
  if (!config.credentialsKey) return fail('set', 'CREDENTIALS_KEY is not set: a credential is stored sealed under it (64 hexadecimal characters; docs/routing.md)');
  const secret = await readSecretInput('secret');
  const badSecret = refusal(() => checkCredentialSecret(secret));
  if (badSecret !== null) return fail('set', badSecret);
  return changeOnTenant('set', tenant, async (credentials, record) => {
    const { rotated } = await credentials.set(tenant, name, secret, CLI_ACTOR, '', record);
    process.stdout.write(`${rotated ? 'rotated' : 'stored'} ${name}\n`);
    process.stderr.write(`credential ${name} of tenant ${tenant}: sealed under CREDENTIALS_KEY (its secret is never shown)\n`);
    return 0;
  }, config);
});

const list = command(CREDENTIAL_LIST, ({ values }) => {
  const tenant = values.tenant ?? 'default';
  return readOnTenant('list', tenant, async (credentials) => {
    if (!values['no-header']) process.stdout.write('NAME\tSOURCE\tUPDATED\tBY\n');
    for (const c of credentials.list(tenant)) {
      process.stdout.write(c.source === 'stored' ? `${c.name}\tstored\t${c.updated_at}\t${c.updated_by}\n` : `${c.name}\tenvironment (${c.variable})\t-\t-\n`);
    }
    return 0;
  });
});

const remove = command(CREDENTIAL_DELETE, ({ values, args: [name] }) => {
  const tenant = values.tenant ?? 'default';
  const badName = refusal(() => checkCredentialName(name));
  if (badName !== null) return fail('delete', badName);
  return changeOnTenant('delete', tenant, async (credentials, record) => {
    await credentials.delete(tenant, name, CLI_ACTOR, '', record);
    process.stdout.write(`deleted ${name}\n`);
    return 0;
  });
});

/**
 * `aduana credential set|list|delete`: a tenant's provider credentials, straight on the data dir's LMDB store (safe
 * beside a running gateway, which reads them at every use). Not with DATABASE_URL: the control plane keeps none.
 */
export function runCredentialCommand(argv: string[]): Promise<number> {
  return runCommandGroup('credential', [set, list, remove], argv);
}
