#!/usr/bin/env node
import { runMain } from '@aduana/shared';
import { runCli } from './run-cli.js';

runMain('aduana', () => runCli(process.argv.slice(2)));
