/**
 * The text policies judge in a request: every string a reader of it may see, object keys included, found by walking
 * the whole object (not a list of known fields, which misses whatever a provider adds next). Left out only: values of
 * keys named in `skipRoot` at the top level (e.g. the proxy's `model`), and binary payloads (base64 `data:` URLs,
 * `input_audio`, `file_data`, Anthropic's base64 sources, Responses' `encrypted_content`), which carry no text a filter could read (docs/policies.md,
 * "What is judged").
 *
 * One pass, iterative (bodies are depth-capped at parse time), no per-request closures: `visit` may return a new
 * string, which replaces the value (or the key) in place, so redaction and judging walk the same strings.
 */
export type TextVisit = (text: string) => string;

const NO_SKIP: ReadonlySet<string> = new Set();

export function walkText(root: object, visit: TextVisit, skipRoot: ReadonlySet<string> = NO_SKIP): void {
  const stack: object[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as object;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const v: unknown = node[i];
        if (typeof v === 'string') {
          if (!isBinary(v)) {
            const out = visit(v);
            if (out !== v) node[i] = out;
          }
        } else if (v !== null && typeof v === 'object') stack.push(v);
      }
      continue;
    }
    const obj = node as Record<string, unknown>;
    let renamed: string[] | null = null;
    for (const key in obj) {
      const newKey = visit(key);
      if (newKey !== key) (renamed ??= []).push(key, newKey);
      if (node === root && skipRoot.has(key)) continue;
      // OpenAI's Responses reasoning items carry `encrypted_content`: ciphertext only the provider reads.
      if (key === 'input_audio' || key === 'file_data' || key === 'encrypted_content') continue;
      // Anthropic's base64 sources (an image, a PDF): `{type: 'base64', media_type, data}`, a `text` source is judged;
      // Gemini's `inlineData: {mimeType, data}`, base64 bytes.
      if (key === 'data' && (obj['type'] === 'base64' || typeof obj['mimeType'] === 'string')) continue;
      const v = obj[key];
      if (typeof v === 'string') {
        if (!isBinary(v)) {
          const out = visit(v);
          if (out !== v) obj[key] = out;
        }
      } else if (v !== null && typeof v === 'object') stack.push(v);
    }
    if (renamed) renameKeys(obj, renamed);
  }
}

/** Every judged string, in walk order, appended to `into`. */
export function collectStrings(root: object, skipRoot?: ReadonlySet<string>, into: string[] = []): string[] {
  walkText(
    root,
    (t) => {
      into.push(t);
      return t;
    },
    skipRoot,
  );
  return into;
}

/** Joins every judged string with '\n' (what content filters, entropy and PII checks read). */
export function collectText(root: object, skipRoot?: ReadonlySet<string>): string {
  return collectStrings(root, skipRoot).join('\n');
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

/** A base64 data URL (an image, audio, a file): bytes for a decoder, not text for a filter. */
function isBinary(v: string): boolean {
  return v.length > 64 && v.startsWith('data:') && v.lastIndexOf(';base64,', 100) > 0;
}

/** Rare (a key that held personal data): rebuilds the object so its key order stays as sent. */
function renameKeys(obj: Record<string, unknown>, pairs: string[]): void {
  const map = new Map<string, string>();
  for (let i = 0; i < pairs.length; i += 2) map.set(pairs[i] as string, pairs[i + 1] as string);
  const entries = Object.entries(obj);
  for (const [k] of entries) delete obj[k];
  for (const [k, v] of entries) obj[map.get(k) ?? k] = v;
}
