import { describeConfig, helpOrUnknown, stopOnSignal } from '@aduana/shared';
import { SCANNER_CONFIG } from '../config.js';
import { KEY_USAGE, runScannerKey } from './scanner-key.js';

/** The scanner's commands; the repository's `aduana` command dispatches here (see scripts/aduana.mjs). */
export const USAGE = `scanner
  scanner                        site assessment service on SCANNER_PORT
  config                         the scanner's settings (Markdown)
${KEY_USAGE}`;

/** The scanner's part of `aduana config` (docs/configuration.md is the whole output). */
export function configSection(): string {
  return ['## Scanner (`aduana scanner`: site assessment service)', '', describeConfig(SCANNER_CONFIG), ''].join('\n');
}

async function runScannerService(): Promise<null> {
  const { startScanner } = await import('../server.js');
  const sc = await startScanner();
  if (sc.bootstrapKey !== undefined) {
    // Printed once, on the first start of an empty data directory; it is also in DATA_DIR/bootstrap-scanner.key (0600).
    process.stderr.write(`aduana scanner: first start: organisation "default" and its API key (shown once):\n${sc.bootstrapKey}\n`);
  }
  process.stderr.write(`aduana scanner: listening on ${sc.url}\n`);
  stopOnSignal('scanner', () => sc.close());
  return null;
}

/** Returns the exit code, or null for a long-running service (it exits on a signal). */
export async function runCli(argv: string[]): Promise<number | null> {
  const [cmd] = argv;
  switch (cmd) {
    case 'scanner':
      return runScannerService();
    case 'scanner-key':
      return runScannerKey(argv.slice(1));
    case 'config':
      process.stdout.write(configSection());
      return 0;
    default:
      return helpOrUnknown(cmd, USAGE);
  }
}
