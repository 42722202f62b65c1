import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '@aduana/shared';
import type { TenantRepository, TokenRepository } from '../../storage/repositories.js';
import type { Role } from '../auth/principal.js';
import type { Plan } from './plans.js';

/** What a start provisions (docs/sidecar.md, "Provisioning from a Secret"): BOOTSTRAP_* settings. */
export interface BootstrapOptions {
  /** Silences the admin token's one print (it is still written to DATA_DIR). */
  quiet: boolean;
  /** Lifetime of the printed admin token. */
  patTtlDays: number;
  /** Lifetime of a provisioned token (PAT_MAX_TTL_DAYS: it changes only when its Secret does). */
  patMaxTtlDays: number;
  tenant: string;
  plan: Plan;
  /** A PAT value the operator generated (BOOTSTRAP_TOKEN), or '' for none. */
  token: string;
  tokenRole: Role;
  /** The agent the provisioned token is bound to ('' = unbound). */
  tokenAgent: string;
}

/** The BOOTSTRAP_* settings and the PAT lifetimes, as loaded by loadGatewayConfig. */
export function bootstrapOptions(config: {
  quietBootstrap: boolean;
  patTtlDays: number;
  patMaxTtlDays: number;
  bootstrapTenant: string;
  bootstrapPlan: string;
  bootstrapToken: string;
  bootstrapTokenRole: string;
  bootstrapTokenAgent: string;
}): BootstrapOptions {
  return {
    quiet: config.quietBootstrap,
    patTtlDays: config.patTtlDays,
    patMaxTtlDays: config.patMaxTtlDays,
    tenant: config.bootstrapTenant,
    // Both checked by loadGatewayConfig (their settings' enums).
    plan: config.bootstrapPlan as Plan,
    token: config.bootstrapToken,
    tokenRole: config.bootstrapTokenRole as Role,
    tokenAgent: config.bootstrapTokenAgent,
  };
}

/**
 * Every start. With BOOTSTRAP_TOKEN, provisioning: the tenant and that token, never printed, written or logged (its
 * value comes from a Secret the agent reads too). Without it, the first start of an empty data dir (docs/decisions.md,
 * "Bootstrap"): the tenant and an admin PAT, printed once and written to DATA_DIR/bootstrap-admin.token (mode 0600).
 * Only a token's hash is stored.
 */
export async function bootstrap(
  dataDir: string,
  tenants: TenantRepository,
  tokens: TokenRepository,
  logger: Logger,
  opts: BootstrapOptions,
): Promise<{ adminToken: string } | null> {
  if (opts.token) {
    await provision(tenants, tokens, logger, opts);
    return null;
  }
  if (tenants.list().length > 0) return null;
  // Enterprise by default (no plan limit): the first tenant is the operator's own (docs/decisions.md, "Bootstrap").
  const tenant = await tenants.create(opts.tenant, opts.plan, 'Default');
  if (!tenant) return null; // another process bootstrapped first
  const { token, record } = await tokens.create({ tenantId: opts.tenant, role: 'admin', name: 'bootstrap admin', expiresInDays: opts.patTtlDays });
  const file = join(dataDir, 'bootstrap-admin.token');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  logger.info({ tenant: opts.tenant, tokenId: record.id, file }, 'bootstrapped tenant and admin token');
  if (!opts.quiet) {
    process.stdout.write(`\naduana: first start. Admin token for tenant "${opts.tenant}" (shown once, also in ${file}):\n  ${token}\n\n`);
  }
  return { adminToken: token };
}

/**
 * The tenant, made when missing (an existing one keeps its plan), and the token, added when its hash is not stored
 * yet. So a first start provisions both, a restart changes nothing, a new value in the Secret is added beside the old
 * one (rotation: revoke the old one with `aduana token revoke`), and a revoked or expired token is never brought back.
 */
async function provision(tenants: TenantRepository, tokens: TokenRepository, logger: Logger, opts: BootstrapOptions): Promise<void> {
  if (!tenants.get(opts.tenant) && (await tenants.create(opts.tenant, opts.plan))) logger.info({ tenant: opts.tenant, plan: opts.plan }, 'provisioned tenant (BOOTSTRAP_TENANT)');
  const known = tokens.findByToken(opts.token);
  if (known) {
    if (known.tenant_id !== opts.tenant) logger.warn({ tenant: opts.tenant, tokenTenant: known.tenant_id, tokenId: known.id }, 'BOOTSTRAP_TOKEN is a token of another tenant: left as it is');
    return;
  }
  const agentId = opts.tokenAgent || null;
  const { record } = await tokens.create({ tenantId: opts.tenant, role: opts.tokenRole, name: 'provisioned (BOOTSTRAP_TOKEN)', expiresInDays: opts.patMaxTtlDays, agentId, token: opts.token });
  logger.info({ tenant: opts.tenant, tokenId: record.id, role: record.role, agent: agentId, expiresAt: record.expires_at }, 'provisioned token (BOOTSTRAP_TOKEN)');
}
