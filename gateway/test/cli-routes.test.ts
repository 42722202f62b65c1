import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Role } from '../src/identity/auth/principal.js';
import { assertBuilt, runCli } from './helpers/run-cli.js';
import { call, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';
import { EXAMPLE_ROUTES_YAML_WITHOUT_CREDENTIALS, exampleRoutesWithoutCredentials } from './helpers/example-routes.js';

/** `aduana routes apply|export|delete` against a running gateway's API (docs/routing.md, "The command line"). */

let t: TestGateway;
let tokens: Record<Role, string>;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  assertBuilt();
  t = await startTestGateway();
  tokens = await t.tenant('cli-routes');
  dir = mkdtempSync(join(tmpdir(), 'aduana-cli-routes-'));
  // DATA_DIR is never opened by these commands: they only call the API.
  env = { DATA_DIR: join(dir, 'unused'), LOG_LEVEL: 'silent', ADUANA_URL: t.url, ADUANA_TOKEN: tokens.admin };
});
afterAll(async () => {
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const routesFile = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const current = async () => (await call(t.url, 'GET', '/v1/routes', { token: tokens.viewer })).body;
const chained = () => t.gw.deps.ledger.list('cli-routes', { limit: 100, order: 'asc', eventType: 'routes.updated', cursor: null }).events.length;

describe('aduana routes', () => {
  it('export before any routes: nothing on stdout, exit 0, and says why', async () => {
    const r = await runCli(['routes', 'export'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('the tenant has no routes (version 0)');
  });

  it('apply -f a YAML file: version 1; the same file again: nothing changed, version not bumped, nothing chained', async () => {
    const file = routesFile('routes.yaml', EXAMPLE_ROUTES_YAML_WITHOUT_CREDENTIALS);
    const first = await runCli(['routes', 'apply', '-f', file], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe('routes applied: version 1 (was 0)\n');
    expect(await current()).toMatchObject({ version: 1, routes: exampleRoutesWithoutCredentials() });

    const second = await runCli(['routes', 'apply', '--file', file], env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe('nothing changed: version 1 already holds these routes\n');
    expect((await current()).version).toBe(1);
    expect(chained()).toBe(1);
  });

  it('export is YAML that round-trips: parsed, it is the routes; applied, it changes nothing', async () => {
    const r = await runCli(['routes', 'export'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^# version 1, updated \S+ by tok_\S+\n/);
    expect(parse(r.stdout)).toEqual(exampleRoutesWithoutCredentials());

    const out = join(dir, 'exported.yaml');
    expect((await runCli(['routes', 'export', '--out', out], env)).code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(r.stdout);
    const again = await runCli(['routes', 'apply', '-f', out], env);
    expect(again.stdout).toBe('nothing changed: version 1 already holds these routes\n');
  });

  it('apply -f - reads standard input, and JSON is YAML too', async () => {
    const changed = exampleRoutesWithoutCredentials();
    changed.breaker.open_s = 60;
    const r = await runCli(['routes', 'apply', '-f', '-'], env, JSON.stringify(changed));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('routes applied: version 2 (was 1)\n');
    expect((await current()).routes).toEqual(changed);
  });

  it('refused routes: exit 2, the field named, nothing changed', async () => {
    const bad = routesFile('bad.yaml', EXAMPLE_ROUTES_YAML_WITHOUT_CREDENTIALS.replace('http://vllm:8000/v1', 'http://vllm:8000/v1?key=sk-x'));
    const r = await runCli(['routes', 'apply', '-f', bad], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('aduana: routes apply: PUT /v1/routes: 400 targets.local.base_url: must not have a query');
    expect(r.stdout).toBe('');
    const withCredentials = routesFile('credentials.yaml', 'targets:\n  a: { provider: openai, base_url: https://x.example, credential: openai-prod }\n');
    expect((await runCli(['routes', 'apply', '-f', withCredentials], env)).stderr).toContain('400 targets.a.credential: unknown credential "openai-prod"');
    expect((await current()).version).toBe(2);
  });

  it('a file that is not routes is refused before any call: exit 2', async () => {
    const cases: [string, string][] = [
      [routesFile('broken.yaml', 'targets: { a: [\n'), 'not YAML'],
      [routesFile('twice.yaml', 'targets: {}\ntargets: {}\n'), 'not YAML'],
      [routesFile('empty.yaml', '# nothing\n'), 'holds no routes'],
      [join(dir, 'missing.yaml'), 'ENOENT'],
    ];
    for (const [file, why] of cases) {
      const r = await runCli(['routes', 'apply', '-f', file], { ...env, ADUANA_URL: 'http://127.0.0.1:9' });
      expect(r.code, file).toBe(2);
      expect(r.stderr, file).toContain(why);
    }
  });

  it('a viewer or operator token cannot apply or delete (exit 2, 403), and can export', async () => {
    const file = routesFile('viewer.yaml', EXAMPLE_ROUTES_YAML_WITHOUT_CREDENTIALS);
    for (const role of ['viewer', 'operator'] as const) {
      const r = await runCli(['routes', 'apply', '-f', file], { ...env, ADUANA_TOKEN: tokens[role] });
      expect(r.code, role).toBe(2);
      expect(r.stderr).toContain('PUT /v1/routes: 403');
      expect((await runCli(['routes', 'delete'], { ...env, ADUANA_TOKEN: tokens[role] })).code).toBe(2);
      expect((await runCli(['routes', 'export'], { ...env, ADUANA_TOKEN: tokens[role] })).code).toBe(0);
    }
    expect((await current()).version).toBe(2);
  });

  it('delete: back to the default route; again: nothing changed', async () => {
    const r = await runCli(['routes', 'delete'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("routes deleted: version 3; the tenant's calls take the default route\n");
    expect(await current()).toMatchObject({ version: 3, routes: null });
    const again = await runCli(['routes', 'delete'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe('nothing changed: the tenant has no routes\n');
  });

  it('without ADUANA_TOKEN, or with something else: exit 2; a gateway that does not answer: exit 1', async () => {
    const file = routesFile('any.yaml', EXAMPLE_ROUTES_YAML_WITHOUT_CREDENTIALS);
    const none = await runCli(['routes', 'export'], { ...env, ADUANA_TOKEN: '' });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('ADUANA_TOKEN is not set');
    const wrong = await runCli(['routes', 'export'], { ...env, ADUANA_TOKEN: 'sk-not-a-pat' });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('ADUANA_TOKEN is not an aduana PAT');
    expect(wrong.stderr).not.toContain('sk-not-a-pat');
    // Port 9 (discard): nothing listens there.
    const away = await runCli(['routes', 'apply', '-f', file, '--url', 'http://127.0.0.1:9'], env);
    expect(away.code).toBe(1);
    expect(away.stderr).toContain('the gateway at http://127.0.0.1:9 could not be reached');
  });
});
