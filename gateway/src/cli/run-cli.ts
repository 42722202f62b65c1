import { runGatewayService, runScannerService, runAllServices } from './service-commands.js';

const USAGE = `usage: aduana <command>

services
  start                          gateway (+ auth service) and scanner, each in its own process
  gateway                        governance API + proxy on GATEWAY_PORT, auth service on AUTH_PORT
  scanner                        site assessment service on SCANNER_PORT

administration (works on DATA_DIR, also while the services run)
  tenant create NAME [--plan community|professional|enterprise]
  tenant list
  token create --tenant T --role admin|operator|viewer [--name N] [--expires-in-days D]
  token list [--tenant T]
  token revoke ID
  ledger verify [--tenant T]     recompute chains, Merkle trees and checkpoints (exit 1 on a break)
  ledger export --tenant T [--out FILE]   JSONL for scripts/verify-ledger-export.mjs
  config                         every setting of both services (Markdown)
`;

/** Returns the exit code, or null for a long-running service (it exits on a signal). */
export async function runCli(argv: string[]): Promise<number | null> {
  const [cmd, ...rest] = argv;
  switch (cmd) {
    case 'start':
      return runAllServices();
    case 'gateway':
      return runGatewayService();
    case 'scanner':
      return runScannerService();
    // Imported on demand: `aduana gateway` never loads the scanner (Fastify, cheerio…) or the admin tooling.
    case 'ledger':
      return (await import('./ledger-commands.js')).runLedgerCommand(rest);
    case 'config':
      process.stdout.write((await import('./config-command.js')).configMarkdown());
      return 0;
    case 'tenant':
    case 'token':
      return (await import('./admin-commands.js')).runAdminCommand(cmd, rest);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return cmd === undefined ? 2 : 0;
    default:
      process.stderr.write(`aduana: unknown command "${cmd}"\n${USAGE}`);
      return 2;
  }
}
