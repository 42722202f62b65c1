import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertCliBuilt, runScannerCli } from './helpers/scanner-cli.js';

// Every command of the scanner's command line, with the options its help must name.
const COMMANDS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['scanner', []],
  ['config', []],
  ['scanner-key create', ['--org']],
  ['scanner-key list', ['--no-header']],
  ['scanner-key revoke', []],
];

let dataDir: string;
let env: Record<string, string>;
/** A setting the service cannot start with: a `scanner --help` that went on to run would exit 1, not serve. */
let badEnv: Record<string, string>;

beforeAll(() => {
  assertCliBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'aduana-scanner-help-'));
  env = { DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
  badEnv = { ...env, SCANNER_PORT: 'eighty' };
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('the scanner command line', () => {
  it('every command and the scanner-key group answer --help with their usage and options, exit 0', async () => {
    for (const [cmd, options] of COMMANDS) {
      const r = await runScannerCli([...cmd.split(' '), '--help'], badEnv);
      expect(r.code, `${cmd} --help: ${r.stderr}`).toBe(0);
      expect(r.stdout, cmd).toContain(`usage: aduana ${cmd}`);
      for (const o of options) expect(r.stdout, `${cmd} --help names ${o}`).toContain(o);
    }
    const group = await runScannerCli(['scanner-key', '-h'], badEnv);
    expect(group.code).toBe(0);
    for (const [cmd] of COMMANDS.filter(([c]) => c.startsWith('scanner-key '))) expect(group.stdout).toContain(cmd);
    const all = await runScannerCli(['--help'], badEnv);
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/exit status: 0 ok, 1 runtime failure, 2 usage error/);
  }, 60_000);

  it('an unknown option, a missing or extra argument and an unknown subcommand exit 2', async () => {
    for (const [cmd] of COMMANDS) {
      const r = await runScannerCli([...cmd.split(' '), '--bogus'], badEnv);
      expect(r.code, `${cmd} --bogus: ${r.stderr}`).toBe(2);
      expect(r.stderr, cmd).toContain('--bogus');
    }
    for (const args of [['scanner-key', 'create'], ['scanner-key', 'revoke'], ['scanner-key', 'revoke', 'a', 'b'], ['scanner-key'], ['scanner-key', 'frob'], ['scanner', 'extra']]) {
      const r = await runScannerCli(args, badEnv);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr, args.join(' ')).toContain('usage: aduana');
    }
  }, 60_000);

  it('scanner-key list prints a header row; --no-header leaves it out', async () => {
    expect((await runScannerCli(['scanner-key', 'create', '--org', 'hdr'], env)).code).toBe(0);
    const r = await runScannerCli(['scanner-key', 'list'], env);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('ID\tORGANISATION\tKEY\tCREATED\tREVOKED');
    expect(lines.some((l) => l.includes('\thdr\t'))).toBe(true);
    expect((await runScannerCli(['scanner-key', 'list', '--no-header'], env)).stdout.trimEnd().split('\n')).toEqual(lines.slice(1));
  });
});
