/** The personal-data and secret kinds the redactor knows (docs/decisions.md, "PII entities"). */
export type PiiEntity =
  | 'EMAIL'
  | 'PHONE'
  | 'CREDIT_CARD'
  | 'IBAN'
  | 'BR_CPF'
  | 'BR_CNPJ'
  | 'US_SSN'
  | 'IP_ADDRESS'
  | 'API_KEY';

export const ALL_PII_ENTITIES: readonly PiiEntity[] = Object.freeze([
  'EMAIL',
  'PHONE',
  'CREDIT_CARD',
  'IBAN',
  'BR_CPF',
  'BR_CNPJ',
  'US_SSN',
  'IP_ADDRESS',
  'API_KEY',
] as const);

/** A found entity: UTF-16 offsets into the scanned string, end exclusive. */
export interface PiiMatch {
  entity: PiiEntity;
  start: number;
  end: number;
}
