import type { PiiEntity } from '@aduana/gateway/pii';

/** Sentences in English and Portuguese; `{v}` is where the value goes. */
export const TEMPLATES: Readonly<Record<PiiEntity, readonly string[]>> = {
  EMAIL: [
    'Please send the report to {v} before Friday.',
    'You can reach our DPO at <{v}>.',
    'Contact: {v}',
    'Envie o comprovante para {v}, por favor.',
    'O cliente informou o e-mail {v} no cadastro.',
    '{"name":"Ana","email":"{v}","plan":"pro"}',
    'Reply-To: "Suporte" <{v}>',
    'mailto:{v}?subject=Hello',
  ],
  PHONE: [
    'Call me on {v} after 6pm.',
    'Meu celular é {v}, pode chamar no WhatsApp.',
    'Telefone para contato: {v}.',
    'The customer phone number is {v}; it is also on the invoice.',
    'Ligue para {v} (horário comercial).',
    '{"phone":"{v}","verified":true}',
    'Tel.: {v}',
  ],
  CREDIT_CARD: [
    'My card number is {v}, expiring 12/27.',
    'Pague com o cartão {v} e parcele em 3x.',
    'card={v}',
    'The charge on card {v} was declined.',
    'Número do cartão: {v}.',
    '{"pan":"{v}","cvv":"***"}',
  ],
  IBAN: [
    'Please wire the deposit to IBAN {v}.',
    'Transferir para a conta {v} até sexta.',
    'Beneficiary account: {v}',
    'IBAN: {v} (Deutsche Bank).',
    'O IBAN do fornecedor é {v}.',
  ],
  BR_CPF: [
    'O CPF do titular é {v}.',
    'CPF: {v}',
    'Informe o CPF ({v}) no formulário.',
    'The Brazilian tax id (CPF) {v} belongs to the account holder.',
    '{"cpf":"{v}","nome":"Maria"}',
    'Cliente {v} solicitou reembolso.',
  ],
  BR_CNPJ: [
    'A nota foi emitida pelo CNPJ {v}.',
    'CNPJ: {v}',
    'Fornecedor (CNPJ {v}) enviou o boleto.',
    'The supplier company id {v} is registered in São Paulo.',
    '{"cnpj":"{v}","razao_social":"ACME LTDA"}',
  ],
  US_SSN: [
    'My SSN is {v}.',
    'SSN: {v}',
    'The applicant social security number {v} was verified.',
    'Número de seguro social americano: {v}.',
    '{"ssn":"{v}"}',
  ],
  IP_ADDRESS: [
    'The request came from {v} at midnight.',
    'Bloqueie o IP {v} no firewall.',
    'ssh admin@{v} -p 22',
    'Connect to {v} on port 8080 for the admin panel.',
    'Allow {v}/32 in the security group.',
    'O servidor {v} ficou fora do ar.',
    'Client IP [{v}] logged in.',
  ],
  API_KEY: [
    'Here is my key: {v}',
    'export OPENAI_API_KEY={v}',
    'Authorization: Bearer {v}',
    'Use a chave {v} no ambiente de teste.',
    '{"api_key":"{v}"}',
    'token = "{v}"',
  ],
};

/** Sentences for near misses; `{v}` is the look-alike value. */
export const NEAR_MISS_TEMPLATES: readonly string[] = [
  'Reference {v} was mentioned in the ticket.',
  'O código {v} aparece no relatório.',
  'See item {v} for details.',
  'Valor/identificador: {v}.',
  'value={v}',
  'We compared {v} with the previous build.',
  'Segundo o log, {v} foi registrado ontem.',
];

/** Prose with no personal data at all, in both languages, with numbers, code and dates that must stay. */
export const CLEAN_TEXTS: readonly string[] = [
  'The meeting moved to 2024-11-05 at 14:30; bring the Q3 numbers (revenue up 12.5% to R$ 1.234.567,89).',
  'Rode npm install e depois npm run build; a versão 2.14.3 corrige o bug #4521.',
  'Set max_tokens to 4096 and temperature to 0.7, then retry after 30 seconds.',
  'O pedido 2024-000123 foi despachado em 12/11 e deve chegar em 3 a 5 dias úteis.',
  'Use std::vector<int> and call v.reserve(1024) before the loop over 10:30:00 entries.',
  'The SHA-256 of the release is 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08.',
  'Commit 3f2c1e7 reverted the change to port 8080; version 1.2.3-beta.4 is next.',
  'A reunião com a equipe de São Paulo ficou para quinta às 9h; pauta: orçamento 2025 e metas.',
  'Fórmula: x = (a + b) * 3.14159 / 2, com erro de ±0,5% 🙂.',
  'Tracking code BR123456789BR was scanned at the Curitiba hub.',
  'Order #A-99812 totals $1,299.90 including 8.25% tax.',
  'Set the UUID 123e4567-e89b-12d3-a456-426614174000 in the config.',
  'Chrome 120.0.6099.109 and Windows 10.0.19045.3693 are affected.',
  'The grid is 1920x1080 at 60 Hz, latency p99 = 0.44 ms.',
];
