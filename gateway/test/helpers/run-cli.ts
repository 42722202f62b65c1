import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The compiled CLI: process tests run what users run (`npm test` builds before vitest). */
export const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

export function assertBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first (npm test does)`);
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a CLI command to its end; `input`, when given, is written to its standard input (passwords are read there). */
export function runCli(args: string[], env: Record<string, string>, input?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** Starts a long-running CLI service and resolves once its stderr shows `readyPattern`. */
export function startCliService(args: string[], env: Record<string, string>, readyPattern: RegExp): Promise<{ child: ChildProcess; output: () => string; match: RegExpMatchArray }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`service did not start: ${out}`)), 20_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = out.match(readyPattern);
      if (m) {
        clearTimeout(timer);
        resolve({ child, output: () => out, match: m });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code}: ${out}`));
    });
  });
}

export function waitExit(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    child.on('exit', (code) => resolve(code));
  });
}

/** Runs a CLI command with `input` on its standard input (passwords are read from there, never from arguments). */
export function runCliWithInput(args: string[], env: Record<string, string>, input: string): Promise<CliResult> {
  return runCli(args, env, input);
}
