import { ANTHROPIC } from './anthropic.js';
import { AZURE } from './azure.js';
import { GEMINI } from './gemini.js';
import { OPENAI } from './openai.js';
import type { WireFormat } from './wire-format.js';

/**
 * The one table of the wire formats the proxy speaks, read by the routes (`api/proxy-routes.ts`), the upstream pools
 * (`api/mount-proxy.ts`) and, through each call's endpoint, every stage. In the order their routes are mounted.
 */
export const WIRE_FORMATS = Object.freeze([OPENAI, ANTHROPIC, AZURE, GEMINI] as const);

type Formats = (typeof WIRE_FORMATS)[number];
type KindOf<F> = F extends WireFormat<infer K, string> ? K : never;

/** The providers the proxy speaks to, each with its own upstream (base URL, key and how the key is sent). */
export type Provider = Formats['provider'];

/** The proxied provider endpoints (docs/decisions.md, "Governance proxy"). */
export type EndpointKind = KindOf<Formats>;
