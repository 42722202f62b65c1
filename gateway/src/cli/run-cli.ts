import { helpOrUnknown, parseCommand } from '@aduana/shared';
import { CONFIG, CONTROL, GATEWAY, USAGE } from './commands.js';
import { runControlPlaneService, runGatewayService } from './service-commands.js';

/**
 * The gateway's commands; the repository's `aduana` command dispatches here (see scripts/aduana.mjs). Returns the exit
 * code, or null for a long-running service (it exits on a signal).
 */
export async function runCli(argv: string[]): Promise<number | null> {
  const [cmd, ...rest] = argv;
  switch (cmd) {
    case 'gateway': {
      const parsed = parseCommand(GATEWAY, rest);
      return typeof parsed === 'number' ? parsed : runGatewayService();
    }
    case 'control': {
      const parsed = parseCommand(CONTROL, rest);
      return typeof parsed === 'number' ? parsed : runControlPlaneService();
    }
    // Imported on demand: `aduana gateway` never loads the admin tooling.
    case 'ledger':
      return (await import('./ledger-commands.js')).runLedgerCommand(rest);
    case 'config': {
      const parsed = parseCommand(CONFIG, rest);
      if (typeof parsed === 'number') return parsed;
      process.stdout.write((await import('./config-command.js')).configSection());
      return 0;
    }
    case 'user':
      return (await import('./user-commands.js')).runUserCommand(rest);
    case 'credential':
      return (await import('./credential-commands.js')).runCredentialCommand(rest);
    case 'sidecar-token':
      return (await import('./sidecar-token-commands.js')).runSidecarTokenCommand(rest);
    case 'routes':
      return (await import('./routes-commands.js')).runRoutesCommand(rest);
    case 'tenant':
    case 'token':
      return (await import('./admin-commands.js')).runAdminCommand(cmd, rest);
    default:
      return helpOrUnknown(cmd, USAGE);
  }
}
