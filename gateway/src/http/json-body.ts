import { GatewayError } from '../errors.js';

/** Deepest nesting accepted in a JSON body: hostile bodies of 100k '[' must not cost recursion further down. */
const MAX_DEPTH = 64;

/**
 * Parses a JSON request body. One linear scan over the text first checks nesting depth (so later walks are safe) and
 * duplicate object keys: JSON.parse keeps the last of two equal keys while another reader may keep the first, so a
 * body with duplicates is refused rather than judged on one reading and forwarded to be read another way.
 */
export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) throw new GatewayError('invalid_json', 'request body is empty');
  const text = raw.toString('utf8');
  const problem = scanStructure(text, MAX_DEPTH);
  if (problem === DEPTH) throw new GatewayError('invalid_request', `JSON nesting deeper than ${MAX_DEPTH}`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new GatewayError('invalid_json');
  }
  if (problem !== null) throw new GatewayError('invalid_request', `JSON object has a duplicate key "${problem.slice(0, 100)}"`);
  return value;
}

const DEPTH = '\0depth';

/**
 * Returns DEPTH when nesting passes `max`, the first duplicated key (decoded) when an object repeats one, else null.
 * Tolerant of malformed text (JSON.parse judges it after). Keys of an object are remembered only from its second
 * key on, so the common small body allocates next to nothing.
 */
export function scanStructure(text: string, max: number): string | null {
  // Per open container: is it an object, its first key, and (from the second key on) every key seen.
  const isObject: boolean[] = [];
  const firstKey: (string | null)[] = [];
  const keySets: (Set<string> | null)[] = [];
  let expectKey = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // A string: find its end; decode it only when it has escapes and is a key.
      const start = i + 1;
      let escaped = false;
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 92) {
          escaped = true;
          i += 2;
          continue;
        }
        if (d === 34) break;
        i++;
      }
      if (!expectKey) continue;
      expectKey = false;
      const top = isObject.length - 1;
      const key = escaped ? decodeKey(text.slice(start - 1, i + 1)) : text.slice(start, i);
      const first = firstKey[top];
      if (first === null) {
        firstKey[top] = key;
        continue;
      }
      let seen = keySets[top];
      if (!seen) {
        seen = new Set([first as string]);
        keySets[top] = seen;
      }
      if (seen.has(key)) return key;
      seen.add(key);
    } else if (c === 123 || c === 91) {
      if (isObject.length >= max) return DEPTH;
      isObject.push(c === 123);
      firstKey.push(null);
      keySets.push(null);
      expectKey = c === 123;
    } else if (c === 125 || c === 93) {
      isObject.pop();
      firstKey.pop();
      keySets.pop();
      expectKey = false;
    } else if (c === 44) {
      expectKey = isObject.length > 0 && isObject[isObject.length - 1] === true;
    }
  }
  return null;
}

function decodeKey(quoted: string): string {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return quoted;
  }
}
