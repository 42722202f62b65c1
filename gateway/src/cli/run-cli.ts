import { helpOrUnknown } from '@aduana/shared';
import { runControlPlaneService, runGatewayService } from './service-commands.js';

/** The gateway's commands; the repository's `aduana` command dispatches here (see scripts/aduana.mjs). */
export const USAGE = `gateway
  gateway                        governance API + proxy on GATEWAY_PORT, auth service on AUTH_PORT
                                 (a fleet sidecar with CONTROL_PLANE_URL and SIDECAR_TOKEN)
  control                        fleet control plane on DATABASE_URL (PostgreSQL): governance API, auth service, bundles, shipped ledgers

administration (works on DATA_DIR, also while the services run; with DATABASE_URL on the control plane's PostgreSQL)
  tenant create NAME [--plan community|professional|enterprise]
  tenant list
  token create --tenant T --role admin|operator|viewer [--name N] [--expires-in-days D]
  token list [--tenant T]
  token revoke ID
  token rotate ID [--grace-hours H]   a successor token; the old one works for H more hours (TOKEN_ROTATE_GRACE_HOURS)
  user create --tenant T --email E --name N --role R   the password is read from standard input
  user list --tenant T
  user disable ID --tenant T
  sidecar-token create --name N [--tenant T]...   a sidecar's credential at the control plane (all tenants without --tenant)
  sidecar-token list
  sidecar-token revoke ID
  sidecar-token rotate ID          a successor that keeps the token's ledger chains; ID is revoked at once
  ledger verify [--tenant T]     recompute chains, Merkle trees, checkpoints and time-stamps (exit 1 on a break)
  ledger export --tenant T [--out FILE]   JSONL for scripts/verify-ledger-export.mjs
  config                         the gateway's settings (Markdown)
`;

/** Returns the exit code, or null for a long-running service (it exits on a signal). */
export async function runCli(argv: string[]): Promise<number | null> {
  const [cmd, ...rest] = argv;
  switch (cmd) {
    case 'gateway':
      return runGatewayService();
    case 'control':
      return runControlPlaneService();
    // Imported on demand: `aduana gateway` never loads the admin tooling.
    case 'ledger':
      return (await import('./ledger-commands.js')).runLedgerCommand(rest);
    case 'config':
      process.stdout.write((await import('./config-command.js')).configSection());
      return 0;
    case 'user':
      return (await import('./user-commands.js')).runUserCommand(rest);
    case 'sidecar-token':
      return (await import('./sidecar-token-commands.js')).runSidecarTokenCommand(rest);
    case 'tenant':
    case 'token':
      return (await import('./admin-commands.js')).runAdminCommand(cmd, rest);
    default:
      return helpOrUnknown(cmd, USAGE);
  }
}
