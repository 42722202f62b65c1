import { GatewayError } from '../errors.js';

/** Deepest nesting accepted in a JSON body: hostile bodies of 100k '[' must not cost recursion further down. */
const MAX_DEPTH = 64;

/**
 * Parses a JSON request body. Depth is checked with one linear scan over the text before parsing (cheap, and it keeps
 * later recursive walks safe).
 */
export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) throw new GatewayError('invalid_json', 'request body is empty');
  const text = raw.toString('utf8');
  if (exceedsDepth(text, MAX_DEPTH)) throw new GatewayError('invalid_request', `JSON nesting deeper than ${MAX_DEPTH}`);
  try {
    return JSON.parse(text);
  } catch {
    throw new GatewayError('invalid_json');
  }
}

function exceedsDepth(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped char
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}
