import { createWriteStream, readFileSync } from 'node:fs';
import { command, runCommandGroup } from '@aduana/shared';
import { loadGatewayConfig } from '../config.js';
import { openGatewayStore } from '../storage/gateway-store.js';
import { TenantStore } from '../identity/tenants/tenant-store.js';
import { timestampsCheckpoints } from '../identity/tenants/plans.js';
import { Ledger } from '../ledger/index.js';
import { LEDGER_EXPORT, LEDGER_VERIFY } from './commands.js';

function fail(message: string): number {
  process.stderr.write(`aduana: ${message}\n`);
  return 2;
}

/** DATA_DIR's ledger and tenants, open for `act`, closed after. */
async function withLedger(act: (ledger: Ledger, tenants: TenantStore) => Promise<number>): Promise<number> {
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
    return await act(ledger, tenants);
  } finally {
    await ledger.close();
    await store.close();
  }
}

const exportCommand = command(LEDGER_EXPORT, ({ values: { tenant, out: file } }) =>
  withLedger(async (ledger, tenants) => {
    if (!tenants.get(tenant)) return fail('ledger export: --tenant must name an existing tenant');
    const out = file ? createWriteStream(file, { mode: 0o600 }) : process.stdout;
    const n = await ledger.exportJsonl(tenant, out);
    if (file) await new Promise<void>((resolve, reject) => (out as ReturnType<typeof createWriteStream>).end((err?: Error | null) => (err ? reject(err) : resolve())));
    process.stderr.write(`exported ${n} entries of tenant ${tenant}${file ? ` to ${file}` : ''}\n`);
    return 0;
  }),
);

const verifyCommand = command(LEDGER_VERIFY, ({ values: { tenant } }) =>
  withLedger(async (ledger, tenants) => {
    if (tenant && !tenants.get(tenant)) return fail(`ledger verify: no tenant ${tenant}`);
    const ids = tenant ? [tenant] : tenants.list().map((t) => t.id);
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
  }),
);

/**
 * `aduana ledger verify [--tenant T]`: recomputes each chain, Merkle tree, checkpoint and time-stamp token; exit 1 on
 * the first break. `aduana ledger export --tenant T [--out FILE]`: JSONL that scripts/verify-ledger-export.mjs checks
 * offline. Both read DATA_DIR directly, also while the gateway runs; an export's new checkpoint is queued for the
 * gateway's TSA like any other (this process sends nothing).
 */
export function runLedgerCommand(argv: string[]): Promise<number> {
  return runCommandGroup('ledger', [verifyCommand, exportCommand], argv);
}
