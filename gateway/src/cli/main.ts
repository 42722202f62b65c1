#!/usr/bin/env node
import { enableCompileCache } from 'node:module';

// V8's compiled code for the CLI's modules is kept on disk (NODE_COMPILE_CACHE, else the system's temp dir) and reused
// by the next start: compiling them again was about a tenth of start-up (docs/benchmarks-history.md, "Start-up"). It
// must be on before they load, hence the dynamic imports. Where the directory cannot be written, nothing changes.
enableCompileCache();
const { runMain } = await import('@aduana/shared');
const { runCli } = await import('./run-cli.js');

runMain('aduana', () => runCli(process.argv.slice(2)));
