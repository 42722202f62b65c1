import { PACK_NAMES, PACKS, type PackName } from '../policy/packs.js';
import type { PolicyValidator } from '../policy/validate-policy.js';
import type { PolicyRecord } from '../policy/policy-record.js';

/**
 * The policies an agent's `policy_pack` adds to its tenant's set, for that agent alone (docs/agents.md, "Packs"):
 * built once at start, with the same rule normalisation as a pack applied to a tenant. Ids are stable
 * (`pack:<pack>:<type>`), so rate-limit windows and session risk survive recompilation like a tenant policy's.
 */
export function buildPackPolicies(validator: PolicyValidator): (pack: PackName) => readonly PolicyRecord[] {
  const epoch = new Date(0).toISOString();
  const byPack = new Map<PackName, readonly PolicyRecord[]>();
  for (const pack of PACK_NAMES) {
    byPack.set(
      pack,
      Object.freeze(
        PACKS[pack].map(
          (p): PolicyRecord => ({
            id: `pack:${pack}:${p.key}`,
            tenant_id: '',
            name: p.name,
            type: p.type,
            risk: p.risk,
            enabled: true,
            rules: validator.rules(p.type, p.rules),
            created_at: epoch,
            updated_at: epoch,
            pack_key: p.key,
          }),
        ),
      ),
    );
  }
  return (pack) => byPack.get(pack) ?? [];
}
