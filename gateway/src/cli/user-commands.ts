import { command, runCommandGroup } from '@aduana/shared';
import { loadGatewayConfig } from '../config.js';
import { GatewayError } from '../errors.js';
import { openAdminStorage, type AdminStorage } from './admin-storage.js';
import { createPasswordUser } from '../identity/users/create-user.js';
import { isRole, ROLES } from '../identity/auth/principal.js';
import { USER_CREATE, USER_DISABLE, USER_LIST } from './commands.js';

function fail(message: string): number {
  process.stderr.write(`aduana: ${message}\n`);
  return 2;
}

/** The password, from standard input only (an argument would sit in the shell history and the process list). */
async function readPassword(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  // One trailing newline is the shell's (`echo … |`), not the password's.
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

/** Runs `act` on the store of a tenant that exists; a refusal of the user store (GatewayError) is a usage error. */
async function onTenant(sub: string, tenantId: string, act: (store: AdminStorage, config: ReturnType<typeof loadGatewayConfig>) => Promise<number>): Promise<number> {
  const config = loadGatewayConfig();
  const store = await openAdminStorage(config);
  try {
    if (!store.tenants.get(tenantId)) return fail(`user ${sub}: no tenant ${tenantId}`);
    return await act(store, config);
  } catch (err) {
    if (err instanceof GatewayError) return fail(`user ${sub}: ${err.message}`);
    throw err;
  } finally {
    await store.close();
  }
}

const create = command(USER_CREATE, async ({ values }) => {
  const { tenant, email, name, role } = values;
  if (!email || !name) return fail('user create: --email and --name must not be empty');
  if (!isRole(role)) return fail(`user create: --role must be one of ${ROLES.join(', ')}`);
  if (process.stdin.isTTY) process.stderr.write('password (end with Ctrl-D): ');
  const password = await readPassword();
  return onTenant('create', tenant, async ({ users, tenants }, config) => {
    const rules = { minLength: config.passwordMinLength, maxBytes: config.passwordMaxBytes, scryptLogN: config.passwordScryptLogN };
    const rec = await createPasswordUser(users, tenants, rules, { tenantId: tenant, email, name, role, password });
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
  onTenant('disable', values.tenant, async ({ users }) => {
    if (!(await users.disable(values.tenant, id))) return fail(`user disable: no user ${id} in tenant ${values.tenant}`);
    process.stdout.write(`disabled ${id}\n`);
    return 0;
  }),
);

/** `aduana user create|list|disable`: straight on the LMDB store (safe beside a running gateway), or on PostgreSQL with DATABASE_URL. */
export function runUserCommand(argv: string[]): Promise<number> {
  return runCommandGroup('user', [create, list, disable], argv);
}
