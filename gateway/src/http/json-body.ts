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
 * Tolerant of malformed text (JSON.parse judges it after). An object's keys sit in one shared array while it has few
 * (compared linearly: the common small object allocates nothing of its own) and move to a Set past SMALL_OBJECT keys,
 * so a hostile object of 100k keys still costs linear time.
 */
export function scanStructure(text: string, max: number): string | null {
  // Per open container: is it an object, where its keys start in `keys`, and its Set once it is large.
  const isObject: boolean[] = [];
  const keyStart: number[] = [];
  const keySets: (Set<string> | null)[] = [];
  const keys: string[] = [];
  let expectKey = false;
  const n = text.length;
  // The next backslash at or after the scan: a string that ends before it holds no escape, so neither its closing
  // quote nor its text needs a second look (most bodies have none at all: one indexOf for the whole text).
  let backslash = text.indexOf('\\');
  if (backslash < 0) backslash = n;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // A string: its end is the next quote not escaped (indexOf is far faster than a loop over long text).
      const start = i + 1;
      let end = text.indexOf('"', start);
      const escaped = end > backslash;
      if (escaped) {
        while (end > 0 && isEscaped(text, end)) end = text.indexOf('"', end + 1);
      }
      i = end < 0 ? n : end;
      if (escaped && backslash < i) {
        backslash = text.indexOf('\\', i);
        if (backslash < 0) backslash = n;
      }
      if (!expectKey) continue;
      expectKey = false;
      const top = isObject.length - 1;
      const raw = text.slice(start, i);
      const key = escaped && raw.includes('\\') ? decodeKey(`"${raw}"`) : raw;
      const set = keySets[top];
      if (set) {
        if (set.has(key)) return key;
        set.add(key);
        continue;
      }
      const from = keyStart[top] as number;
      for (let k = from; k < keys.length; k++) if (keys[k] === key) return key;
      keys.push(key);
      if (keys.length - from > SMALL_OBJECT) {
        keySets[top] = new Set(keys.slice(from));
        keys.length = from;
      }
    } else if (c === 123 || c === 91) {
      if (isObject.length >= max) return DEPTH;
      isObject.push(c === 123);
      keyStart.push(keys.length);
      keySets.push(null);
      expectKey = c === 123;
    } else if (c === 125 || c === 93) {
      isObject.pop();
      const from = keyStart.pop();
      if (from !== undefined) keys.length = from;
      keySets.pop();
      expectKey = false;
    } else if (c === 44) {
      expectKey = isObject.length > 0 && isObject[isObject.length - 1] === true;
    }
  }
  return null;
}

/** Keys compared linearly up to this many per object; a Set beyond. */
const SMALL_OBJECT = 16;

/** The quote at `at` is escaped when an odd number of backslashes precede it. */
function isEscaped(text: string, at: number): boolean {
  let k = at - 1;
  while (k >= 0 && text.charCodeAt(k) === 92) k--;
  return (at - 1 - k) % 2 === 1;
}

function decodeKey(quoted: string): string {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return quoted;
  }
}
