import { command, runCommandGroup } from '@aduana/shared';
import { loadGatewayConfig } from '../config.js';
import { isValidTenantId } from '../identity/tenants/tenant-store.js';
import { openAdminStorage, type AdminStorage } from './admin-storage.js';
import { SIDECAR_TOKEN_CREATE, SIDECAR_TOKEN_LIST, SIDECAR_TOKEN_REVOKE, SIDECAR_TOKEN_ROTATE } from './commands.js';

function fail(message: string): number {
  process.stderr.write(`aduana: ${message}\n`);
  return 2;
}

const NAME_MAX = 200;

async function withStore(act: (store: AdminStorage) => Promise<number>): Promise<number> {
  const store = await openAdminStorage(loadGatewayConfig());
  try {
    return await act(store);
  } finally {
    await store.close();
  }
}

const create = command(SIDECAR_TOKEN_CREATE, ({ values: { name, tenant } }) => {
  if (!name || name.length > NAME_MAX) return fail(`sidecar-token create: --name is required (at most ${NAME_MAX} characters)`);
  const bad = (tenant ?? []).find((t) => !isValidTenantId(t));
  if (bad !== undefined) return fail(`sidecar-token create: --tenant "${bad}" is not a tenant id`);
  return withStore(async (store) => {
    const tenants = tenant && tenant.length > 0 ? tenant : null;
    const missing = (tenants ?? []).find((t) => !store.tenants.get(t));
    if (missing !== undefined) return fail(`sidecar-token create: no tenant ${missing}`);
    const { token, record } = await store.sidecarTokens.create(name, tenants);
    process.stdout.write(`${token}\n`);
    process.stderr.write(`id ${record.id}, tenants ${tenants === null ? 'all' : tenants.join(', ')} (the token is shown only this once)\n`);
    return 0;
  });
});

const list = command(SIDECAR_TOKEN_LIST, ({ values }) =>
  withStore(async (store) => {
    if (!values['no-header']) process.stdout.write('ID\tSTATE\tTOKEN\tTENANTS\tCREATED\tNAME\n');
    for (const t of store.sidecarTokens.list()) {
      const scope = t.tenants === null ? '*' : t.tenants.join(',');
      process.stdout.write(`${t.id}\t${t.revoked_at ? 'revoked' : 'active'}\t…${t.last4}\t${scope}\t${t.created_at}\t${t.name}\n`);
    }
    return 0;
  }),
);

const revoke = command(SIDECAR_TOKEN_REVOKE, ({ args: [id] }) =>
  withStore(async (store) => {
    if (!(await store.sidecarTokens.revoke(id))) return fail(`sidecar-token revoke: no sidecar token ${id}`);
    process.stdout.write(`revoked ${id}\n`);
    return 0;
  }),
);

const rotate = command(SIDECAR_TOKEN_ROTATE, ({ args: [id] }) =>
  withStore(async (store) => {
    const out = await store.sidecarTokens.rotate(id);
    if (out.kind === 'not_found') return fail(`sidecar-token rotate: no sidecar token ${id}`);
    if (out.kind === 'already_rotated') return fail(`sidecar-token rotate: ${id} was rotated already; rotate its successor (sidecar-token list)`);
    process.stdout.write(`${out.token}\n`);
    process.stderr.write(`id ${out.record.id} replaces ${id}, which is revoked now; it keeps shipping the ledger chains of ${out.record.chain_owner} (the token is shown only this once)\n`);
    return 0;
  }),
);

/**
 * `aduana sidecar-token create|list|revoke|rotate`: the credentials sidecars present to the control plane (docs/fleet-storage.md, "Sidecar tokens").
 * On the control plane's PostgreSQL with DATABASE_URL, else on DATA_DIR. The token is printed once; only its SHA-256
 * is stored.
 */
export function runSidecarTokenCommand(argv: string[]): Promise<number> {
  return runCommandGroup('sidecar-token', [create, list, revoke, rotate], argv);
}
