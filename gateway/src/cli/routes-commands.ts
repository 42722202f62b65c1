import { readFileSync, writeFileSync } from 'node:fs';
import { command, isWellFormedToken, runCommandGroup } from '@aduana/shared';
import { parse, stringify } from 'yaml';
import { loadGatewayConfig, type GatewayConfig } from '../config.js';
import { ROUTES_APPLY, ROUTES_DELETE, ROUTES_EXPORT } from './commands.js';

/*
 * `aduana routes …` goes through a running gateway's API, unlike the admin commands that open DATA_DIR: the gateway
 * that serves the calls must take new routes at once (its router is told), and only it appends to its ledger, where
 * every change is chained.
 */

/** `GET /v1/routes`' answer. */
interface RoutesAnswer {
  readonly version: number;
  readonly routes: unknown;
  readonly updated_at: string | null;
  readonly updated_by: string | null;
}

/** What went wrong, with the exit code to leave with: 2 when the gateway refused (nothing was done), 1 otherwise. */
class CallFailed extends Error {
  constructor(
    message: string,
    readonly code: 1 | 2,
    /** The gateway's status; 0 when it did not answer. */
    readonly status = 0,
  ) {
    super(message);
  }
}

interface Api {
  call(method: 'GET' | 'PUT' | 'DELETE', body?: unknown): Promise<{ status: number; body: RoutesAnswer }>;
}

function fail(cmd: string, message: string, code: 1 | 2 = 2): number {
  process.stderr.write(`aduana: ${cmd}: ${message}\n`);
  return code;
}

/** The gateway's base URL: --url, ADUANA_URL, else its own HOST and GATEWAY_PORT (loopback for a wildcard HOST). */
function baseUrl(option: string | undefined, config: GatewayConfig): string {
  const given = option ?? config.cliUrl;
  if (given !== '') return given.replace(/\/+$/, '');
  const host = config.host === '0.0.0.0' || config.host === '::' || config.host === '' ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}

function api(cmd: string, urlOption: string | undefined): Api | number {
  const config = loadGatewayConfig();
  if (config.cliToken === '') return fail(cmd, "ADUANA_TOKEN is not set: the PAT to call the gateway's API with (an admin token to change routes)");
  if (!isWellFormedToken(config.cliToken, 'pat')) return fail(cmd, 'ADUANA_TOKEN is not an aduana PAT (adu_pat_…)');
  const base = baseUrl(urlOption, config);
  let url: URL;
  try {
    url = new URL(`${base}/v1/routes`);
  } catch {
    return fail(cmd, `--url / ADUANA_URL: not a URL: ${base}`);
  }
  const token = config.cliToken;
  return {
    async call(method, body) {
      let res: Response;
      try {
        res = await fetch(url, {
          method,
          headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(30_000),
        });
      } catch (err) {
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        throw new CallFailed(`the gateway at ${base} could not be reached: ${cause?.code ?? cause?.message ?? (err as Error).message}`, 1);
      }
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = null;
      }
      if (res.status >= 400) {
        const message = (parsed as { error?: { message?: unknown } } | null)?.error?.message;
        throw new CallFailed(`${method} /v1/routes: ${res.status} ${typeof message === 'string' ? message : text.slice(0, 200)}`, res.status < 500 ? 2 : 1, res.status);
      }
      return { status: res.status, body: parsed as RoutesAnswer };
    },
  };
}

/** Runs a command's calls; a failed call ends it with its message and exit code. */
async function calling(cmd: string, urlOption: string | undefined, act: (api: Api) => Promise<number>): Promise<number> {
  const client = api(cmd, urlOption);
  if (typeof client === 'number') return client;
  try {
    return await act(client);
  } catch (err) {
    if (err instanceof CallFailed) return fail(cmd, err.message, err.code);
    throw err;
  }
}

/** A routes file: YAML 1.2 (so `on:` stays a key, not `true`), of which JSON is a part; one document. */
function readRoutes(file: string): { routes: unknown } | string {
  let text: string;
  try {
    text = readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (err) {
    return `${file}: ${(err as Error).message}`;
  }
  let routes: unknown;
  try {
    routes = parse(text);
  } catch (err) {
    return `${file}: not YAML: ${(err as Error).message.split('\n')[0]}`;
  }
  if (routes === null || routes === undefined) return `${file} holds no routes (to remove the tenant's routes: aduana routes delete)`;
  return { routes };
}

const routesApply = command(ROUTES_APPLY, ({ values }) => {
  const read = readRoutes(values.file);
  if (typeof read === 'string') return fail('routes apply', read);
  return calling('routes apply', values.url, async (client) => {
    const before = (await client.call('GET')).body;
    const after = (await client.call('PUT', read.routes)).body;
    process.stdout.write(
      after.version === before.version ? `nothing changed: version ${after.version} already holds these routes\n` : `routes applied: version ${after.version} (was ${before.version})\n`,
    );
    return 0;
  });
});

const routesExport = command(ROUTES_EXPORT, ({ values }) =>
  calling('routes export', values.url, async (client) => {
    const current = (await client.call('GET')).body;
    if (current.routes === null) {
      process.stderr.write(`the tenant has no routes (version ${current.version}): its calls take the default route\n`);
      return 0;
    }
    const yaml = `# version ${current.version}, updated ${current.updated_at} by ${current.updated_by}\n${stringify(current.routes)}`;
    if (values.out === undefined) process.stdout.write(yaml);
    else writeFileSync(values.out, yaml);
    return 0;
  }),
);

const routesDelete = command(ROUTES_DELETE, ({ values }) =>
  calling('routes delete', values.url, async (client) => {
    try {
      const after = (await client.call('DELETE')).body;
      process.stdout.write(`routes deleted: version ${after.version}; the tenant's calls take the default route\n`);
    } catch (err) {
      if (!(err instanceof CallFailed && err.status === 404)) throw err;
      process.stdout.write('nothing changed: the tenant has no routes\n');
    }
    return 0;
  }),
);

/** `aduana routes apply|export|delete`. */
export function runRoutesCommand(argv: string[]): Promise<number> {
  return runCommandGroup('routes', [routesApply, routesExport, routesDelete], argv);
}
