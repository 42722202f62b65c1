import { createWriteStream, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadGatewayConfig } from '../config.js';
import { openGatewayStore } from '../storage/gateway-store.js';
import { TenantStore } from '../identity/tenants/tenant-store.js';
import { timestampsCheckpoints } from '../identity/tenants/plans.js';
import { Ledger } from '../ledger/index.js';

function fail(message: string): number {
  process.stderr.write(`aduana: ${message}\n`);
  return 2;
}

/**
 * `aduana ledger verify [--tenant T]`: recomputes each chain, Merkle tree, checkpoint and time-stamp token; exit 1 on
 * the first break. `aduana ledger export --tenant T [--out FILE]`: JSONL that scripts/verify-ledger-export.mjs checks
 * offline. Both read DATA_DIR directly, also while the gateway runs; an export's new checkpoint is queued for the
 * gateway's TSA like any other (this process sends nothing).
 */
export async function runLedgerCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const { values } = parseArgs({ args: rest, options: { tenant: { type: 'string' }, out: { type: 'string' } } });
  if (sub !== 'verify' && sub !== 'export') return fail('usage: aduana ledger verify [--tenant T] | aduana ledger export --tenant T [--out FILE]');
  const config = loadGatewayConfig();
  const store = openGatewayStore(config.dataDir);
  const tenants = new TenantStore(store);
  const ledger = Ledger.open(store.root, {
    keyDir: config.dataDir,
    checkpointIntervalMs: 3_600_000,
    anchoring: config.anchorTsaUrl ? { tenant: (id) => timestampsCheckpoints(tenants.get(id)?.plan) } : null,
    tsaCertPem: config.anchorTsaCert ? readFileSync(config.anchorTsaCert, 'utf8') : null,
  });
  try {
    if (sub === 'export') {
      if (!values.tenant || !tenants.get(values.tenant)) return fail('ledger export: --tenant must name an existing tenant');
      const out = values.out ? createWriteStream(values.out, { mode: 0o600 }) : process.stdout;
      const n = await ledger.exportJsonl(values.tenant, out);
      if (values.out) await new Promise<void>((resolve, reject) => (out as ReturnType<typeof createWriteStream>).end((err?: Error | null) => (err ? reject(err) : resolve())));
      process.stderr.write(`exported ${n} entries of tenant ${values.tenant}${values.out ? ` to ${values.out}` : ''}\n`);
      return 0;
    }
    const ids = values.tenant ? [values.tenant] : tenants.list().map((t) => t.id);
    if (values.tenant && !tenants.get(values.tenant)) return fail(`ledger verify: no tenant ${values.tenant}`);
    let broken = 0;
    for (const id of ids) {
      const r = await ledger.verify(id);
      if (!r.ok) broken++;
      process.stdout.write(
        r.ok
          ? `${id}\tok\t${r.checked} entries\t${r.checkpointsChecked} checkpoints\t${r.anchorsChecked} time-stamped${r.prunedThrough > 0 ? `\t(1..${r.prunedThrough} pruned by retention)` : ''}\n`
          : `${id}\tBROKEN at seq ${r.firstBrokenSeq}\t${r.reason}\t(${r.checked} entries verified before it)\n`,
      );
    }
    return broken > 0 ? 1 : 0;
  } finally {
    await ledger.close();
    await store.close();
  }
}
