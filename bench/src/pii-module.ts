/** The gateway's PII module and its internals (matching strategies, corpus), for the PII benchmarks. */
export * as pii from '@aduana/gateway/pii';
export * as piiCompile from '@aduana/gateway/pii/compile';
export * as piiCorpus from '@aduana/gateway/pii/corpus/build-corpus';
export * as piiEvaluate from '@aduana/gateway/pii/evaluate-corpus';
