import { randomBytes } from 'node:crypto';

/** A W3C Trace Context (https://www.w3.org/TR/trace-context/) as carried by `traceparent`. */
export interface TraceContext {
  traceId: string; // 32 lowercase hex
  parentId: string; // 16 lowercase hex: the span that called us
  spanId: string; // 16 lowercase hex: our span
  flags: string; // 2 hex
}

const HEX32 = /^[0-9a-f]{32}$/;
const HEX16 = /^[0-9a-f]{16}$/;
const ZERO32 = '0'.repeat(32);
const ZERO16 = '0'.repeat(16);

// Random ids come from a pooled buffer: one randomBytes call per 256 ids instead of one per request.
const POOL_IDS = 256;
let pool = randomBytes(16 * POOL_IDS);
let poolOffset = 0;
function randomHex(bytes: 8 | 16): string {
  if (poolOffset + bytes > pool.length) {
    pool = randomBytes(16 * POOL_IDS);
    poolOffset = 0;
  }
  const hex = pool.toString('hex', poolOffset, poolOffset + bytes);
  poolOffset += bytes;
  return hex;
}

export function newTraceId(): string {
  return randomHex(16);
}

export function newSpanId(): string {
  return randomHex(8);
}

/** Parses a `traceparent` header; undefined when absent or malformed (then a new trace starts, as W3C Trace Context says). */
export function parseTraceparent(header: string | undefined): TraceContext | undefined {
  if (!header || header.length < 55) return undefined;
  const parts = header.trim().toLowerCase().split('-');
  if (parts.length < 4) return undefined;
  const [version, traceId, parentId, flags] = parts as [string, string, string, string];
  if (version === 'ff' || !/^[0-9a-f]{2}$/.test(version)) return undefined;
  if (version === '00' && parts.length !== 4) return undefined;
  if (!HEX32.test(traceId) || traceId === ZERO32) return undefined;
  if (!HEX16.test(parentId) || parentId === ZERO16) return undefined;
  if (!/^[0-9a-f]{2}$/.test(flags)) return undefined;
  return { traceId, parentId, spanId: newSpanId(), flags };
}

/** The incoming trace continued with a new span, or a fresh trace. */
export function traceFrom(header: string | undefined): TraceContext {
  return parseTraceparent(header) ?? { traceId: newTraceId(), parentId: ZERO16, spanId: newSpanId(), flags: '01' };
}

/** The `traceparent` to send downstream: same trace, our span as the parent. */
export function formatTraceparent(ctx: TraceContext): string {
  return `00-${ctx.traceId}-${ctx.spanId}-${ctx.flags}`;
}
