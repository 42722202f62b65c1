import type { PiiEntity } from '../entities.js';
import type { Recognizer } from '../recognizer.js';
import { apiKeyRecognizers } from './api-key.js';
import { brCnpj } from './br-cnpj.js';
import { brCpf } from './br-cpf.js';
import { creditCard } from './credit-card.js';
import { email } from './email.js';
import { iban } from './iban.js';
import { ipv4, ipv6 } from './ip-address.js';
import { phoneBr, phoneE164 } from './phone.js';
import { usSsn } from './us-ssn.js';

/**
 * Every recognizer, in priority order: when two validated candidates start at the same place and have the same
 * length, the earlier one names the entity. Secrets first (a key that happens to contain digits is still a key),
 * then the checksum-validated numbers (strongest check first), then the shape-only ones.
 */
export const RECOGNIZERS: readonly Recognizer[] = [
  ...apiKeyRecognizers,
  email,
  iban,
  // Two mod-11 check digits are stronger evidence than Luhn's one: a bare 14-digit run valid as both is a CNPJ.
  brCnpj,
  brCpf,
  creditCard,
  usSsn,
  phoneE164,
  phoneBr,
  ipv4,
  ipv6,
];

export function recognizersFor(entities: readonly PiiEntity[]): Recognizer[] {
  const want = new Set(entities);
  return RECOGNIZERS.filter((r) => want.has(r.entity));
}
