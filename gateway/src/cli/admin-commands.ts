import { parseArgs } from 'node:util';
import { loadGatewayConfig, type GatewayConfig } from '../config.js';
import type { TenantRepository, TokenRepository } from '../storage/repositories.js';
import { openAdminStorage } from './admin-storage.js';
import { isRole, ROLES } from '../identity/auth/principal.js';
import { isPlan, PLAN_NAMES } from '../identity/tenants/plans.js';
import { isValidLedgerName } from '../ledger/index.js';
import { planChangedEntry } from '../identity/tenants/plan-change.js';
import { lockDataDir, type DataDirLock } from '../storage/data-dir-lock.js';

function fail(message: string): number {
  process.stderr.write(`aduana: ${message}\n`);
  return 2;
}

/**
 * `aduana tenant …` and `aduana token …`: straight on the LMDB store (safe beside a running gateway), or with
 * DATABASE_URL on the control plane's PostgreSQL.
 */
export async function runAdminCommand(group: 'tenant' | 'token', argv: string[]): Promise<number> {
  const config = loadGatewayConfig();
  if (group === 'tenant' && argv[0] === 'set-plan') return setPlanCommand(config, argv.slice(1));
  const store = await openAdminStorage(config);
  try {
    return group === 'tenant'
      ? await tenantCommand(store.tenants, argv)
      : await tokenCommand(store.tenants, store.tokens, argv, config.patTtlDays, config.tokenRotateGraceHours);
  } finally {
    await store.close();
  }
}

/**
 * `aduana tenant set-plan NAME PLAN`: the change is chained in the tenant's ledger (`tenant.plan_changed`, by `cli`).
 * On LMDB this process appends to the ledger, which only one process may write: it takes the data dir's lock for the
 * while, and beside a running gateway it changes nothing and points at the gateway's API, which chains the change
 * itself. With DATABASE_URL the change goes into PostgreSQL and each sidecar chains it when its bundle brings it.
 */
async function setPlanCommand(config: GatewayConfig, args: string[]): Promise<number> {
  let positionals: string[];
  try {
    ({ positionals } = parseArgs({ args, allowPositionals: true, options: {} }));
  } catch (err) {
    return fail(`tenant set-plan: ${(err as Error).message}`);
  }
  const [name, plan] = positionals;
  if (!name || !plan || positionals.length > 2) return fail('usage: aduana tenant set-plan NAME PLAN');
  if (!isPlan(plan)) return fail(`tenant set-plan: PLAN must be one of ${PLAN_NAMES.join(', ')}`);
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
    const store = await openAdminStorage(config);
    try {
      const set = await store.tenants.setPlan(name, plan, 'cli');
      if (!set) return fail(`tenant set-plan: no tenant ${name}`);
      if (set.change) await store.chain?.(name, planChangedEntry(set.change));
      process.stdout.write(`${JSON.stringify(set.record)}\n`);
      process.stderr.write(set.change ? `tenant ${name}: plan ${set.change.from} -> ${set.change.to}\n` : `tenant ${name} is already on ${plan}: nothing changed\n`);
      return 0;
    } finally {
      await store.close();
    }
  } finally {
    lock?.release();
  }
}

async function tenantCommand(tenants: TenantRepository, argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'list') {
    for (const t of tenants.list()) process.stdout.write(`${t.id}\t${t.plan}\t${t.created_at}\n`);
    return 0;
  }
  if (sub !== 'create') return fail('usage: aduana tenant create NAME [--plan P] | aduana tenant set-plan NAME PLAN | aduana tenant list');
  const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { plan: { type: 'string', default: 'community' } } });
  const name = positionals[0];
  if (!name) return fail('tenant create: NAME is required');
  if (!isPlan(values.plan)) return fail(`tenant create: --plan must be one of ${PLAN_NAMES.join(', ')}`);
  let rec;
  try {
    rec = await tenants.create(name, values.plan);
  } catch (err) {
    return fail(`tenant create: ${(err as Error).message}`);
  }
  if (!rec) return fail(`tenant create: tenant "${name}" already exists`);
  process.stdout.write(`${JSON.stringify(rec)}\n`);
  return 0;
}

async function tokenCommand(tenants: TenantRepository, tokens: TokenRepository, argv: string[], defaultDays: number, graceHours: number): Promise<number> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { tenant: { type: 'string' }, role: { type: 'string' }, name: { type: 'string' }, 'expires-in-days': { type: 'string' }, agent: { type: 'string' }, 'grace-hours': { type: 'string' } },
  });
  switch (sub) {
    case 'create': {
      if (!values.tenant || !tenants.get(values.tenant)) return fail(`token create: --tenant must name an existing tenant`);
      if (!isRole(values.role)) return fail(`token create: --role must be one of ${ROLES.join(', ')}`);
      const days = values['expires-in-days'] === undefined ? defaultDays : Number(values['expires-in-days']);
      if (!Number.isInteger(days) || days < 1 || days > 3650) return fail('token create: --expires-in-days must be an integer from 1 to 3650');
      if (values.agent !== undefined && !isValidLedgerName(values.agent)) return fail('token create: --agent must be 1-256 bytes without control characters');
      const { token, record } = await tokens.create({ tenantId: values.tenant, role: values.role, name: values.name ?? `${values.role} token`, expiresInDays: days, agentId: values.agent ?? null });
      process.stdout.write(`${token}\n`);
      const bound = record.agent_id ? `, bound to agent ${record.agent_id}` : '';
      process.stderr.write(`id ${record.id}, role ${record.role}, tenant ${record.tenant_id}${bound}, expires ${record.expires_at} (the token is shown only this once)\n`);
      return 0;
    }
    case 'list':
      for (const t of tokens.list(values.tenant)) {
        const state = t.revoked_at ? 'revoked' : Date.parse(t.expires_at) <= Date.now() ? 'expired' : 'active';
        process.stdout.write(`${t.id}\t${t.tenant_id}\t${t.role}\t${state}\t…${t.last4}\t${t.expires_at}\t${t.name}\n`);
      }
      return 0;
    case 'revoke': {
      const id = positionals[0];
      if (!id) return fail('token revoke: ID is required');
      if (!(await tokens.revoke(id))) return fail(`token revoke: no token ${id}`);
      process.stdout.write(`revoked ${id}\n`);
      return 0;
    }
    case 'rotate': {
      const id = positionals[0];
      if (!id) return fail('token rotate: ID is required');
      const grace = values['grace-hours'] === undefined ? graceHours : Number(values['grace-hours']);
      if (!Number.isInteger(grace) || grace < 0 || grace > 720) return fail('token rotate: --grace-hours must be an integer from 0 to 720');
      const days = values['expires-in-days'] === undefined ? defaultDays : Number(values['expires-in-days']);
      if (!Number.isInteger(days) || days < 1 || days > 3650) return fail('token rotate: --expires-in-days must be an integer from 1 to 3650');
      const out = await tokens.rotate(id, days, grace * 3_600_000);
      if (out.kind === 'not_found') return fail(`token rotate: no token ${id}`);
      if (out.kind !== 'rotated') return fail(`token rotate: token ${id} is revoked or expired`);
      process.stdout.write(`${out.token}\n`);
      process.stderr.write(`id ${out.record.id} succeeds ${id}; ${id} now expires ${out.oldExpiresAt} (the token is shown only this once)\n`);
      return 0;
    }
    default:
      return fail('usage: aduana token create|list|revoke|rotate …');
  }
}
