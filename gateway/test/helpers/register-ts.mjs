// `node --experimental-transform-types --conditions=source --import <this file> script.ts` runs a TypeScript entry
// point of this repo without a build: the ledger crash test's child process uses it, so it never
// depends on dist/ being fresh (or on other packages' in-progress code compiling).
import { register } from 'node:module';

register('./ts-loader.mjs', import.meta.url);
