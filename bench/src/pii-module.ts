/** The gateway's PII module, its internals (matching strategies) and its test corpus, for the PII benchmarks. */
export * as pii from '@aduana/gateway/pii';
export * as piiCompile from '@aduana/gateway/pii/compile';
export * as piiCorpus from '@aduana/gateway/test/pii-corpus';
