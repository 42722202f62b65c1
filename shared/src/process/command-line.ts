// What every command line of the repository shares: its entry point, its help and mistakes, its stop on a signal.
import { EXIT_STATUS } from './command-spec.js';

/**
 * Runs `close` once on SIGTERM or SIGINT, then exits 0 (in-flight requests finished, stores flushed), or 1 when
 * closing failed. Both services' commands use it, so a container's stop is handled the same way everywhere.
 */
export function stopOnSignal(name: string, close: () => Promise<void>): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`aduana ${name}: ${signal}, stopping\n`);
    close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`aduana ${name}: error while stopping: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

/** The entry point of a command line: prints a thrown error as one line and sets the exit code. */
export function runMain(name: string, run: () => Promise<number | null>): void {
  run().then(
    (code) => {
      if (code !== null) process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`${name}: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}

/**
 * What every command line answers to no command, `help`, or one it does not know (exit 2 for a mistake); the help ends
 * with what the exit codes mean.
 */
export function helpOrUnknown(cmd: string | undefined, usage: string): number {
  if (cmd === undefined || cmd === 'help' || cmd === '--help' || cmd === '-h') {
    process.stdout.write(`${usage}\n${EXIT_STATUS}`);
    return cmd === undefined ? 2 : 0;
  }
  process.stderr.write(`aduana: unknown command "${cmd}"\n${usage}`);
  return 2;
}
