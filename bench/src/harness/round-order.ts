/**
 * The order of one round of paired calls: a fresh random permutation of the paths. A gateway keeps working after it
 * answers (its ledger commit, the decision record), and on 2 cores that work slows whatever call comes next; with a
 * fixed rotation each path always follows the same one, and the path after the direct call always met a quiet machine
 * (it measured 9-15% faster than an identical gateway elsewhere in the round; docs/benchmarks-history.md, "Where the
 * sidecar's gap stands").
 */
export function roundOrder(paths: number): number[] {
  const order = Array.from({ length: paths }, (_, k) => k);
  for (let j = order.length - 1; j > 0; j--) {
    const x = Math.floor(Math.random() * (j + 1));
    [order[j], order[x]] = [order[x]!, order[j]!];
  }
  return order;
}
