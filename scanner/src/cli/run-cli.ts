import { commandList, describeConfig, helpOrUnknown, parseCommand, stopOnSignal, type CommandSpec } from '@aduana/shared';
import { SCANNER_CONFIG } from '../config.js';
import { KEY_USAGE, runScannerKey } from './scanner-key.js';

const SCANNER = {
  name: 'scanner',
  summary: 'site assessment service on SCANNER_PORT',
  details: 'Settings: `aduana config`. Stops cleanly on SIGTERM.',
  options: {},
} as const satisfies CommandSpec;

const CONFIG = { name: 'config', summary: "the scanner's settings (Markdown)", options: {} } as const satisfies CommandSpec;

/** The scanner's commands; the repository's `aduana` command dispatches here (see scripts/aduana.mjs). */
export const USAGE = `scanner
${commandList([SCANNER, CONFIG])}${KEY_USAGE}
\`aduana <command> --help\` for a command's options
`;

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
  const [cmd, ...rest] = argv;
  switch (cmd) {
    case 'scanner': {
      const parsed = parseCommand(SCANNER, rest);
      return typeof parsed === 'number' ? parsed : runScannerService();
    }
    case 'scanner-key':
      return runScannerKey(rest);
    case 'config': {
      const parsed = parseCommand(CONFIG, rest);
      if (typeof parsed === 'number') return parsed;
      process.stdout.write(configSection());
      return 0;
    }
    default:
      return helpOrUnknown(cmd, USAGE);
  }
}
