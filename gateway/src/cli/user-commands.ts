import { parseArgs } from 'node:util';
import { loadGatewayConfig } from '../config.js';
import { GatewayError } from '../errors.js';
import { openAdminStorage } from './admin-storage.js';
import { createPasswordUser } from '../identity/users/create-user.js';
import { isRole, ROLES } from '../identity/auth/principal.js';

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

/** `aduana user create|list|disable`: straight on the LMDB store (safe beside a running gateway), or on PostgreSQL with DATABASE_URL. */
export async function runUserCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  let parsed;
  try {
    parsed = parseArgs({ args: rest, allowPositionals: true, options: { tenant: { type: 'string' }, email: { type: 'string' }, name: { type: 'string' }, role: { type: 'string' } } });
  } catch (err) {
    return fail(`user: ${(err as Error).message}`);
  }
  const { values, positionals } = parsed;
  if (sub !== 'create' && sub !== 'list' && sub !== 'disable') return fail('usage: aduana user create --tenant T --email E --name N --role R (password on stdin) | user list [--tenant T] | user disable ID --tenant T');
  if (!values.tenant) return fail(`user ${sub}: --tenant is required`);
  let password = '';
  if (sub === 'create') {
    if (!values.email || !values.name) return fail('user create: --email and --name are required');
    if (!isRole(values.role)) return fail(`user create: --role must be one of ${ROLES.join(', ')}`);
    if (process.stdin.isTTY) process.stderr.write('password (end with Ctrl-D): ');
    password = await readPassword();
  }
  const config = loadGatewayConfig();
  const store = await openAdminStorage(config);
  try {
    const { users, tenants } = store;
    if (!tenants.get(values.tenant)) return fail(`user ${sub}: no tenant ${values.tenant}`);
    if (sub === 'list') {
      for (const u of users.list(values.tenant)) process.stdout.write(`${u.id}\t${u.email}\t${u.role}\t${u.provider}\t${u.disabled_at ? 'disabled' : 'active'}\t${u.name}\n`);
      return 0;
    }
    if (sub === 'disable') {
      const id = positionals[0];
      if (!id) return fail('user disable: ID is required');
      if (!(await users.disable(values.tenant, id))) return fail(`user disable: no user ${id} in tenant ${values.tenant}`);
      process.stdout.write(`disabled ${id}\n`);
      return 0;
    }
    const rules = { minLength: config.passwordMinLength, maxBytes: config.passwordMaxBytes, scryptLogN: config.passwordScryptLogN };
    const rec = await createPasswordUser(users, tenants, rules, { tenantId: values.tenant, email: values.email as string, name: values.name as string, role: values.role as 'admin', password });
    process.stdout.write(`${rec.id}\n`);
    process.stderr.write(`user ${rec.email}, role ${rec.role}, tenant ${rec.tenant_id}: sign in with POST /login or at /console\n`);
    return 0;
  } catch (err) {
    if (err instanceof GatewayError) return fail(`user ${sub}: ${err.message}`);
    throw err;
  } finally {
    await store.close();
  }
}
