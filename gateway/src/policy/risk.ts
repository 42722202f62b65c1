/**
 * Combined risk of independent triggered policies (docs/policies.md, "The model"): 100 * (1 - prod(1 - r_i / 100)), in [0, 100],
 * two decimals. Adding a triggered policy never lowers the risk, and one policy at 100 makes it 100.
 */
export function combineRisk(risks: readonly number[]): number {
  let keep = 1;
  for (const r of risks) keep *= 1 - Math.min(100, Math.max(0, r)) / 100;
  return Math.round((1 - keep) * 10_000) / 100;
}
