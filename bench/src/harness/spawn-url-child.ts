import { spawn } from 'node:child_process';

/** Starts `main` with `args` in a child process that prints its base URL as its first line; resolves with it. */
export async function spawnUrlChild(main: string, args: string[], name: string): Promise<{ url: string; pid: number; stop(): void }> {
  const child = spawn(process.execPath, [main, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve(line.trim());
    });
    child.on('exit', (code) => reject(new Error(`${name} exited (${code})`)));
  });
  return { url, pid: child.pid as number, stop: () => void child.kill('SIGTERM') };
}
