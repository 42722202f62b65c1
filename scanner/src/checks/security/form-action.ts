import type { Element } from 'domhandler';
import type { FormActionProbe } from '../../snapshot/snapshot.js';
import { ALL_PROFILES, fail, notApplicable, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';

/** Fields that make a form's data sensitive: card numbers, passwords, personal data (docs/scanner.md, "Forms that leave HTTPS"). */
const SENSITIVE_TYPES = new Set(['password', 'email', 'tel']);
const SENSITIVE_AUTOCOMPLETE = /\b(cc-|current-password|new-password|email|tel|name|given-name|family-name|street-address|address-line|postal-code|bday)/;
const SENSITIVE_NAME = /(card|cc-?num|cvv|cvc|senha|password|passwd|cpf|cnpj|email|e-mail|phone|telefone|celular|nome|name|endereco|address|cep|zip)/;

function within(el: Element, form: Element): boolean {
  const owner = el.attribs.form;
  if (owner !== undefined && owner !== '') return form.attribs.id === owner;
  for (let p = el.parent; p; p = p.parent) if (p === form) return true;
  return false;
}

function isSensitive(field: Element): boolean {
  const type = (field.attribs.type ?? '').toLowerCase();
  if (SENSITIVE_TYPES.has(type)) return true;
  if (type === 'hidden' || type === 'submit' || type === 'button') return false;
  if (SENSITIVE_AUTOCOMPLETE.test((field.attribs.autocomplete ?? '').toLowerCase())) return true;
  return SENSITIVE_NAME.test(`${field.attribs.name ?? ''} ${field.attribs.id ?? ''}`.toLowerCase());
}

/** Where the action sends the data: http:// itself, or an https:// action whose first hop redirects to http://. */
function insecureTarget(action: URL, probes: readonly FormActionProbe[]): string | undefined {
  if (action.protocol === 'http:') return action.href;
  if (action.protocol !== 'https:') return undefined;
  const probe = probes.find((p) => p.url === action.href);
  if (probe?.location?.startsWith('http://') === true) return `${action.href} → ${probe.location}`;
  return undefined;
}

export const formAction: Check<'page' | 'formActions'> = {
  id: 'security.form-action',
  pillar: 'securityGovernance',
  dimension: 'security',
  profiles: ALL_PROFILES,
  weight: WEIGHT.major,
  needs: ['page', 'formActions'],
  version: 1,
  audience: ['development', 'security'],
  references: [REF.chromeMixedForms, REF.mixedContent, REF.owaspTls],
  run({ page, formActions, derived }) {
    if (!page.finalUrl.startsWith('https://')) return notApplicable('Page is not served over HTTPS.');
    const forms = derived.tag(page, 'form');
    if (forms.length === 0) return pass('The page has no forms.');
    const fields = [...derived.tag(page, 'input'), ...derived.tag(page, 'select'), ...derived.tag(page, 'textarea')];
    const leaks: { target: string; sensitive: boolean }[] = [];
    for (const form of forms) {
      let action: URL;
      try {
        action = new URL((form.attribs.action ?? '').trim() || page.finalUrl, page.finalUrl);
      } catch {
        continue;
      }
      const target = insecureTarget(action, formActions);
      if (target === undefined) continue;
      leaks.push({ target, sensitive: fields.some((f) => within(f, form) && isSensitive(f)) });
    }
    if (leaks.length === 0) return pass(`${String(forms.length)} form(s), every action stays on HTTPS.`);
    const sensitive = leaks.some((l) => l.sensitive);
    const named = leaks.slice(0, 5).map((l) => `${l.target}${l.sensitive ? ' (card, password or personal data fields)' : ''}`);
    return fail({
      severity: sensitive ? 'High' : 'Medium',
      effort: 'Baixo',
      score: 0,
      title: sensitive ? 'A form with card, password or personal data fields sends them over HTTP' : 'A form on the HTTPS page sends its data over HTTP',
      evidence: `Form action leaving HTTPS: ${named.join(', ')}${leaks.length > 5 ? ` and ${String(leaks.length - 5)} more` : ''}.`,
      impact: 'What the visitor types is sent unencrypted, readable and alterable on the way; Chrome warns before submitting such forms.',
      businessImpact: 'Visitors see a security warning at the moment of purchase or sign-up, and their data can be stolen.',
      recommendation: 'Point every form action at an https:// URL, make sure it does not redirect to http://, and add "upgrade-insecure-requests" to the CSP.',
    });
  },
};
