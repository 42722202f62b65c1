import parseSerializedPolicy from 'content-security-policy-parser';

/** One Content-Security-Policy: directive name (lower-case) to its source list (keywords keep their quotes). */
export type CspPolicy = ReadonlyMap<string, readonly string[]>;

/**
 * Parses a Content-Security-Policy header value. Several policies may arrive joined with ", " (repeated headers);
 * each is returned separately, since every one of them is enforced. Each policy is read by the CSP3 algorithm (helmet's
 * content-security-policy-parser): a repeated directive keeps its first occurrence, one with a non-ASCII character is
 * skipped, as browsers do. Quoted keywords are lower-cased here, so checks compare them as written in the standard.
 */
export function parseCsp(header: string): CspPolicy[] {
  const policies: CspPolicy[] = [];
  for (const text of header.split(',')) {
    const policy = parseSerializedPolicy(text);
    for (const [name, sources] of policy) policy.set(name, sources.map((t) => (t.startsWith("'") ? t.toLowerCase() : t)));
    if (policy.size > 0) policies.push(policy);
  }
  return policies;
}

/** The sources that govern scripts: script-src, else default-src (CSP3 fallback); undefined when neither is set. */
export function scriptSources(policy: CspPolicy): readonly string[] | undefined {
  return policy.get('script-src') ?? policy.get('default-src');
}
