import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('./relay-main.js', import.meta.url));

/** The floor relay in a child process, forwarding to `upstream`; resolves with its base URL and pid. */
export async function spawnRelay(upstream: string): Promise<{ url: string; pid: number; stop(): void }> {
  const child = spawn(process.execPath, [MAIN, upstream], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve(line.trim());
    });
    child.on('exit', (code) => reject(new Error(`relay exited (${code})`)));
  });
  return { url, pid: child.pid as number, stop: () => void child.kill('SIGTERM') };
}
