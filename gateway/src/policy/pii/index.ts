/**
 * PII and secret redaction for the gateway's request path: RE2 recognizers with validators in code, compiled once
 * per redactor, and a stream redactor for SSE answers. See README in this folder for design and accuracy.
 */
export { ALL_PII_ENTITIES, type PiiEntity, type PiiMatch } from './entities.js';
export { createPiiRedactor, type PiiRedactor } from './redactor.js';
export type { PiiStreamRedactor } from './stream-redactor.js';
