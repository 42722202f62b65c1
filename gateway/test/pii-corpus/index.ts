/**
 * The labelled PII corpus and its scorer: test-only (the gateway's PII tests and `npm run bench:pii`), kept out of
 * the gateway's src/ and dist/. It sees the PII module only through the package's public `@aduana/gateway/pii`.
 */
export { buildCorpus, CORPUS_SEED, type CorpusSample } from './build-corpus.js';
export { createPrng, type Prng } from './prng.js';
export { evaluateCorpus, type CorpusError, type CorpusEvaluation, type EntityScore } from './evaluate-corpus.js';
