import { command, runCommandGroup } from '@aduana/shared';
import { loadGatewayConfig } from '../config.js';
import { GatewayError } from '../errors.js';
import { openAdminStorage, type AdminStorage } from './admin-storage.js';
import { createPasswordUser } from '../identity/users/create-user.js';
import { userView } from '../identity/users/user-record.js';
import { withOfflineChain, type ChainAction } from './offline-chain.js';
import { isRole, ROLES } from '../identity/auth/principal.js';
import { USER_CREATE, USER_DISABLE, USER_LIST } from './commands.js';
import { readSecretInput } from './read-stdin.js';

function fail(message: string): number {
  process.stderr.write(`aduana: ${message}\n`);
  return 2;
}

type Config = ReturnType<typeof loadGatewayConfig>;

/** Runs `act` on the store of a tenant that exists; a refusal of the user store (GatewayError) is a usage error. */
async function onTenant(sub: string, tenantId: string, act: (store: AdminStorage, config: Config) => Promise<number>): Promise<number> {
  const config = loadGatewayConfig();
  const store = await openAdminStorage(config);
  try {
    return await checked(sub, tenantId, store, () => act(store, config));
  } finally {
    await store.close();
  }
}

/** `onTenant` for a change, chained in the tenant's ledger (offline-chain.ts). */
function changeOnTenant(sub: string, tenantId: string, act: (store: AdminStorage, config: Config, chain: ChainAction) => Promise<number>): Promise<number> {
  const config = loadGatewayConfig();
  return withOfflineChain(config, `user ${sub}`, (store, chain) => checked(sub, tenantId, store, () => act(store, config, chain)));
}

async function checked(sub: string, tenantId: string, store: AdminStorage, act: () => Promise<number>): Promise<number> {
  if (!store.tenants.get(tenantId)) return fail(`user ${sub}: no tenant ${tenantId}`);
  try {
    return await act();
  } catch (err) {
    if (err instanceof GatewayError) return fail(`user ${sub}: ${err.message}`);
    throw err;
  }
}

const create = command(USER_CREATE, async ({ values }) => {
  const { tenant, email, name, role } = values;
  if (!email || !name) return fail('user create: --email and --name must not be empty');
  if (!isRole(role)) return fail(`user create: --role must be one of ${ROLES.join(', ')}`);
  const password = await readSecretInput('password');
  return changeOnTenant('create', tenant, async ({ users, tenants }, config, chain) => {
    const rules = { minLength: config.passwordMinLength, maxBytes: config.passwordMaxBytes, scryptLogN: config.passwordScryptLogN };
    const rec = await createPasswordUser(users, tenants, rules, { tenantId: tenant, email, name, role, password });
    await chain(tenant, 'user.created', rec.id, null, userView(rec));
    process.stdout.write(`${rec.id}\n`);
    process.stderr.write(`user ${rec.email}, role ${rec.role}, tenant ${rec.tenant_id}: sign in with POST /login or at /console\n`);
    return 0;
  });
});

const list = command(USER_LIST, ({ values }) =>
  onTenant('list', values.tenant, async ({ users }) => {
    if (!values['no-header']) process.stdout.write('ID\tEMAIL\tROLE\tPROVIDER\tSTATE\tNAME\n');
    for (const u of users.list(values.tenant)) process.stdout.write(`${u.id}\t${u.email}\t${u.role}\t${u.provider}\t${u.disabled_at ? 'disabled' : 'active'}\t${u.name}\n`);
    return 0;
  }),
);

const disable = command(USER_DISABLE, ({ values, args: [id] }) =>
  changeOnTenant('disable', values.tenant, async ({ users }, _config, chain) => {
    const before = users.get(id);
    const rec = await users.disable(values.tenant, id);
    if (!rec) return fail(`user disable: no user ${id} in tenant ${values.tenant}`);
    await chain(values.tenant, 'user.disabled', id, before ? userView(before) : null, userView(rec));
    process.stdout.write(`disabled ${id}\n`);
    return 0;
  }),
);

/** `aduana user create|list|disable`: straight on the LMDB store (safe beside a running gateway), or on PostgreSQL with DATABASE_URL. */
export function runUserCommand(argv: string[]): Promise<number> {
  return runCommandGroup('user', [create, list, disable], argv);
}
