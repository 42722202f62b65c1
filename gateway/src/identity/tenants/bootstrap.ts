import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '@aduana/shared';
import type { TenantRepository, TokenRepository } from '../../storage/repositories.js';

export const DEFAULT_TENANT = 'default';

/**
 * First start of an empty data dir (docs/decisions.md): tenant `default` and an admin PAT, printed once and written to
 * DATA_DIR/bootstrap-admin.token (mode 0600). Only the token's hash is stored.
 */
export async function bootstrap(
  dataDir: string,
  tenants: TenantRepository,
  tokens: TokenRepository,
  logger: Logger,
  opts: { quiet: boolean; patTtlDays: number },
): Promise<{ adminToken: string } | null> {
  if (tenants.list().length > 0) return null;
  // Enterprise (no plan limit): the first tenant is the operator's own (docs/decisions.md, "Bootstrap").
  const tenant = await tenants.create(DEFAULT_TENANT, 'enterprise', 'Default');
  if (!tenant) return null; // another process bootstrapped first
  const { token, record } = await tokens.create({ tenantId: DEFAULT_TENANT, role: 'admin', name: 'bootstrap admin', expiresInDays: opts.patTtlDays });
  const file = join(dataDir, 'bootstrap-admin.token');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  logger.info({ tenant: DEFAULT_TENANT, tokenId: record.id, file }, 'bootstrapped tenant and admin token');
  if (!opts.quiet) {
    process.stdout.write(`\naduana: first start. Admin token for tenant "${DEFAULT_TENANT}" (shown once, also in ${file}):\n  ${token}\n\n`);
  }
  return { adminToken: token };
}
