/**
 * Hand-written cases, in a marked-up form: `⟦ENTITY|value⟧` marks an entity, everything else must stay. Real test
 * values published by issuers (Stripe/Visa test cards, the Receita's CNPJ example, ECBS IBAN examples) and the
 * traps we know of (JSON escapes, accents, emoji, look-alikes right next to real values).
 */
export const HAND_WRITTEN: readonly string[] = [
  // EMAIL
  'Write to ⟦EMAIL|ana.souza@example.com.br⟧, or to ⟦EMAIL|suporte@aduana.dev⟧ if urgent.',
  'E-mail do João: ⟦EMAIL|joão.conceição@correio.pt⟧ 🙂',
  'Contato (⟦EMAIL|maria+faturas@empresa.com.br⟧).',
  '"to":"⟦EMAIL|dev-team@mail.example.org⟧","cc":"⟦EMAIL|x_y@sub.example.co.uk⟧"',
  'icon@2x.png and logo@3x.svg are retina assets; npm i @types/node@22.1.0',
  'user@localhost is not routable; nor is admin@intranet.',
  // PHONE
  'Fale com a gente: ⟦PHONE|+55 (11) 91234-5678⟧ ou ⟦PHONE|(21) 3456-7890⟧.',
  'WhatsApp ⟦PHONE|11 98765-4321⟧, fixo ⟦PHONE|(11) 3456-7890⟧, EUA ⟦PHONE|+1 415 555 2671⟧.',
  'Call ⟦PHONE|+44 20 7946 0958⟧ or ⟦PHONE|+5511987654321⟧ 📞',
  'O CEP é 01310-100 e o pedido 2024-11-05 saiu às 14:30:00.',
  'Ramal 4521, sala 12, andar 3.',
  // CREDIT_CARD
  'Visa ⟦CREDIT_CARD|4111 1111 1111 1111⟧, Master ⟦CREDIT_CARD|5555-5555-5555-4444⟧, Amex ⟦CREDIT_CARD|3782 822463 10005⟧.',
  'Discover ⟦CREDIT_CARD|6011111111111117⟧ and JCB ⟦CREDIT_CARD|3530 1113 3330 0000⟧ 12 months.',
  'Cartão ⟦CREDIT_CARD|4111 1111 1111 1111⟧ (4111 1111 1111 1112 é inválido).',
  '{"content":"Card:\\n⟦CREDIT_CARD|4242424242424242⟧\\nexp 12/30"}',
  'Timestamp 1700000000000 and order 1234567890123456 are not cards.',
  // IBAN
  'IBAN ⟦IBAN|DE89 3704 0044 0532 0130 00⟧ and ⟦IBAN|GB82WEST12345698765432⟧.',
  'Conta ⟦IBAN|PT50 0002 0123 1234 5678 9015 4⟧ ou ⟦IBAN|FR14 2004 1010 0505 0001 3M02 606⟧.',
  'DE89 3704 0044 0532 0130 01 has a bad checksum.',
  // BR_CPF
  'CPF ⟦BR_CPF|529.982.247-25⟧ e também ⟦BR_CPF|52998224725⟧.',
  'CPF 529.982.247-24 tem dígito errado; 111.111.111-11 é inválido.',
  // BR_CNPJ
  'CNPJ ⟦BR_CNPJ|11.222.333/0001-81⟧ ou ⟦BR_CNPJ|11222333000181⟧.',
  'Novo CNPJ alfanumérico: ⟦BR_CNPJ|12.ABC.345/01DE-35⟧.',
  'CNPJ 11.222.333/0001-82 está errado e 00.000.000/0000-00 é vazio.',
  // US_SSN
  'SSN ⟦US_SSN|536-22-1234⟧; the sample 078-05-1120 and 666-12-3456 are invalid.',
  // IP_ADDRESS
  'Hosts ⟦IP_ADDRESS|10.0.0.1⟧, ⟦IP_ADDRESS|192.168.1.254⟧:443 and ⟦IP_ADDRESS|2001:db8::8a2e:370:7334⟧.',
  'Loopback ⟦IP_ADDRESS|::1⟧ and mapped ⟦IP_ADDRESS|::ffff:192.0.2.128⟧.',
  'Not IPs: 999.1.1.1, 1.2.3, v1.2.3.4, 1.2.3.4.5, 12:30:45, 00:1A:2B:3C:4D:5E, std::string.',
  // API_KEY
  'OPENAI_API_KEY=⟦API_KEY|sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0fGh3iJk6lMn9oPq2rSt5uVw8xYz1⟧',
  'aws ⟦API_KEY|AKIAIOSFODNN7EXAMPLE⟧ gh ⟦API_KEY|ghp_16C7e42F292c6912E7710c838347Ae178B4a⟧',
  'Bearer ⟦API_KEY|eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c⟧',
  'slack ⟦API_KEY|xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx⟧ stripe ⟦API_KEY|sk_live_4eC39HqLyjWDarjtT1zdp7dc⟧',
  'google ⟦API_KEY|AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY⟧',
  'The placeholder sk-your-api-key-here and sk-learn are fine.',
  'sha 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 uuid 123e4567-e89b-12d3-a456-426614174000',
  // Encoded spellings (issue 31): full-width, percent-encoded, HTML references; the span is the text as written
  'E-mail ⟦EMAIL|ａｌｉｃｅ＠ｅｘａｍｐｌｅ．ｃｏｍ⟧, ⟦EMAIL|alice%40example.com⟧ ou ⟦EMAIL|alice&#64;example.com⟧ (ou ⟦EMAIL|bob&commat;example.com⟧).',
  'mailto:⟦EMAIL|carol%40example.org⟧?subject=Oi%20tudo%20bem&amp;body=CPF%20⟦BR_CPF|529%2E982%2E247%2D25⟧',
  '<p>Card ⟦CREDIT_CARD|4111&nbsp;1111&nbsp;1111&nbsp;1111⟧, tel ⟦PHONE|&#43;55 11 91234&#45;5678⟧</p>',
  'icon&#64;2x.png, logo%403x.svg and ｌｏｄａｓｈ＠４．１７．２１ are not addresses.',
  // Mixed, adjacent, unicode
  'Cliente ⟦EMAIL|ana@example.com⟧/⟦PHONE|(11) 91234-5678⟧/CPF ⟦BR_CPF|529.982.247-25⟧ — ok ✅',
  '日本語のテキスト ⟦EMAIL|tanaka@example.jp⟧ と ⟦IP_ADDRESS|203.0.113.7⟧ です。',
];

export interface MarkedSpan {
  entity: string;
  start: number;
  end: number;
}

/** Turns `⟦ENTITY|value⟧` markup into the plain text and its spans (UTF-16 offsets). */
export function parseMarked(s: string): { text: string; spans: MarkedSpan[] } {
  let text = '';
  const spans: MarkedSpan[] = [];
  let i = 0;
  for (;;) {
    const open = s.indexOf('⟦', i);
    if (open < 0) break;
    const bar = s.indexOf('|', open);
    const close = s.indexOf('⟧', bar);
    text += s.slice(i, open);
    const value = s.slice(bar + 1, close);
    spans.push({ entity: s.slice(open + 1, bar), start: text.length, end: text.length + value.length });
    text += value;
    i = close + 1;
  }
  return { text: text + s.slice(i), spans };
}
