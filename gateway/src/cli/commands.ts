import { commandList, type CommandSpec } from '@aduana/shared';
import { ROLES } from '../identity/auth/principal.js';
import { PLAN_NAMES } from '../identity/tenants/plans.js';

/*
 * The gateway's commands, declared once: each command parses its arguments by its spec here, and the same specs are
 * its --help and the list `aduana --help` shows. Data only, so `aduana gateway` loads no admin tooling with it.
 */

const NO_HEADER = { type: 'boolean', help: 'leave out the header row (for scripts)' } as const;
const ROLE_LIST = ROLES.join('|');

export const GATEWAY = {
  name: 'gateway',
  summary: 'governance API + proxy on GATEWAY_PORT, auth service on AUTH_PORT',
  details: 'A fleet sidecar with CONTROL_PLANE_URL and SIDECAR_TOKEN. Settings: `aduana config`. Stops cleanly on SIGTERM.',
  options: {},
} as const satisfies CommandSpec;

export const CONTROL = {
  name: 'control',
  summary: 'fleet control plane on DATABASE_URL (PostgreSQL): governance API, auth service, bundles, shipped ledgers',
  options: {},
} as const satisfies CommandSpec;

export const CONFIG = { name: 'config', summary: "the gateway's settings (Markdown)", options: {} } as const satisfies CommandSpec;

export const TENANT_CREATE = {
  name: 'tenant create',
  args: ['NAME'],
  summary: 'create a tenant; prints its record',
  details: 'NAME: lower-case letters, digits and dashes.',
  options: { plan: { type: 'string', value: PLAN_NAMES.join('|'), help: 'its plan (default community)' } },
} as const satisfies CommandSpec;

export const TENANT_SET_PLAN = {
  name: 'tenant set-plan',
  args: ['NAME', 'PLAN'],
  summary: "change a tenant's plan; the change is chained in its ledger",
  details: `PLAN: ${PLAN_NAMES.join(', ')}. On DATA_DIR only while no gateway runs there (beside one, its API does it:
PUT /admin/tenants/NAME/plan); with DATABASE_URL at any time, and the sidecars chain it from their bundle.`,
  options: {},
} as const satisfies CommandSpec;

export const TENANT_LIST = { name: 'tenant list', summary: 'every tenant: id, plan, created', options: { 'no-header': NO_HEADER } } as const satisfies CommandSpec;

export const TOKEN_CREATE = {
  name: 'token create',
  summary: 'a personal access token, printed once (only its SHA-256 is kept)',
  options: {
    tenant: { type: 'string', value: 'T', required: true, help: 'the tenant it acts in' },
    role: { type: 'string', value: ROLE_LIST, required: true, help: 'what it may do' },
    name: { type: 'string', value: 'N', help: 'a label for lists (default "<role> token")' },
    'expires-in-days': { type: 'string', value: 'D', help: 'its lifetime, 1 to PAT_MAX_TTL_DAYS (365); default PAT_TTL_DAYS (90)' },
    agent: { type: 'string', value: 'ID', help: 'bind it to one agent: it acts as that agent only' },
  },
} as const satisfies CommandSpec;

export const TOKEN_LIST = {
  name: 'token list',
  summary: 'tokens: id, tenant, role, state, last characters, expiry, name',
  options: { tenant: { type: 'string', value: 'T', help: "only this tenant's" }, 'no-header': NO_HEADER },
} as const satisfies CommandSpec;

export const TOKEN_REVOKE = { name: 'token revoke', args: ['ID'], summary: 'revoke a token; refused from its next request on', options: {} } as const satisfies CommandSpec;

export const TOKEN_ROTATE = {
  name: 'token rotate',
  args: ['ID'],
  summary: 'a successor token, printed once; the old one works for H more hours',
  options: {
    'grace-hours': { type: 'string', value: 'H', help: 'how long the old token keeps working, 0 to 720 (default TOKEN_ROTATE_GRACE_HOURS, 24)' },
    'expires-in-days': { type: 'string', value: 'D', help: "the successor's lifetime, 1 to PAT_MAX_TTL_DAYS (365); default PAT_TTL_DAYS (90)" },
  },
} as const satisfies CommandSpec;

export const USER_CREATE = {
  name: 'user create',
  summary: 'a user who signs in with a password, read from standard input',
  options: {
    tenant: { type: 'string', value: 'T', required: true, help: 'its tenant' },
    email: { type: 'string', value: 'E', required: true, help: 'its e-mail address, the sign-in name' },
    name: { type: 'string', value: 'N', required: true, help: 'its display name' },
    role: { type: 'string', value: ROLE_LIST, required: true, help: 'what it may do' },
  },
} as const satisfies CommandSpec;

export const USER_LIST = {
  name: 'user list',
  summary: "a tenant's users: id, e-mail, role, provider, state, name",
  options: { tenant: { type: 'string', value: 'T', required: true, help: 'the tenant' }, 'no-header': NO_HEADER },
} as const satisfies CommandSpec;

export const USER_DISABLE = {
  name: 'user disable',
  args: ['ID'],
  summary: 'disable a user: its sessions and tokens stop at once',
  options: { tenant: { type: 'string', value: 'T', required: true, help: "the user's tenant" } },
} as const satisfies CommandSpec;

export const SIDECAR_TOKEN_CREATE = {
  name: 'sidecar-token create',
  summary: "a sidecar's credential at the control plane, printed once",
  options: {
    name: { type: 'string', value: 'N', required: true, help: 'a label, at most 200 characters' },
    tenant: { type: 'string', value: 'T', multiple: true, help: 'a tenant it may serve (repeat for more; every tenant without it)' },
  },
} as const satisfies CommandSpec;

export const SIDECAR_TOKEN_LIST = {
  name: 'sidecar-token list',
  summary: 'sidecar tokens: id, state, last characters, tenants (* = all), created, name',
  options: { 'no-header': NO_HEADER },
} as const satisfies CommandSpec;

export const SIDECAR_TOKEN_REVOKE = { name: 'sidecar-token revoke', args: ['ID'], summary: 'revoke a sidecar token', options: {} } as const satisfies CommandSpec;

export const SIDECAR_TOKEN_ROTATE = {
  name: 'sidecar-token rotate',
  args: ['ID'],
  summary: "a successor that keeps the token's ledger chains; ID is revoked at once",
  options: {},
} as const satisfies CommandSpec;

const CREDENTIAL_TENANT = { type: 'string', value: 'T', help: 'the tenant (default "default")' } as const;

export const CREDENTIAL_SET = {
  name: 'credential set',
  args: ['NAME'],
  summary: "store or rotate a tenant's provider credential; the secret is read from standard input",
  details: `NAME: lower-case letters, digits, ".", "_" and "-", at most 64. The secret is sealed under CREDENTIALS_KEY
(required) and never shown again; the change is chained in the tenant's ledger (docs/routing.md).`,
  options: { tenant: CREDENTIAL_TENANT },
} as const satisfies CommandSpec;

export const CREDENTIAL_LIST = {
  name: 'credential list',
  summary: "a tenant's provider credentials: name, source (stored or environment), updated, by; never a secret",
  options: { tenant: CREDENTIAL_TENANT, 'no-header': NO_HEADER },
} as const satisfies CommandSpec;

export const CREDENTIAL_DELETE = {
  name: 'credential delete',
  args: ['NAME'],
  summary: "delete a tenant's stored provider credential; chained in its ledger",
  options: { tenant: CREDENTIAL_TENANT },
} as const satisfies CommandSpec;

export const LEDGER_VERIFY = {
  name: 'ledger verify',
  summary: 'recompute chains, Merkle trees, checkpoints and time-stamps (exit 1 on a break)',
  options: { tenant: { type: 'string', value: 'T', help: "only this tenant's ledger (default every tenant's)" } },
} as const satisfies CommandSpec;

export const LEDGER_EXPORT = {
  name: 'ledger export',
  summary: "a tenant's ledger as JSONL, for scripts/verify-ledger-export.mjs",
  options: {
    tenant: { type: 'string', value: 'T', required: true, help: 'the tenant' },
    out: { type: 'string', value: 'FILE', help: 'write there (mode 0600) instead of standard output' },
  },
} as const satisfies CommandSpec;

/** Where `aduana routes` commands send their calls, and as whom: the same for all three. */
const API_DETAILS = `Through the gateway's API (ADUANA_URL, default http://HOST:GATEWAY_PORT), as ADUANA_TOKEN's tenant: the running
gateway takes the change at once and chains it in the tenant's ledger (docs/routing.md).`;
const API_URL = { type: 'string', value: 'URL', help: "the gateway's API (default ADUANA_URL, else http://HOST:GATEWAY_PORT)" } as const;

export const ROUTES_APPLY = {
  name: 'routes apply',
  summary: "replace the tenant's routes with a YAML (or JSON) file's; the same routes again change nothing",
  details: `${API_DETAILS}\nRefused whole, naming the field, when anything in it is wrong. Needs an admin token.`,
  options: { file: { type: 'string', short: 'f', value: 'FILE', required: true, help: 'the routes (- for standard input)' }, url: API_URL },
} as const satisfies CommandSpec;

export const ROUTES_EXPORT = {
  name: 'routes export',
  summary: "the tenant's routes as YAML, as routes apply takes them (nothing when it has none)",
  details: API_DETAILS,
  options: { out: { type: 'string', value: 'FILE', help: 'write there instead of standard output' }, url: API_URL },
} as const satisfies CommandSpec;

export const ROUTES_DELETE = {
  name: 'routes delete',
  summary: "remove the tenant's routes: its calls take the default route (UPSTREAM_*) again",
  details: `${API_DETAILS}\nNeeds an admin token.`,
  options: { url: API_URL },
} as const satisfies CommandSpec;

export const TENANT_COMMANDS = [TENANT_CREATE, TENANT_SET_PLAN, TENANT_LIST] as const;
export const TOKEN_COMMANDS = [TOKEN_CREATE, TOKEN_LIST, TOKEN_REVOKE, TOKEN_ROTATE] as const;
export const USER_COMMANDS = [USER_CREATE, USER_LIST, USER_DISABLE] as const;
export const SIDECAR_TOKEN_COMMANDS = [SIDECAR_TOKEN_CREATE, SIDECAR_TOKEN_LIST, SIDECAR_TOKEN_REVOKE, SIDECAR_TOKEN_ROTATE] as const;
export const CREDENTIAL_COMMANDS = [CREDENTIAL_SET, CREDENTIAL_LIST, CREDENTIAL_DELETE] as const;
export const LEDGER_COMMANDS = [LEDGER_VERIFY, LEDGER_EXPORT] as const;
export const ROUTES_COMMANDS = [ROUTES_APPLY, ROUTES_EXPORT, ROUTES_DELETE] as const;

/** The gateway's part of `aduana --help`; the repository's `aduana` command shows it (see scripts/aduana.mjs). */
export const USAGE = `gateway
${commandList([GATEWAY, CONTROL])}
administration (works on DATA_DIR, also while the services run; with DATABASE_URL on the control plane's PostgreSQL)
${commandList([...TENANT_COMMANDS, ...TOKEN_COMMANDS, ...USER_COMMANDS, ...SIDECAR_TOKEN_COMMANDS, ...CREDENTIAL_COMMANDS, ...LEDGER_COMMANDS, CONFIG])}
a tenant's routes (through a running gateway's API: ADUANA_URL, ADUANA_TOKEN)
${commandList(ROUTES_COMMANDS)}
\`aduana <command> --help\` for a command's options
`;
