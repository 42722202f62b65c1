import { command, runCommandGroup } from '@aduana/shared';
import { loadGatewayConfig, type GatewayConfig } from '../config.js';
import { openAdminStorage, type AdminStorage } from './admin-storage.js';
import { isRole, ROLES } from '../identity/auth/principal.js';
import { isPlan, PLAN_NAMES } from '../identity/tenants/plans.js';
import { isValidLedgerName } from '../ledger/index.js';
import { planChangedEntry } from '../identity/tenants/plan-change.js';
import { lockDataDir, type DataDirLock } from '../storage/data-dir-lock.js';
import { tokenDigestView } from '../governance/admin-actions.js';
import { withOfflineChain } from './offline-chain.js';
import { TENANT_CREATE, TENANT_LIST, TENANT_SET_PLAN, TOKEN_CREATE, TOKEN_LIST, TOKEN_REVOKE, TOKEN_ROTATE } from './commands.js';

function fail(message: string): number {
  process.stderr.write(`aduana: ${message}\n`);
  return 2;
}

async function withStore(act: (store: AdminStorage, config: GatewayConfig) => Promise<number>, config = loadGatewayConfig()): Promise<number> {
  const store = await openAdminStorage(config);
  try {
    return await act(store, config);
  } finally {
    await store.close();
  }
}

/** An option's whole number from `min` to `max`, its default when absent, or null when it is anything else. */
function integerOption(value: string | undefined, fallback: number, min: number, max: number): number | null {
  const n = value === undefined ? fallback : Number(value);
  return Number.isInteger(n) && n >= min && n <= max ? n : null;
}

/** A token's lifetime: capped by PAT_MAX_TTL_DAYS, as POST /token caps it. */
function lifetimeDays(sub: string, value: string | undefined, config: GatewayConfig): number | null {
  const days = integerOption(value, config.patTtlDays, 1, config.patMaxTtlDays);
  if (days === null) fail(`token ${sub}: --expires-in-days must be an integer from 1 to ${config.patMaxTtlDays} (PAT_MAX_TTL_DAYS)`);
  return days;
}

const tenantCreate = command(TENANT_CREATE, ({ values, args: [name] }) => {
  const plan = values.plan ?? 'community';
  if (!isPlan(plan)) return fail(`tenant create: --plan must be one of ${PLAN_NAMES.join(', ')}`);
  return withStore(async ({ tenants }) => {
    let rec;
    try {
      rec = await tenants.create(name, plan);
    } catch (err) {
      return fail(`tenant create: ${(err as Error).message}`);
    }
    if (!rec) return fail(`tenant create: tenant "${name}" already exists`);
    process.stdout.write(`${JSON.stringify(rec)}\n`);
    return 0;
  });
});

/**
 * `aduana tenant set-plan NAME PLAN`: the change is chained in the tenant's ledger (`tenant.plan_changed`, by `cli`).
 * On LMDB this process appends to the ledger, which only one process may write: it takes the data dir's lock for the
 * while, and beside a running gateway it changes nothing and points at the gateway's API, which chains the change
 * itself. With DATABASE_URL the change goes into PostgreSQL, chained in the control plane's own chain of the tenant,
 * and each sidecar chains it too when its bundle brings it.
 */
const tenantSetPlan = command(TENANT_SET_PLAN, async ({ args: [name, plan] }) => {
  if (!isPlan(plan)) return fail(`tenant set-plan: PLAN must be one of ${PLAN_NAMES.join(', ')}`);
  const config = loadGatewayConfig();
  let lock: DataDirLock | null = null;
  if (!config.databaseUrl) {
    try {
      lock = lockDataDir(config.dataDir, 'gateway', 'aduana tenant set-plan');
    } catch (err) {
      process.stderr.write(
        `aduana: tenant set-plan: ${(err as Error).message}\n` +
          `  A plan change is chained in the tenant's ledger, which only that process may append to: change the plan through its API,\n` +
          `  curl -X PUT <gateway>/admin/tenants/${name}/plan -H "authorization: Bearer <an admin token of ${name}>" -d '{"plan":"${plan}"}'\n`,
      );
      return 1;
    }
  }
  try {
    return await withStore(async (store) => {
      const set = await store.tenants.setPlan(name, plan, 'cli');
      if (!set) return fail(`tenant set-plan: no tenant ${name}`);
      if (set.change) await store.chain?.(name, planChangedEntry(set.change));
      process.stdout.write(`${JSON.stringify(set.record)}\n`);
      process.stderr.write(set.change ? `tenant ${name}: plan ${set.change.from} -> ${set.change.to}\n` : `tenant ${name} is already on ${plan}: nothing changed\n`);
      return 0;
    }, config);
  } finally {
    lock?.release();
  }
});

const tenantList = command(TENANT_LIST, ({ values }) =>
  withStore(async ({ tenants }) => {
    if (!values['no-header']) process.stdout.write('ID\tPLAN\tCREATED\n');
    for (const t of tenants.list()) process.stdout.write(`${t.id}\t${t.plan}\t${t.created_at}\n`);
    return 0;
  }),
);

const tokenCreate = command(TOKEN_CREATE, ({ values }) => {
  const { tenant, role, agent } = values;
  if (!isRole(role)) return fail(`token create: --role must be one of ${ROLES.join(', ')}`);
  if (agent !== undefined && !isValidLedgerName(agent)) return fail('token create: --agent must be 1-256 bytes without control characters');
  const config = loadGatewayConfig();
  const days = lifetimeDays('create', values['expires-in-days'], config);
  if (days === null) return 2;
  return withOfflineChain(config, 'token create', async ({ tenants, tokens }, chain) => {
    if (!tenants.get(tenant)) return fail('token create: --tenant must name an existing tenant');
    const { token, record } = await tokens.create({ tenantId: tenant, role, name: values.name ?? `${role} token`, expiresInDays: days, agentId: agent ?? null });
    await chain(tenant, 'token.created', record.id, null, tokenDigestView(record));
    process.stdout.write(`${token}\n`);
    const bound = record.agent_id ? `, bound to agent ${record.agent_id}` : '';
    process.stderr.write(`id ${record.id}, role ${record.role}, tenant ${record.tenant_id}${bound}, expires ${record.expires_at} (the token is shown only this once)\n`);
    return 0;
  });
});

const tokenList = command(TOKEN_LIST, ({ values }) =>
  withStore(async ({ tokens }) => {
    if (!values['no-header']) process.stdout.write('ID\tTENANT\tROLE\tSTATE\tTOKEN\tEXPIRES\tNAME\n');
    for (const t of tokens.list(values.tenant)) {
      const state = t.revoked_at ? 'revoked' : Date.parse(t.expires_at) <= Date.now() ? 'expired' : 'active';
      process.stdout.write(`${t.id}\t${t.tenant_id}\t${t.role}\t${state}\t…${t.last4}\t${t.expires_at}\t${t.name}\n`);
    }
    return 0;
  }),
);

const tokenRevoke = command(TOKEN_REVOKE, ({ args: [id] }) =>
  withOfflineChain(loadGatewayConfig(), 'token revoke', async ({ tokens }, chain) => {
    const before = tokens.get(id);
    if (!before || !(await tokens.revoke(id))) return fail(`token revoke: no token ${id}`);
    const after = tokens.get(id);
    await chain(before.tenant_id, 'token.revoked', id, tokenDigestView(before), after ? tokenDigestView(after) : null);
    process.stdout.write(`revoked ${id}\n`);
    return 0;
  }),
);

const tokenRotate = command(TOKEN_ROTATE, ({ values, args: [id] }) => {
  const config = loadGatewayConfig();
  const grace = integerOption(values['grace-hours'], config.tokenRotateGraceHours, 0, 720);
  if (grace === null) return fail('token rotate: --grace-hours must be an integer from 0 to 720');
  const days = lifetimeDays('rotate', values['expires-in-days'], config);
  if (days === null) return 2;
  return withOfflineChain(config, 'token rotate', async ({ tokens }, chain) => {
    const before = tokens.get(id);
    const out = await tokens.rotate(id, days, grace * 3_600_000);
    if (out.kind === 'not_found' || !before) return fail(`token rotate: no token ${id}`);
    if (out.kind !== 'rotated') return fail(`token rotate: token ${id} is revoked or expired`);
    // The old token is the target; `after` digests it as it now is (shortened, pointing at its successor) and the successor.
    const old = tokens.get(id);
    await chain(before.tenant_id, 'token.rotated', id, tokenDigestView(before), { old: old ? tokenDigestView(old) : null, successor: tokenDigestView(out.record) });
    process.stdout.write(`${out.token}\n`);
    process.stderr.write(`id ${out.record.id} succeeds ${id}; ${id} now expires ${out.oldExpiresAt} (the token is shown only this once)\n`);
    return 0;
  });
});

/**
 * `aduana tenant …` and `aduana token …`: straight on the LMDB store (safe beside a running gateway; `tenant set-plan`
 * excepted), or with DATABASE_URL on the control plane's PostgreSQL. The arguments are checked before anything opens.
 */
export function runAdminCommand(group: 'tenant' | 'token', argv: string[]): Promise<number> {
  return group === 'tenant'
    ? runCommandGroup('tenant', [tenantCreate, tenantSetPlan, tenantList], argv)
    : runCommandGroup('token', [tokenCreate, tokenList, tokenRevoke, tokenRotate], argv);
}
