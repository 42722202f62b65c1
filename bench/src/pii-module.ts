/**
 * Loads the gateway's PII module from its build output (gateway/dist/pii), typed from its source. The gateway's
 * package entry does not export the PII API (the proxy uses it internally), so the benchmarks reach it by path;
 * run `npx tsc -b gateway bench` first.
 */
import type * as PiiApi from '../../gateway/src/pii/index.js';
import type * as PiiCompile from '../../gateway/src/pii/compile.js';
import type * as PiiCorpus from '../../gateway/src/pii/corpus/build-corpus.js';
import type * as PiiEvaluate from '../../gateway/src/pii/evaluate-corpus.js';

const dist = (path: string): string => new URL(`../../gateway/dist/pii/${path}`, import.meta.url).href;

export const pii = (await import(dist('index.js'))) as typeof PiiApi;
export const piiCompile = (await import(dist('compile.js'))) as typeof PiiCompile;
export const piiCorpus = (await import(dist('corpus/build-corpus.js'))) as typeof PiiCorpus;
export const piiEvaluate = (await import(dist('evaluate-corpus.js'))) as typeof PiiEvaluate;
