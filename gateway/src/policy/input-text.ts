import { BARE_BASE64_MIN, classifyBase64, decodeText, encodeText, isBase64, parseDataUrl } from './encoded-text.js';

/**
 * The text policies judge in a request: every string a reader of it may see, object keys included, found by walking
 * the whole object (not a list of known fields, which misses whatever a provider adds next). Left out only: values of
 * keys named in `skipRoot` at the top level (e.g. the proxy's `model`), and media a wire format's schema places
 * (`media`) whose bytes are really base64 of something that is not text (docs/policies.md, "What is judged").
 *
 * Nothing the sender writes makes a string invisible: free JSON (tool arguments, decide payloads, events) has no
 * media positions, so every string there is judged as written; one that is base64 of text (a `data:text/plain;base64`
 * URL, a bare base64 string) is judged decoded too, and redaction of the decoded text is encoded back in its place.
 *
 * One pass, iterative (bodies are depth-capped at parse time), no per-request closures: `visit` may return a new
 * string, which replaces the value (or the key) in place, so redaction and judging walk the same strings in the same
 * order (the evaluation worker's collect-then-replace relies on it).
 */
export type TextVisit = (text: string) => string;

/**
 * A media position in a known schema: the holder object and the key whose value is an image, audio, a file or a
 * provider's ciphertext, with the media type the schema declares for it ('' when it declares none).
 */
export interface MediaSlot {
  readonly key: string;
  readonly mediaType: string;
}

/** The media positions of one request or result, found by its format's locator; null when it has none. */
export type MediaSlots = ReadonlyMap<object, MediaSlot> | null;

const NO_SKIP: ReadonlySet<string> = new Set();

export function walkText(root: object, visit: TextVisit, skipRoot: ReadonlySet<string> = NO_SKIP, media: MediaSlots = null): void {
  const stack: object[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as object;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const v: unknown = node[i];
        if (typeof v === 'string') {
          const out = judgeString(v, visit);
          if (out !== v) node[i] = out;
        } else if (v !== null && typeof v === 'object') stack.push(v);
      }
      continue;
    }
    const obj = node as Record<string, unknown>;
    const slot = media === null ? undefined : media.get(obj);
    let renamed: string[] | null = null;
    for (const key in obj) {
      const newKey = visit(key);
      if (newKey !== key) (renamed ??= []).push(key, newKey);
      if (node === root && skipRoot.has(key)) continue;
      const v = obj[key];
      if (typeof v === 'string') {
        const out = slot !== undefined && slot.key === key ? judgeMedia(v, slot.mediaType, visit) : judgeString(v, visit);
        if (out !== v) obj[key] = out;
      } else if (v !== null && typeof v === 'object') stack.push(v);
    }
    if (renamed) renameKeys(obj, renamed);
  }
}

/**
 * A string of free text: judged as written and, where it is base64 of text, decoded as well (two visits, always both,
 * so a collecting walk and a replacing walk stay in step). A redaction of what is written wins; else one of the decoded
 * text is encoded back.
 */
function judgeString(v: string, visit: TextVisit): string {
  const out = visit(v);
  const from = encodedFrom(v);
  if (from < 0) return out;
  const decoded = decodeText(v, from);
  const decodedOut = visit(decoded);
  if (out !== v || decodedOut === decoded) return out;
  return encodeText(v, from, decodedOut);
}

/** Where base64 of text starts in a free string (0, or past a data URL's header); -1 when it carries none. */
function encodedFrom(v: string): number {
  if (v.length < BARE_BASE64_MIN) {
    if (!v.startsWith('data:')) return -1;
  } else if (v.charCodeAt(0) !== 100 /* d */ && !isBase64(v)) return -1;
  const url = parseDataUrl(v);
  if (url !== null) return classifyBase64(v, url.payloadAt, url.mediaType) === 'text' ? url.payloadAt : -1;
  return v.length >= BARE_BASE64_MIN && classifyBase64(v, 0, '') === 'text' ? 0 : -1;
}

/**
 * A value where the schema puts media: skipped only when it is base64 of bytes that are not text. Base64 of text (a
 * text media type, or bytes that read as text) is judged decoded and written back encoded; anything that is not
 * base64 is judged as written.
 */
function judgeMedia(v: string, mediaType: string, visit: TextVisit): string {
  const url = parseDataUrl(v);
  const from = url === null ? 0 : url.payloadAt;
  const kind = classifyBase64(v, from, url === null ? mediaType : url.mediaType || mediaType);
  if (kind === 'binary') return v;
  if (kind === 'not_base64') return visit(v);
  const decoded = decodeText(v, from);
  const out = visit(decoded);
  return out === decoded ? v : encodeText(v, from, out);
}

/** Every judged string, in walk order, appended to `into`. */
export function collectStrings(root: object, skipRoot?: ReadonlySet<string>, into: string[] = [], media: MediaSlots = null): string[] {
  walkText(
    root,
    (t) => {
      into.push(t);
      return t;
    },
    skipRoot,
    media,
  );
  return into;
}

/** Joins every judged string with '\n' (what content filters, entropy and PII checks read). */
export function collectText(root: object, skipRoot?: ReadonlySet<string>, media: MediaSlots = null): string {
  return collectStrings(root, skipRoot, [], media).join('\n');
}

/**
 * `[...head, collectText(root)].join('\n')`, joined in one step rather than building the text of `root` first and
 * copying it again (an action's or an event's text: its type and target, then its payload). Appends to `head`.
 */
export function headedText(head: string[], root: object): string {
  const before = head.length;
  collectStrings(root, undefined, head);
  if (head.length === before) head.push(''); // a root without strings still ends the text with a separator
  return head.join('\n');
}

/** Rare (a key that held personal data): rebuilds the object so its key order stays as sent. */
function renameKeys(obj: Record<string, unknown>, pairs: string[]): void {
  const map = new Map<string, string>();
  for (let i = 0; i < pairs.length; i += 2) map.set(pairs[i] as string, pairs[i + 1] as string);
  const entries = Object.entries(obj);
  for (const [k] of entries) delete obj[k];
  for (const [k, v] of entries) obj[map.get(k) ?? k] = v;
}
