#!/usr/bin/env node
import { runCli } from './run-cli.js';

runCli(process.argv.slice(2)).then(
  (code) => {
    if (code !== null) process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`aduana: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
