import { describe, expect, it } from 'vitest';
import type { PiiEntity } from '../entities.js';
import { createPiiRedactor } from '../redactor.js';
import { RECOGNIZERS } from './index.js';

/** What a single-entity redactor finds in `text`, as the matched substrings. */
function found(entity: PiiEntity, text: string): string[] {
  return createPiiRedactor([entity])
    .scan(text)
    .map((m) => text.slice(m.start, m.end));
}

const CASES: Record<PiiEntity, { valid: [string, string][]; invalid: string[] }> = {
  EMAIL: {
    valid: [
      ['mail ana@example.com now', 'ana@example.com'],
      ['end of sentence: joão.silva@empresa.com.br.', 'joão.silva@empresa.com.br'],
      ['see logo@example.pt. Ok', 'logo@example.pt'],
      ['<first.last+tag@sub.domain.co.uk>', 'first.last+tag@sub.domain.co.uk'],
      ['"email":"X_Y-Z@ACME-CORP.IO"', 'X_Y-Z@ACME-CORP.IO'],
      ['..leading.dots@example.org', 'leading.dots@example.org'],
    ],
    invalid: ['@handle', 'user@localhost', 'a@b.c', 'icon@2x.png', 'see icon@2x.png.', 'lodash@4.17.21', 'x@example..com', 'a@b.com1', 'name at example dot com'],
  },
  PHONE: {
    valid: [
      ['tel +55 (11) 91234-5678.', '+55 (11) 91234-5678'],
      ['(11) 91234-5678', '(11) 91234-5678'],
      ['ligue 11 91234-5678 hoje', '11 91234-5678'],
      ['fixo (21) 3456-7890', '(21) 3456-7890'],
      ['(11) 9 8765-4321', '(11) 9 8765-4321'],
      ['+5511912345678', '+5511912345678'],
      ['+1 415 555 2671 2 items', '+1 415 555 2671'],
      ['+44 20 7946 0958', '+44 20 7946 0958'],
      ['(011) 3456-7890', '(011) 3456-7890'],
    ],
    invalid: ['(10) 91234-5678', '(11) 81234-5678', '(11) 1234-5678', '11912345678', '01310-100', '2024-11-05', 'SKU-21-3456-7890', '+12 3456', '+1 415 555', '14:30:00', '978-85-359-0277-5'],
  },
  CREDIT_CARD: {
    valid: [
      ['visa 4111 1111 1111 1111 ok', '4111 1111 1111 1111'],
      ['mc 5555-5555-5555-4444', '5555-5555-5555-4444'],
      ['amex 3782 822463 10005', '3782 822463 10005'],
      ['bare 4242424242424242.', '4242424242424242'],
      ['4111 1111 1111 1111 12 months', '4111 1111 1111 1111'],
      ['"pan":"6011111111111117"', '6011111111111117'],
      ['{"c":"\\n4242424242424242\\n"}', '4242424242424242'],
    ],
    invalid: ['4111 1111 1111 1112', '1234 5678 9012 3456', '1700000000000', '4111 1111-1111 1111', '411111111111', '6191 0138 3991 5695 7640 7588', '44111111111111111111111'],
  },
  IBAN: {
    valid: [
      ['iban DE89 3704 0044 0532 0130 00.', 'DE89 3704 0044 0532 0130 00'],
      ['GB82WEST12345698765432', 'GB82WEST12345698765432'],
      ['FR14 2004 1010 0505 0001 3M02 606 (FR)', 'FR14 2004 1010 0505 0001 3M02 606'],
      ['DE89370400440532013000 BANK', 'DE89370400440532013000'],
    ],
    invalid: ['DE89 3704 0044 0532 0130 01', 'DE8937040044053201300', 'XX89 3704 0044 0532 0130 00', 'DE123456789', 'DE89 37040 044 0532 0130 00'],
  },
  BR_CPF: {
    valid: [
      ['CPF 529.982.247-25.', '529.982.247-25'],
      ['cpf=52998224725', '52998224725'],
      ['529982247-25', '529982247-25'],
    ],
    invalid: ['529.982.247-24', '111.111.111-11', '00000000000', '529.982247-25', '1529.982.247-25', '529.982.247-251'],
  },
  BR_CNPJ: {
    valid: [
      ['CNPJ 11.222.333/0001-81', '11.222.333/0001-81'],
      ['11222333000181', '11222333000181'],
      ['novo 12.ABC.345/01DE-35', '12.ABC.345/01DE-35'],
    ],
    invalid: ['11.222.333/0001-82', '00.000.000/0000-00', '11.222.333/0001', 'ABCDEFGHIJKLMN', '11.222.333/0001-811'],
  },
  US_SSN: {
    valid: [
      ['SSN 536-22-1234.', '536-22-1234'],
      ['ssn 536 22 1234', '536 22 1234'],
    ],
    invalid: ['000-12-3456', '666-12-3456', '912-12-3456', '536-00-1234', '536-22-0000', '078-05-1120', '536-22 1234', '536-22-12345', '2023-11-05'],
  },
  IP_ADDRESS: {
    valid: [
      ['from 192.168.0.1:8080', '192.168.0.1'],
      ['allow 10.0.0.0/8', '10.0.0.0'],
      ['v6 2001:db8::8a2e:370:7334.', '2001:db8::8a2e:370:7334'],
      ['loopback ::1 here', '::1'],
      ['mapped ::ffff:192.0.2.128', '::ffff:192.0.2.128'],
      ['255.255.255.255', '255.255.255.255'],
    ],
    invalid: ['999.1.1.1', '256.0.0.1', '1.2.3', '1.2.3.4.5', 'v1.2.3.4', '01.02.03.04', '12:30:45', '00:1A:2B:3C:4D:5E', 'std::vector', '120.0.6099.109'],
  },
  API_KEY: {
    valid: [
      ['key sk-abcDEF1234567890abcdefGHIJklmnop here', 'sk-abcDEF1234567890abcdefGHIJklmnop'],
      ['AKIAIOSFODNN7EXAMPLE', 'AKIAIOSFODNN7EXAMPLE'],
      ['ghp_16C7e42F292c6912E7710c838347Ae178B4a', 'ghp_16C7e42F292c6912E7710c838347Ae178B4a'],
      ['xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx', 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx'],
      ['sk_live_4eC39HqLyjWDarjtT1zdp7dc', 'sk_live_4eC39HqLyjWDarjtT1zdp7dc'],
      ['AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY', 'AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY'],
      ['adu_pat_0123456789abcdefghijABCDEFGHIJ123456', 'adu_pat_0123456789abcdefghijABCDEFGHIJ123456'],
      [
        'Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
        'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
      ],
      [
        '-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nabcd==\n-----END RSA PRIVATE KEY-----\nThanks',
        '-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nabcd==\n-----END RSA PRIVATE KEY-----',
      ],
      [
        '{"k":"-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBg\\n-----END PRIVATE KEY-----"}',
        '-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBg\\n-----END PRIVATE KEY-----',
      ],
    ],
    invalid: ['sk-1234', 'sk-learn-pipeline-config-utils', 'sk-your-api-key-here', 'AKIA1234', 'ghp_short', 'eyJub3QganNvbg.eyJhYmNkZWZnaGk.abc', '-----BEGIN PUBLIC KEY-----', '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'],
  },
};

describe('recognizers', () => {
  for (const [entity, { valid, invalid }] of Object.entries(CASES) as [PiiEntity, (typeof CASES)[PiiEntity]][]) {
    describe(entity, () => {
      it.each(valid)('finds it in %j', (text, want) => {
        expect(found(entity, text)).toEqual([want]);
      });
      it.each(invalid)('ignores %j', (text) => {
        expect(found(entity, text)).toEqual([]);
        expect(found(entity, `texto ${text} fim`)).toEqual([]);
      });
    });
  }

  it('have unique ids and compile', () => {
    expect(new Set(RECOGNIZERS.map((r) => r.id)).size).toBe(RECOGNIZERS.length);
    expect(() => createPiiRedactor()).not.toThrow();
  });
});
