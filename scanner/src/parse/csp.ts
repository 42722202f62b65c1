/** One Content-Security-Policy: directive name (lower-case) to its source list (keywords keep their quotes). */
export type CspPolicy = ReadonlyMap<string, readonly string[]>;

/**
 * Parses a Content-Security-Policy header value (CSP3 §2.2.1). Several policies may arrive joined with ", " (repeated
 * headers); each is returned separately, since every one of them is enforced. A repeated directive keeps its first
 * occurrence, as browsers do.
 */
export function parseCsp(header: string): CspPolicy[] {
  const policies: CspPolicy[] = [];
  for (const text of header.split(',')) {
    const policy = new Map<string, string[]>();
    for (const part of text.split(';')) {
      const tokens = part.trim().split(/\s+/).filter(Boolean);
      const name = tokens.shift()?.toLowerCase();
      if (!name || policy.has(name)) continue;
      policy.set(
        name,
        tokens.map((t) => (t.startsWith("'") ? t.toLowerCase() : t)),
      );
    }
    if (policy.size > 0) policies.push(policy);
  }
  return policies;
}

/** The sources that govern scripts: script-src, else default-src (CSP3 fallback); undefined when neither is set. */
export function scriptSources(policy: CspPolicy): readonly string[] | undefined {
  return policy.get('script-src') ?? policy.get('default-src');
}
