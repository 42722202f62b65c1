/**
 * The hallucination shield's citation check: URLs, domains, e-mail addresses and significant numbers cited in an
 * answer that appear nowhere in the request. A model that invents a source or a figure is flagged; one that repeats
 * what it was given is not. Plain JS regexes over bounded text (the answer is capped): these patterns are fixed and
 * linear, and run only for tenants with the shield enabled.
 */
const URL_RE = /\bhttps?:\/\/[^\s<>"'`)\]]+/gi;
const EMAIL_RE = /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/g;
const DOMAIN_RE = /\b(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:com|org|net|edu|gov|io|ai|dev|br|uk|de|fr|info|co)\b/gi;
// Figures worth checking: 3+ digits, decimals or percentages (not "step 2").
const NUMBER_RE = /(?<![\w.])\d[\d,]*(?:\.\d+)?%?(?![\w])/g;

function significant(n: string): boolean {
  const digits = n.replace(/[^\d]/g, '');
  return digits.length >= 3 || n.includes('.') || n.endsWith('%');
}

function normalise(s: string): string {
  return s.toLowerCase().replace(/[.,;:!?]+$/, '');
}

export function unsupportedClaims(answer: string, request: string, max = 5): string[] {
  if (answer.length === 0) return [];
  const source = request.toLowerCase();
  const sourceDigits = request.replace(/,/g, '');
  const out: string[] = [];
  const seen = new Set<string>();
  const consider = (claim: string, supported: boolean) => {
    if (supported || seen.has(claim)) return;
    seen.add(claim);
    out.push(claim);
  };
  const urls = answer.match(URL_RE) ?? [];
  for (const u of urls) consider(normalise(u), source.includes(normalise(u)));
  const withoutUrls = answer.replace(URL_RE, ' ');
  for (const e of withoutUrls.match(EMAIL_RE) ?? []) consider(e.toLowerCase(), source.includes(e.toLowerCase()));
  const withoutEmails = withoutUrls.replace(EMAIL_RE, ' ');
  for (const d of withoutEmails.match(DOMAIN_RE) ?? []) consider(d.toLowerCase(), source.includes(d.toLowerCase()));
  for (const n of answer.replace(URL_RE, ' ').match(NUMBER_RE) ?? []) {
    if (!significant(n)) continue;
    const bare = n.replace(/,/g, '').replace(/%$/, '');
    consider(n, sourceDigits.includes(bare));
  }
  return out.slice(0, max);
}
