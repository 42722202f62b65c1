import type { PiiEntity } from '@aduana/gateway/pii';
import { cnpjWithDigits, cpfWithDigits, ibanWithDigits, luhnCheckDigit } from './check-digits.js';
import type { Prng } from './prng.js';

/** Value makers for one entity: several formats of valid values, and near misses by kind. */
export interface EntityValues {
  entity: PiiEntity;
  formats: ReadonlyArray<(r: Prng) => string>;
  nearMisses: ReadonlyArray<{ kind: string; make: (r: Prng) => string }>;
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER_NUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const B64URL = ALNUM + '-_';
const HEX = '0123456789abcdef';

function withDigitChanged(r: Prng, s: string, at: number): string {
  const d = Number(s[at]);
  const nd = (d + r.int(1, 9)) % 10;
  return s.slice(0, at) + String(nd) + s.slice(at + 1);
}

// ---------- EMAIL
const FIRST = ['ana', 'joao', 'maria', 'pedro', 'lucas', 'julia', 'john', 'emily', 'carlos', 'fernanda', 'li', 'ahmed'];
const LAST = ['silva', 'souza', 'oliveira', 'santos', 'smith', 'johnson', 'pereira', 'costa', 'nguyen', 'almeida'];
const DOMAINS = ['example.com', 'empresa.com.br', 'mail.co.uk', 'uol.com.br', 'outlook.com', 'gmail.com',
  'dept.university.edu', 'acme-corp.io', 'correio.gov.br', 'sub.mail.example.org'];

const email: EntityValues = {
  entity: 'EMAIL',
  formats: [
    (r) => `${r.pick(FIRST)}.${r.pick(LAST)}@${r.pick(DOMAINS)}`,
    (r) => `${r.pick(FIRST)}_${r.pick(LAST)}${r.int(1, 99)}@${r.pick(DOMAINS)}`,
    (r) => `${r.pick(FIRST)}+${r.pick(['news', 'work', 'ci'])}@${r.pick(DOMAINS)}`,
    (r) => `${r.pick(['joão', 'josé', 'inês', 'andré', 'conceição'])}.${r.pick(LAST)}@${r.pick(DOMAINS)}`,
    (r) => `${r.pick(FIRST)[0]}${r.pick(LAST)}@${r.pick(DOMAINS)}`.toUpperCase(),
    (r) => `${r.pick(['suporte', 'contato', 'billing', 'noreply', 'dpo'])}@${r.pick(DOMAINS)}`,
  ],
  nearMisses: [
    { kind: 'social handle', make: (r) => `@${r.pick(FIRST)}_${r.pick(LAST)}` },
    { kind: 'no tld', make: (r) => `${r.pick(FIRST)}@localhost` },
    { kind: 'bare host', make: (r) => `${r.pick(FIRST)}@${r.pick(['server', 'intranet', 'db01'])}` },
    { kind: 'retina asset', make: (r) => `${r.pick(['icon', 'logo', 'banner', 'avatar'])}@${r.int(2, 3)}x.png` },
    { kind: 'scoped package', make: (r) => `@${r.pick(['acme', 'types', 'babel'])}/${r.pick(['core', 'node'])}@${r.int(1, 9)}.${r.int(0, 20)}.${r.int(0, 9)}` },
    { kind: 'obfuscated', make: (r) => `${r.pick(FIRST)} at ${r.pick(['example', 'empresa'])} dot com` },
    { kind: 'double dot domain', make: (r) => `${r.pick(FIRST)}@${r.pick(['example', 'empresa'])}..com` },
    { kind: 'one-letter tld', make: (r) => `${r.pick(FIRST)}@${r.pick(['example', 'empresa'])}.c` },
    { kind: 'decorator', make: (r) => `@${r.pick(['Override', 'Injectable', 'media', 'import'])}` },
    { kind: 'versioned dependency', make: (r) => `${r.pick(['lodash', 'react', 'express'])}@${r.int(1, 18)}.${r.int(0, 9)}.${r.int(0, 9)}` },
  ],
};

// ---------- PHONE
const DDD = ['11', '21', '31', '41', '51', '61', '71', '81', '85', '19', '27', '48', '62', '92'];
const mobile = (r: Prng): [string, string] => [`9${r.digits(4)}`, r.digits(4)];
const landline = (r: Prng): [string, string] => [`${r.int(2, 5)}${r.digits(3)}`, r.digits(4)];

const phone: EntityValues = {
  entity: 'PHONE',
  formats: [
    (r) => { const [a, b] = mobile(r); return `+55 (${r.pick(DDD)}) ${a}-${b}`; },
    (r) => { const [a, b] = mobile(r); return `+55 ${r.pick(DDD)} ${a}-${b}`; },
    (r) => { const [a, b] = mobile(r); return `+55${r.pick(DDD)}${a}${b}`; },
    (r) => { const [a, b] = mobile(r); return `(${r.pick(DDD)}) ${a}-${b}`; },
    (r) => { const [a, b] = mobile(r); return `${r.pick(DDD)} ${a}-${b}`; },
    (r) => { const [a, b] = mobile(r); return `(${r.pick(DDD)}) ${a.slice(0, 1)} ${a.slice(1)}-${b}`; },
    (r) => { const [a, b] = landline(r); return `(${r.pick(DDD)}) ${a}-${b}`; },
    (r) => { const [a, b] = landline(r); return `${r.pick(DDD)} ${a}-${b}`; },
    (r) => `+1 ${r.int(201, 989)} ${r.int(200, 999)} ${r.digits(4)}`,
    (r) => `+1-${r.int(201, 989)}-${r.int(200, 999)}-${r.digits(4)}`,
    (r) => `+44 20 ${r.int(7000, 8999)} ${r.digits(4)}`,
    (r) => `+44 7${r.digits(3)} ${r.digits(6)}`,
    (r) => `+351 9${r.digits(2)} ${r.digits(3)} ${r.digits(3)}`,
    (r) => `+49 30 ${r.digits(7)}`,
  ],
  nearMisses: [
    { kind: 'date', make: (r) => `${r.int(2019, 2026)}-${String(r.int(1, 12)).padStart(2, '0')}-${String(r.int(1, 28)).padStart(2, '0')}` },
    { kind: 'timestamp', make: (r) => `${r.int(2019, 2026)}-0${r.int(1, 9)}-1${r.int(0, 9)}T${r.int(10, 23)}:${r.int(10, 59)}:${r.int(10, 59)}Z` },
    { kind: 'epoch millis', make: (r) => `17${r.digits(11)}` },
    { kind: 'CEP', make: (r) => `${r.digits(5)}-${r.digits(3)}` },
    { kind: 'invalid DDD', make: (r) => `(${r.pick(['10', '20', '23', '30', '50', '70', '80', '90'])}) 9${r.digits(4)}-${r.digits(4)}` },
    { kind: 'mobile without leading 9', make: (r) => `(${r.pick(DDD)}) ${r.int(6, 8)}${r.digits(4)}-${r.digits(4)}` },
    { kind: 'landline starting 0/1', make: (r) => `(${r.pick(DDD)}) ${r.int(0, 1)}${r.digits(3)}-${r.digits(4)}` },
    { kind: 'product code', make: (r) => `SKU-${r.pick(DDD)}-${r.int(2, 5)}${r.digits(3)}-${r.digits(4)}` },
    { kind: 'ISBN', make: (r) => `978-85-${r.digits(3)}-${r.digits(4)}-${r.int(0, 9)}` },
    { kind: 'short international', make: (r) => `+${r.int(1, 99)} ${r.digits(4)}` },
    { kind: 'price', make: (r) => `R$ ${r.int(1, 999)}.${r.digits(3)},${r.digits(2)}` },
    { kind: 'version', make: (r) => `v${r.int(1, 20)}.${r.int(0, 99)}.${r.int(0, 999)}` },
    { kind: 'order number', make: (r) => `#${r.digits(8)}` },
    { kind: 'too long US', make: (r) => `+1 ${r.int(201, 989)} ${r.int(200, 999)} ${r.digits(6)}` },
  ],
};

// ---------- CREDIT_CARD
function card(r: Prng, prefix: string, len: number): string {
  const body = prefix + r.digits(len - prefix.length - 1);
  return body + luhnCheckDigit(body);
}
const group4 = (d: string, sep: string): string => d.match(/.{1,4}/g)?.join(sep) ?? d;
const amexGroups = (d: string, sep: string): string => `${d.slice(0, 4)}${sep}${d.slice(4, 10)}${sep}${d.slice(10)}`;
const CARD_KINDS: ReadonlyArray<[string[], number]> = [
  [['4'], 16], [['51', '52', '53', '54', '55'], 16], [['2221', '2500', '2720'], 16], [['6011', '65'], 16],
  [['636368', '5067', '4389'], 16], [['606282'], 16], [['3528', '3589'], 16], [['62'], 16], [['4'], 19],
];

const creditCard: EntityValues = {
  entity: 'CREDIT_CARD',
  formats: [
    (r) => { const [p, n] = r.pick(CARD_KINDS); return group4(card(r, r.pick(p), n), ' '); },
    (r) => { const [p, n] = r.pick(CARD_KINDS); return group4(card(r, r.pick(p), n), '-'); },
    (r) => { const [p, n] = r.pick(CARD_KINDS); return card(r, r.pick(p), n); },
    (r) => amexGroups(card(r, r.pick(['34', '37']), 15), r.pick([' ', '-'])),
    (r) => card(r, r.pick(['34', '37']), 15),
    (r) => amexGroups(card(r, r.pick(['36', '38']), 14), ' '),
  ],
  nearMisses: [
    { kind: 'wrong Luhn', make: (r) => { const d = card(r, r.pick(['4', '51', '6011']), 16); return group4(withDigitChanged(r, d, 15), ' '); } },
    { kind: 'wrong Luhn bare', make: (r) => withDigitChanged(r, card(r, '4', 16), 15) },
    { kind: 'unknown issuer', make: (r) => group4(card(r, r.pick(['1', '7', '8', '9', '0']), 16), ' ') },
    { kind: 'too short', make: (r) => card(r, '4', 12) },
    { kind: 'mixed separators', make: (r) => { const d = card(r, '4', 16); return `${d.slice(0, 4)} ${d.slice(4, 8)}-${d.slice(8, 12)}.${d.slice(12)}`; } },
    { kind: 'epoch millis', make: (r) => `17${r.digits(11)}` },
    { kind: 'UUID', make: (r) => `${r.chars(8, HEX)}-${r.chars(4, HEX)}-4${r.chars(3, HEX)}-a${r.chars(3, HEX)}-${r.chars(12, HEX)}` },
    { kind: 'tracking code', make: (r) => `1Z${r.chars(6, UPPER_NUM)}${r.digits(10)}` },
    { kind: 'long account number', make: (r) => `${r.digits(4)} ${r.digits(4)} ${r.digits(4)} ${r.digits(4)} ${r.digits(4)} ${r.digits(4)}` },
    { kind: 'NF-e access key', make: (r) => `35${r.digits(42)}` },
    { kind: 'price list', make: (r) => `${r.int(10, 99)},${r.digits(2)} ${r.int(10, 99)},${r.digits(2)} ${r.int(10, 99)},${r.digits(2)}` },
  ],
};

// ---------- IBAN
const IBAN_FORMATS: ReadonlyArray<[string, (r: Prng) => string]> = [
  ['DE', (r) => r.digits(18)],
  ['GB', (r) => r.chars(4, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ') + r.digits(14)],
  ['FR', (r) => r.digits(10) + r.chars(11, UPPER_NUM) + r.digits(2)],
  ['ES', (r) => r.digits(20)],
  ['IT', (r) => r.chars(1, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ') + r.digits(10) + r.chars(12, UPPER_NUM)],
  ['NL', (r) => r.chars(4, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ') + r.digits(10)],
  ['PT', (r) => r.digits(21)],
  ['BR', (r) => r.digits(23) + r.chars(1, 'CP') + r.chars(1, UPPER_NUM)],
  ['BE', (r) => r.digits(12)],
  ['CH', (r) => r.digits(17)],
  ['NO', (r) => r.digits(11)],
];
const spaced = (s: string): string => s.match(/.{1,4}/g)?.join(' ') ?? s;

const iban: EntityValues = {
  entity: 'IBAN',
  formats: [
    (r) => { const [c, b] = r.pick(IBAN_FORMATS); return ibanWithDigits(c, b(r)); },
    (r) => { const [c, b] = r.pick(IBAN_FORMATS); return spaced(ibanWithDigits(c, b(r))); },
  ],
  nearMisses: [
    { kind: 'wrong check digits', make: (r) => { const [c, b] = r.pick(IBAN_FORMATS); const v = ibanWithDigits(c, b(r)); return spaced(withDigitChanged(r, v, 2)); } },
    { kind: 'altered BBAN', make: (r) => { const v = ibanWithDigits('DE', r.digits(18)); return withDigitChanged(r, v, 10); } },
    { kind: 'wrong length', make: (r) => { const [c, b] = r.pick(IBAN_FORMATS); return ibanWithDigits(c, b(r)).slice(0, -1); } },
    { kind: 'unknown country', make: (r) => spaced(ibanWithDigits(r.pick(['XX', 'ZZ', 'AB', 'QQ']), r.digits(18))) },
    { kind: 'VAT number', make: (r) => `DE${r.digits(9)}` },
    { kind: 'BIC', make: (r) => `${r.chars(4, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ')}DEFF${r.digits(3)}` },
    { kind: 'serial number', make: (r) => `SN${r.digits(2)}-${r.chars(12, UPPER_NUM)}` },
    { kind: 'container code', make: (r) => `${r.chars(4, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ')}${r.digits(7)}` },
  ],
};

// ---------- BR_CPF
const fmtCpf = (d: string): string => `${d.slice(0, 3)}.${d.slice(3, 6)}.${d.slice(6, 9)}-${d.slice(9)}`;
const cpf = (r: Prng): string => cpfWithDigits(r.digits(9));

const brCpf: EntityValues = {
  entity: 'BR_CPF',
  formats: [(r) => fmtCpf(cpf(r)), (r) => cpf(r), (r) => { const d = cpf(r); return `${d.slice(0, 9)}-${d.slice(9)}`; }],
  nearMisses: [
    { kind: 'wrong check digit', make: (r) => fmtCpf(withDigitChanged(r, cpf(r), 10)) },
    { kind: 'wrong check digit bare', make: (r) => withDigitChanged(r, cpf(r), 9) },
    { kind: 'all same digit', make: (r) => { const d = String(r.int(0, 9)); return fmtCpf(d.repeat(11)); } },
    { kind: 'RG', make: (r) => `${r.digits(2)}.${r.digits(3)}.${r.digits(3)}-${r.int(0, 9)}` },
    { kind: 'incomplete', make: (r) => `${r.digits(3)}.${r.digits(3)}.${r.digits(3)}` },
    { kind: 'one dot', make: (r) => { const d = cpf(r); return `${d.slice(0, 3)}.${d.slice(3, 9)}-${d.slice(9)}`; } },
    { kind: 'inscricao estadual', make: (r) => `${r.digits(3)}.${r.digits(3)}.${r.digits(3)}.${r.digits(3)}` },
    { kind: 'protocol number', make: (r) => `${r.int(2019, 2026)}${r.digits(10)}` },
  ],
};

// ---------- BR_CNPJ
const fmtCnpj = (c: string): string => `${c.slice(0, 2)}.${c.slice(2, 5)}.${c.slice(5, 8)}/${c.slice(8, 12)}-${c.slice(12)}`;
const cnpj = (r: Prng): string => cnpjWithDigits(r.digits(8) + r.pick(['0001', '0002', '0003', r.digits(4)]));
const cnpjAlnum = (r: Prng): string => cnpjWithDigits(r.digits(2) + r.chars(10, UPPER_NUM));

const brCnpj: EntityValues = {
  entity: 'BR_CNPJ',
  formats: [(r) => fmtCnpj(cnpj(r)), (r) => cnpj(r), (r) => fmtCnpj(cnpjAlnum(r)), (r) => cnpjAlnum(r)],
  nearMisses: [
    { kind: 'wrong check digit', make: (r) => fmtCnpj(withDigitChanged(r, cnpj(r), 13)) },
    { kind: 'wrong check digit bare', make: (r) => withDigitChanged(r, cnpj(r), 12) },
    { kind: 'alphanumeric wrong check digit', make: (r) => fmtCnpj(withDigitChanged(r, cnpjAlnum(r), 13)) },
    { kind: 'all same digit', make: (r) => fmtCnpj(String(r.int(0, 9)).repeat(14)) },
    { kind: 'no check digits', make: (r) => `${r.digits(2)}.${r.digits(3)}.${r.digits(3)}/0001` },
    { kind: 'product code', make: (r) => `${r.chars(14, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ')}` },
    { kind: 'NF-e number', make: (r) => `NF ${r.digits(3)}.${r.digits(3)}.${r.digits(3)}` },
    { kind: 'date range', make: (r) => `${r.int(10, 28)}.${r.int(10, 12)}.${r.int(2020, 2026)}/${r.int(2020, 2026)}-${r.int(10, 12)}` },
  ],
};

// ---------- US_SSN
function ssnParts(r: Prng): [string, string, string] {
  let area = r.int(1, 899);
  if (area === 666) area = 667;
  return [String(area).padStart(3, '0'), String(r.int(1, 99)).padStart(2, '0'), String(r.int(1, 9999)).padStart(4, '0')];
}
const usSsn: EntityValues = {
  entity: 'US_SSN',
  formats: [(r) => ssnParts(r).join('-'), (r) => ssnParts(r).join(' ')],
  nearMisses: [
    { kind: 'area 000', make: (r) => `000-${ssnParts(r)[1]}-${ssnParts(r)[2]}` },
    { kind: 'area 666', make: (r) => `666-${ssnParts(r)[1]}-${ssnParts(r)[2]}` },
    { kind: 'area 9xx', make: (r) => `9${r.digits(2)}-${ssnParts(r)[1]}-${ssnParts(r)[2]}` },
    { kind: 'group 00', make: (r) => `${ssnParts(r)[0]}-00-${ssnParts(r)[2]}` },
    { kind: 'serial 0000', make: (r) => `${ssnParts(r)[0]}-${ssnParts(r)[1]}-0000` },
    { kind: 'advertised', make: (r) => r.pick(['078-05-1120', '219-09-9999', '123-45-6789']) },
    { kind: 'mixed separators', make: (r) => { const [a, b, c] = ssnParts(r); return `${a}-${b} ${c}`; } },
    { kind: 'US phone', make: (r) => `${r.int(201, 989)}-${r.int(200, 999)}-${r.digits(4)}` },
    { kind: 'ZIP+4', make: (r) => `${r.digits(5)}-${r.digits(4)}` },
    { kind: 'date', make: (r) => `${r.int(2000, 2026)}-${String(r.int(1, 12)).padStart(2, '0')}-${String(r.int(1, 28)).padStart(2, '0')}` },
    { kind: 'longer serial', make: (r) => { const [a, b] = ssnParts(r); return `${a}-${b}-${r.digits(5)}`; } },
  ],
};

// ---------- IP_ADDRESS
const octet = (r: Prng): number => r.int(0, 255);
const ipv4 = (r: Prng): string => `${r.int(1, 223)}.${octet(r)}.${octet(r)}.${r.int(1, 254)}`;
const hextet = (r: Prng): string => r.chars(r.int(1, 4), HEX).replace(/^0+(?=.)/, '');

const ip: EntityValues = {
  entity: 'IP_ADDRESS',
  formats: [
    (r) => ipv4(r),
    (r) => `10.${octet(r)}.${octet(r)}.${r.int(1, 254)}`,
    (r) => `192.168.${octet(r)}.${r.int(1, 254)}`,
    (r) => Array.from({ length: 8 }, () => hextet(r)).join(':'),
    (r) => `2001:db8:${hextet(r)}::${hextet(r)}`,
    (r) => `fe80::${hextet(r)}:${hextet(r)}`,
    (r) => `::ffff:${ipv4(r)}`,
  ],
  nearMisses: [
    { kind: 'octet out of range', make: (r) => `${r.int(256, 999)}.${octet(r)}.${octet(r)}.${octet(r)}` },
    { kind: 'last octet out of range', make: (r) => `${r.int(1, 223)}.${octet(r)}.${octet(r)}.${r.int(256, 999)}` },
    { kind: 'three parts', make: (r) => `${r.int(1, 223)}.${octet(r)}.${octet(r)}` },
    { kind: 'five parts', make: (r) => `${r.int(1, 9)}.${r.int(0, 9)}.${r.int(0, 9)}.${r.int(0, 9)}.${r.int(0, 9)}` },
    { kind: 'version string', make: (r) => `v${r.int(1, 9)}.${r.int(0, 9)}.${r.int(0, 9)}.${r.int(0, 9)}` },
    { kind: 'browser build', make: (r) => `${r.int(100, 130)}.0.${r.int(1000, 6999)}.${r.int(10, 199)}` },
    { kind: 'leading zeros', make: (r) => `0${r.int(1, 9)}.0${r.int(1, 9)}.0${r.int(1, 9)}.0${r.int(1, 9)}` },
    { kind: 'time', make: (r) => `${r.int(10, 23)}:${r.int(10, 59)}:${r.int(10, 59)}` },
    { kind: 'MAC address', make: (r) => Array.from({ length: 6 }, () => r.chars(2, '0123456789ABCDEF')).join(':') },
    { kind: 'C++ scope', make: (r) => `${r.pick(['std', 'boost', 'ns'])}::${r.pick(['vector', 'map', 'abc', 'face'])}` },
    { kind: 'OID', make: (r) => `1.3.6.1.4.1.${r.int(1000, 60000)}` },
    { kind: 'price', make: (r) => `${r.int(1, 9)}.${r.digits(3)}.${r.digits(3)},${r.digits(2)}` },
    { kind: 'date dotted', make: (r) => `${r.int(10, 28)}.${r.int(10, 12)}.${r.int(2019, 2026)}` },
  ],
};

// ---------- API_KEY
function jwt(r: Prng): string {
  const b64 = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString('base64url');
  const header = b64({ alg: r.pick(['HS256', 'RS256', 'ES256']), typ: 'JWT' });
  const payload = b64({ sub: r.digits(8), name: r.pick(FIRST), iat: 1700000000 + r.int(0, 9999999) });
  return `${header}.${payload}.${r.chars(43, B64URL)}`;
}

function pem(r: Prng): string {
  const kind = r.pick(['RSA ', 'EC ', 'OPENSSH ', '']);
  const lines = Array.from({ length: r.int(3, 8) }, () => r.chars(64, ALNUM + '+/'));
  return `-----BEGIN ${kind}PRIVATE KEY-----\n${lines.join('\n')}\n${r.chars(20, ALNUM)}==\n-----END ${kind}PRIVATE KEY-----`;
}

const apiKey: EntityValues = {
  entity: 'API_KEY',
  formats: [
    (r) => `sk-${r.chars(48, ALNUM)}`,
    (r) => `sk-proj-${r.chars(r.int(100, 150), ALNUM + '-_')}`,
    (r) => `AKIA${r.chars(16, UPPER_NUM)}`,
    (r) => `${r.pick(['ghp', 'gho', 'ghs'])}_${r.chars(36, ALNUM)}`,
    (r) => `github_pat_${r.chars(22, ALNUM)}_${r.chars(59, ALNUM)}`,
    (r) => `xox${r.pick(['b', 'p', 'a'])}-${r.digits(12)}-${r.digits(13)}-${r.chars(24, ALNUM)}`,
    (r) => `${r.pick(['sk', 'rk'])}_live_${r.chars(r.int(24, 99), ALNUM)}`,
    (r) => `AIza${r.chars(35, ALNUM + '-_')}`,
    // aduana tokens (shared/src/tokens): prefix, 30 base62 characters and a 6-character checksum.
    (r) => `adu_${r.pick(['pat', 'sk', 'ses'])}_${r.chars(36, ALNUM)}`,
    (r) => jwt(r),
    (r) => pem(r),
  ],
  nearMisses: [
    { kind: 'short sk', make: (r) => `sk-${r.chars(8, ALNUM)}` },
    { kind: 'slug', make: (r) => `sk-${r.pick(['learn', 'image', 'data'])}-${r.pick(['pipeline', 'config', 'helper'])}-${r.pick(['utils', 'module', 'loader'])}` },
    { kind: 'placeholder', make: (r) => r.pick(['sk-...', 'sk-your-api-key-here', 'sk-XXXXXXXXXXXXXXXXXXXXXXXX', 'AKIA...', 'ghp_xxxxxxxx']) },
    { kind: 'short AKIA', make: (r) => `AKIA${r.chars(12, UPPER_NUM)}` },
    { kind: 'short ghp', make: (r) => `ghp_${r.chars(20, ALNUM)}` },
    { kind: 'sha256', make: (r) => r.chars(64, HEX) },
    { kind: 'git sha', make: (r) => r.chars(40, HEX) },
    { kind: 'UUID', make: (r) => `${r.chars(8, HEX)}-${r.chars(4, HEX)}-4${r.chars(3, HEX)}-8${r.chars(3, HEX)}-${r.chars(12, HEX)}` },
    { kind: 'not a JWT', make: (r) => `eyJub3QganNvbiBhdCBhbGw.eyJ${r.chars(20, B64URL)}.${r.chars(20, B64URL)}` },
    { kind: 'public key', make: (r) => `-----BEGIN PUBLIC KEY-----\n${r.chars(64, ALNUM)}\n-----END PUBLIC KEY-----` },
    { kind: 'certificate', make: (r) => `-----BEGIN CERTIFICATE-----\n${r.chars(64, ALNUM)}\n-----END CERTIFICATE-----` },
    { kind: 'short aduana', make: (r) => `adu_pat_${r.chars(12, ALNUM)}` },
    { kind: 'base64 blob', make: (r) => r.chars(40, ALNUM + '+/') },
    { kind: 'test stripe-like id', make: (r) => `cus_${r.chars(14, ALNUM)}` },
  ],
};

export const ENTITY_VALUES: readonly EntityValues[] = [email, phone, creditCard, iban, brCpf, brCnpj, usSsn, ip, apiKey];
