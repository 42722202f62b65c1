/**
 * Evidence quotes what a target served, so it is bounded and made safe to show (docs/scanner.md, "Bounds"): every
 * string an assessment or SEO audit carries passes through here once, where the result is built.
 */
export interface EvidenceBounds {
  /** Longest evidence string, in UTF-16 code units, the cut mark included. */
  readonly evidenceMaxChars: number;
  /** Most entries of one list (headings, hreflang values, Open Graph tags, signals). */
  readonly evidenceMaxItems: number;
}

/** C0 and C1 controls, DEL, and the bidirectional marks, embeddings, overrides and isolates. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/** Tab, line feed and carriage return read as spaces; the other controls are dropped. */
const SPACING = /[\t\n\r]/g;
/** Half of a surrogate pair on its own (a check cut a quote inside an emoji): not text, shown as U+FFFD. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const CUT = '…';

/** The text without control characters or lone surrogates, cut to the cap with a trailing "…" (never inside a surrogate pair). */
export function evidenceText(value: string, bounds: EvidenceBounds): string {
  const clean = value.replace(SPACING, ' ').replace(CONTROL, '').replace(LONE_SURROGATE, '\ufffd');
  if (clean.length <= bounds.evidenceMaxChars) return clean;
  let end = bounds.evidenceMaxChars - CUT.length;
  const last = clean.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${clean.slice(0, end)}${CUT}`;
}

/** The first entries of a list, each cleaned and cut. */
export function evidenceList(values: readonly string[], bounds: EvidenceBounds): string[] {
  return values.slice(0, bounds.evidenceMaxItems).map((v) => evidenceText(v, bounds));
}

/** An optional string, cleaned and cut when present. */
export function evidenceOrNull(value: string | null, bounds: EvidenceBounds): string | null {
  return value === null ? null : evidenceText(value, bounds);
}
