import { parseArgs } from 'node:util';
import { loadGatewayConfig } from '../config.js';
import { isValidTenantId } from '../identity/tenants/tenant-store.js';
import { openAdminStorage } from './admin-storage.js';

function fail(message: string): number {
  process.stderr.write(`aduana: ${message}\n`);
  return 2;
}

const USAGE = 'usage: aduana sidecar-token create --name NAME [--tenant ID]... | sidecar-token list | sidecar-token revoke ID | sidecar-token rotate ID';
const NAME_MAX = 200;

/**
 * `aduana sidecar-token create|list|revoke|rotate`: the credentials sidecars present to the control plane (docs/fleet-storage.md, "Sidecar tokens").
 * On the control plane's PostgreSQL with DATABASE_URL, else on DATA_DIR. The token is printed once; only its SHA-256
 * is stored.
 */
export async function runSidecarTokenCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  let parsed;
  try {
    parsed = parseArgs({ args: rest, allowPositionals: true, options: { name: { type: 'string' }, tenant: { type: 'string', multiple: true } } });
  } catch (err) {
    return fail(`sidecar-token: ${(err as Error).message}`);
  }
  const { values, positionals } = parsed;
  if (sub !== 'create' && sub !== 'list' && sub !== 'revoke' && sub !== 'rotate') return fail(USAGE);
  if (sub === 'create') {
    if (!values.name || values.name.length > NAME_MAX) return fail(`sidecar-token create: --name is required (at most ${NAME_MAX} characters)`);
    const bad = (values.tenant ?? []).find((t) => !isValidTenantId(t));
    if (bad !== undefined) return fail(`sidecar-token create: --tenant "${bad}" is not a tenant id`);
  }
  if ((sub === 'revoke' || sub === 'rotate') && !positionals[0]) return fail(`sidecar-token ${sub}: ID is required`);
  const store = await openAdminStorage(loadGatewayConfig());
  try {
    if (sub === 'list') {
      for (const t of store.sidecarTokens.list()) {
        const scope = t.tenants === null ? '*' : t.tenants.join(',');
        process.stdout.write(`${t.id}\t${t.revoked_at ? 'revoked' : 'active'}\t…${t.last4}\t${scope}\t${t.created_at}\t${t.name}\n`);
      }
      return 0;
    }
    if (sub === 'revoke') {
      const id = positionals[0] as string;
      if (!(await store.sidecarTokens.revoke(id))) return fail(`sidecar-token revoke: no sidecar token ${id}`);
      process.stdout.write(`revoked ${id}\n`);
      return 0;
    }
    if (sub === 'rotate') {
      const id = positionals[0] as string;
      const out = await store.sidecarTokens.rotate(id);
      if (out.kind === 'not_found') return fail(`sidecar-token rotate: no sidecar token ${id}`);
      if (out.kind === 'already_rotated') return fail(`sidecar-token rotate: ${id} was rotated already; rotate its successor (sidecar-token list)`);
      process.stdout.write(`${out.token}\n`);
      process.stderr.write(`id ${out.record.id} replaces ${id}, which is revoked now; it keeps shipping the ledger chains of ${out.record.chain_owner} (the token is shown only this once)\n`);
      return 0;
    }
    const tenants = values.tenant && values.tenant.length > 0 ? values.tenant : null;
    const missing = (tenants ?? []).find((t) => !store.tenants.get(t));
    if (missing !== undefined) return fail(`sidecar-token create: no tenant ${missing}`);
    const { token, record } = await store.sidecarTokens.create(values.name as string, tenants);
    process.stdout.write(`${token}\n`);
    process.stderr.write(`id ${record.id}, tenants ${tenants === null ? 'all' : tenants.join(', ')} (the token is shown only this once)\n`);
    return 0;
  } finally {
    await store.close();
  }
}
