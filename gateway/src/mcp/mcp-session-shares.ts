import { isPlan, PLAN_NAMES, PLANS, type Plan } from '../identity/tenants/plans.js';

/** The largest share a plan may be given: each binding is held in memory (a few hundred bytes). */
const MAX_SHARE = 1_000_000;
const ENTRY = /^([a-z]+)=(\d{1,7})$/;

/**
 * MCP_SESSIONS_MAX: `plan=n,…` over the plan table's shares of the MCP session table (`community=20,enterprise=50000`);
 * a plan not named keeps the table's. Read once at start; anything malformed stops the start naming it.
 */
export function parseMcpSessionShares(setting: string): Readonly<Record<Plan, number>> {
  const shares = Object.fromEntries(PLAN_NAMES.map((p) => [p, PLANS[p].mcpSessions])) as Record<Plan, number>;
  if (setting.trim() !== '') {
    for (const part of setting.split(',')) {
      const m = ENTRY.exec(part.replace(/\s+/g, ''));
      if (m === null) throw new Error(`MCP_SESSIONS_MAX: "${part.trim().slice(0, 64)}": expected plan=n, comma-separated (e.g. community=100,professional=1000)`);
      const [, plan, n] = m as unknown as [string, string, string];
      if (!isPlan(plan)) throw new Error(`MCP_SESSIONS_MAX: "${plan}" is not a plan (${PLAN_NAMES.join(', ')})`);
      const share = Number(n);
      if (share < 1 || share > MAX_SHARE) throw new Error(`MCP_SESSIONS_MAX: ${plan}=${share}: between 1 and ${MAX_SHARE}`);
      shares[plan] = share;
    }
  }
  return Object.freeze(shares);
}
