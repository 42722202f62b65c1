import { ALL_PROFILES, fail, pass, quote, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';
import { scriptSources, type CspPolicy } from '../../parse/csp.js';

/** Sources that let any script in (Observatory: "csp-implemented-with-unsafe-inline" / insecure schemes). */
const WILDCARDS = new Set(['*', 'http:', 'https:', 'data:', 'blob:']);

function problemsOf(policy: CspPolicy): { text: string; score: number }[] {
  const sources = scriptSources(policy);
  if (!sources) return [{ text: 'no script-src or default-src: scripts are not restricted', score: 0.3 }];
  const problems: { text: string; score: number }[] = [];
  // With a nonce, a hash or 'strict-dynamic', CSP2+ browsers ignore 'unsafe-inline' (kept only for old browsers).
  const neutralised = sources.some((s) => s.startsWith("'nonce-") || s.startsWith("'sha") || s === "'strict-dynamic'");
  if (sources.includes("'unsafe-inline'") && !neutralised) problems.push({ text: "'unsafe-inline' in script sources", score: 0.4 });
  if (sources.includes("'unsafe-eval'")) problems.push({ text: "'unsafe-eval' in script sources", score: 0.7 });
  const wild = sources.filter((s) => WILDCARDS.has(s.toLowerCase()));
  if (wild.length > 0 && !sources.includes("'strict-dynamic'")) problems.push({ text: `wildcard script sources ${wild.join(' ')}`, score: 0.4 });
  return problems;
}

export const csp: Check<'page'> = {
  id: 'security.csp',
  pillar: 'securityGovernance',
  dimension: 'security',
  profiles: ALL_PROFILES,
  weight: WEIGHT.major,
  needs: ['page'],
  version: 1,
  audience: ['development', 'security'],
  references: [REF.csp, REF.owaspCsp, REF.strictCsp, REF.observatory],
  run({ page, derived }) {
    const policies = derived.csp(page);
    const header = page.headers['content-security-policy'] ?? '';
    const common = {
      effort: 'Médio' as const,
      impact: 'A Content Security Policy is the main defence in depth against cross-site scripting: it decides which scripts may run.',
      businessImpact: 'An injected script can steal sessions, payment data or deface pages under the brand’s name.',
      recommendation: "Send a Content-Security-Policy that restricts scripts with nonces or hashes and 'strict-dynamic' (no 'unsafe-inline', no 'unsafe-eval', no wildcards), plus object-src 'none' and base-uri 'none'.",
    };
    if (policies.length === 0) {
      const reportOnly = page.headers['content-security-policy-report-only'];
      return fail({
        ...common,
        severity: 'Medium',
        title: 'Content-Security-Policy missing',
        evidence: reportOnly
          ? `Only Content-Security-Policy-Report-Only is sent (${quote(reportOnly)}), which enforces nothing.`
          : 'No Content-Security-Policy header and no <meta http-equiv="Content-Security-Policy">.',
      });
    }
    // Every policy is enforced; scripts are as restricted as the strictest one, so a policy with no problem passes.
    const perPolicy = policies.map(problemsOf);
    if (perPolicy.some((p) => p.length === 0)) return pass(`Content-Security-Policy: ${quote(header || 'via <meta>')} restricts scripts.`);
    const problems = perPolicy.flat();
    return fail({
      ...common,
      severity: problems.some((p) => p.score <= 0.4) ? 'Medium' : 'Low',
      score: Math.min(...problems.map((p) => p.score)),
      title: 'Content-Security-Policy does not effectively restrict scripts',
      evidence: `Content-Security-Policy: ${quote(header || 'via <meta>')}: ${[...new Set(problems.map((p) => p.text))].join('; ')}.`,
    });
  },
};
