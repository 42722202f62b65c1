import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from './helpers/run-cli.js';

// Every command of the gateway's command line, with the options its help must name.
const COMMANDS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['gateway', []],
  ['control', []],
  ['config', []],
  ['tenant create', ['--plan']],
  ['tenant set-plan', []],
  ['tenant list', ['--no-header']],
  ['token create', ['--tenant', '--role', '--name', '--expires-in-days', '--agent']],
  ['token list', ['--tenant', '--no-header']],
  ['token revoke', []],
  ['token rotate', ['--grace-hours', '--expires-in-days']],
  ['user create', ['--tenant', '--email', '--name', '--role']],
  ['user list', ['--tenant', '--no-header']],
  ['user disable', ['--tenant']],
  ['sidecar-token create', ['--name', '--tenant']],
  ['sidecar-token list', ['--no-header']],
  ['sidecar-token revoke', []],
  ['sidecar-token rotate', []],
  ['credential set', ['--tenant']],
  ['credential list', ['--tenant', '--no-header']],
  ['credential delete', ['--tenant']],
  ['ledger verify', ['--tenant']],
  ['ledger export', ['--tenant', '--out']],
  ['routes apply', ['-f, --file', '--url']],
  ['routes export', ['--out', '--url']],
  ['routes delete', ['--url']],
];
const GROUPS = ['tenant', 'token', 'user', 'sidecar-token', 'credential', 'ledger', 'routes'];

let dataDir: string;
let env: Record<string, string>;
/**
 * A setting that stops any service or store from opening: help and usage errors must be answered before the settings
 * are read, and a command that wrongly went on to run would exit 1 here rather than start a server.
 */
let badEnv: Record<string, string>;

beforeAll(() => {
  assertBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'aduana-cli-help-'));
  env = { DATA_DIR: dataDir, LOG_LEVEL: 'silent', ADUANA_QUIET_BOOTSTRAP: 'true' };
  badEnv = { ...env, GATEWAY_PORT: 'eighty' };
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('the gateway command line: help', () => {
  it('every command answers --help with its usage and options, exit 0', async () => {
    for (const [cmd, options] of COMMANDS) {
      const r = await runCli([...cmd.split(' '), '--help'], badEnv);
      expect(r.code, `${cmd} --help: ${r.stderr}`).toBe(0);
      expect(r.stdout, cmd).toContain(`usage: aduana ${cmd}`);
      for (const o of options) expect(r.stdout, `${cmd} --help names ${o}`).toContain(o);
      expect(r.stdout, cmd).toContain('--help');
    }
  }, 120_000);

  it('-h is --help, also after other options', async () => {
    const r = await runCli(['token', 'create', '--tenant', 'x', '-h'], badEnv);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('usage: aduana token create');
    expect(r.stdout).toContain('--agent');
  });

  it('every group answers --help with its subcommands, exit 0', async () => {
    for (const group of GROUPS) {
      const r = await runCli([group, '--help'], badEnv);
      expect(r.code, `${group} --help: ${r.stderr}`).toBe(0);
      for (const [cmd] of COMMANDS.filter(([c]) => c.startsWith(`${group} `))) expect(r.stdout, group).toContain(cmd);
    }
  }, 60_000);

  it('help (and no command) lists every command, --agent included, and the exit codes', async () => {
    const r = await runCli(['--help'], badEnv);
    expect(r.code).toBe(0);
    for (const [cmd] of COMMANDS) expect(r.stdout).toContain(cmd);
    expect(r.stdout).toContain('--agent');
    expect(r.stdout).toMatch(/exit status: 0 ok, 1 runtime failure, 2 usage error/);
  });
});

describe('the gateway command line: usage errors exit 2', () => {
  it('an unknown option exits 2, naming it, for every command', async () => {
    for (const [cmd] of COMMANDS) {
      const r = await runCli([...cmd.split(' '), '--bogus'], badEnv);
      expect(r.code, `${cmd} --bogus: ${r.stderr}`).toBe(2);
      expect(r.stderr, cmd).toContain('--bogus');
    }
  }, 120_000);

  it('a missing or extra argument, a missing subcommand or an unknown one exits 2 with the usage', async () => {
    const cases = [
      ['tenant', 'create'],
      ['tenant', 'create', 'one', 'two'],
      ['tenant', 'set-plan', 'one'],
      ['token', 'revoke'],
      ['token', 'rotate'],
      ['token', 'create', '--role', 'admin'],
      ['user', 'disable', '--tenant', 'default'],
      ['sidecar-token', 'create'],
      ['gateway', 'extra'],
      ['token'],
      ['token', 'frobnicate'],
      ['ledger'],
      ['token', 'create', '--tenant'],
    ];
    for (const args of cases) {
      const r = await runCli(args, badEnv);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr, args.join(' ')).toContain('usage: aduana');
    }
  }, 120_000);
});

describe('the gateway command line: lists and token lifetimes', () => {
  it('each list prints a header row first; --no-header leaves it out', async () => {
    expect((await runCli(['tenant', 'create', 'hdr-co'], env)).code).toBe(0);
    expect((await runCli(['token', 'create', '--tenant', 'hdr-co', '--role', 'viewer'], env)).code).toBe(0);
    expect((await runCli(['sidecar-token', 'create', '--name', 'hdr-edge'], env)).code).toBe(0);
    const created = await runCli(['user', 'create', '--tenant', 'hdr-co', '--email', 'h@hdr.example', '--name', 'H', '--role', 'viewer'], { ...env, PASSWORD_SCRYPT_LOG_N: '12' }, 'a long enough password\n');
    expect(created.code, created.stderr).toBe(0);
    const lists: ReadonlyArray<readonly [string[], string, RegExp]> = [
      [['tenant', 'list'], 'ID\tPLAN\tCREATED', /^hdr-co\tcommunity\t/],
      [['token', 'list', '--tenant', 'hdr-co'], 'ID\tTENANT\tROLE\tSTATE\tTOKEN\tEXPIRES\tNAME', /^tok_\S+\thdr-co\tviewer\tactive\t/],
      [['user', 'list', '--tenant', 'hdr-co'], 'ID\tEMAIL\tROLE\tPROVIDER\tSTATE\tNAME', /^usr_\S+\th@hdr\.example\tviewer\t/],
      [['sidecar-token', 'list'], 'ID\tSTATE\tTOKEN\tTENANTS\tCREATED\tNAME', /^sct_\S+\tactive\t/],
    ];
    for (const [args, header, row] of lists) {
      const r = await runCli(args, env);
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stdout.trimEnd().split('\n');
      expect(lines[0], args.join(' ')).toBe(header);
      expect(lines[1], args.join(' ')).toMatch(row);
      const bare = await runCli([...args, '--no-header'], env);
      expect(bare.stdout.trimEnd().split('\n'), args.join(' ')).toEqual(lines.slice(1));
    }
  }, 120_000);

  it('token create and token rotate refuse a lifetime past PAT_MAX_TTL_DAYS (365 by default), exit 2, as the API does', async () => {
    expect((await runCli(['tenant', 'create', 'ttl-co'], env)).code).toBe(0);
    const long = await runCli(['token', 'create', '--tenant', 'ttl-co', '--role', 'viewer', '--expires-in-days', '3650'], env);
    expect(long.code).toBe(2);
    expect(long.stderr).toContain('--expires-in-days must be an integer from 1 to 365');
    expect(long.stdout).toBe('');
    expect((await runCli(['token', 'list', '--tenant', 'ttl-co', '--no-header'], env)).stdout).toBe('');

    const year = await runCli(['token', 'create', '--tenant', 'ttl-co', '--role', 'viewer', '--expires-in-days', '365'], env);
    expect(year.code, year.stderr).toBe(0);
    const id = /id (tok_\S+),/.exec(year.stderr)?.[1] ?? '';
    const rotated = await runCli(['token', 'rotate', id, '--expires-in-days', '366'], env);
    expect(rotated.code).toBe(2);
    expect(rotated.stderr).toContain('--expires-in-days must be an integer from 1 to 365');

    // The cap is the setting's, not a constant.
    const capped = { ...env, PAT_MAX_TTL_DAYS: '30', PAT_TTL_DAYS: '7' };
    expect((await runCli(['token', 'create', '--tenant', 'ttl-co', '--role', 'viewer', '--expires-in-days', '31'], capped)).code).toBe(2);
    expect((await runCli(['token', 'create', '--tenant', 'ttl-co', '--role', 'viewer', '--expires-in-days', '30'], capped)).code).toBe(0);
  }, 60_000);
});
