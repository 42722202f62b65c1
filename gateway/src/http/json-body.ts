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

// The scan's working arrays, reused from one call to the next (the scan is synchronous, so no two calls overlap).
// They are written by index and never shortened: setting an array's length lets V8 drop its storage, to be allocated
// again by the next push. Per open container: is it an object, where its keys start in `keyAt`, its Set once it has one.
const isObject: boolean[] = [];
const keyStart: number[] = [];
const keySets: (Set<string> | null)[] = [];
/** Small objects' keys as [start, end) offsets into the text, two numbers a key. */
const keyAt: number[] = [];

/**
 * Returns DEPTH when nesting passes `max`, the first duplicated key (decoded) when an object repeats one, else null.
 * Tolerant of malformed text (JSON.parse judges it after). While an object has few keys and none escaped, its keys are
 * offsets into the text, compared in place: the common small object allocates nothing. Past SMALL_OBJECT keys, or at
 * its first escaped key, the object's keys move to a Set of decoded strings, so a hostile object of 100k keys still
 * costs linear time and an escaped spelling still matches a plain one.
 */
export function scanStructure(text: string, max: number): string | null {
  let depth = 0;
  let keyEnd = 0;
  let setMade = false;
  let expectKey = false;
  let found: string | null = null;
  const n = text.length;
  // The next backslash at or after the scan: a string that ends before it holds no escape, so neither its closing
  // quote nor its text needs a second look (most bodies have none at all: one indexOf for the whole text).
  let backslash = text.indexOf('\\');
  if (backslash < 0) backslash = n;
  scan: for (let i = 0; i < n; i++) {
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
      const top = depth - 1;
      const from = keyStart[top] as number;
      let set = keySets[top];
      const hasEscape = escaped && text.lastIndexOf('\\', i - 1) >= start;
      if (!set && !hasEscape) {
        const length = i - start;
        for (let k = from; k < keyEnd; k += 2) {
          const at = keyAt[k] as number;
          if ((keyAt[k + 1] as number) - at === length && sameText(text, at, start, length)) {
            found = text.slice(start, i);
            break scan;
          }
        }
        keyAt[keyEnd++] = start;
        keyAt[keyEnd++] = i;
        if (keyEnd - from <= 2 * SMALL_OBJECT) continue;
      }
      if (!set) {
        set = new Set<string>();
        for (let k = from; k < keyEnd; k += 2) set.add(text.slice(keyAt[k], keyAt[k + 1]));
        keySets[top] = set;
        setMade = true;
        keyEnd = from;
        if (!hasEscape) continue; // this key was the one that made the object large: already in the Set
      }
      const key = hasEscape ? decodeKey(`"${text.slice(start, i)}"`) : text.slice(start, i);
      if (set.has(key)) {
        found = key;
        break;
      }
      set.add(key);
    } else if (c === 123 || c === 91) {
      if (depth >= max) {
        found = DEPTH;
        break;
      }
      isObject[depth] = c === 123;
      keyStart[depth] = keyEnd;
      keySets[depth] = null;
      depth++;
      expectKey = c === 123;
    } else if (c === 125 || c === 93) {
      if (depth > 0) {
        depth--;
        keyEnd = keyStart[depth] as number;
        keySets[depth] = null;
      }
      expectKey = false;
    } else if (c === 44) {
      expectKey = depth > 0 && isObject[depth - 1] === true;
    }
  }
  if (setMade) keySets.fill(null); // a large object's Set is not kept past the call
  return found;
}

/** Whether text[a, a+length) equals text[b, b+length). */
function sameText(text: string, a: number, b: number, length: number): boolean {
  for (let k = 0; k < length; k++) if (text.charCodeAt(a + k) !== text.charCodeAt(b + k)) return false;
  return true;
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
