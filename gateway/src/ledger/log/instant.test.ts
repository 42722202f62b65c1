import { randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { instantMs, isoInstantMs } from './instant.js';

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

/** A string of the ledger's form with random fields, every field at a bound or one past it in one case of seven. */
function ledgerForm(i: number): string {
  const fields: Array<[number, number]> = [[0, 9999], [0, 13], [0, 32], [0, 25], [0, 60], [0, 60], [0, 999]];
  const [y, mo, d, h, mi, s, ms] = fields.map(([lo, hi]) => (i % 7 === 0 ? [lo, hi][randomInt(2)]! : randomInt(lo, hi + 1)));
  return `${pad(y!, 4)}-${pad(mo!, 2)}-${pad(d!, 2)}T${pad(h!, 2)}:${pad(mi!, 2)}:${pad(s!, 2)}.${pad(ms!, 3)}Z`;
}

/** `read` gives back the instant of 20,000 random ones between `from` and `to`, from what toISOString writes. */
function readsWhatToIsoStringWrites(read: (s: string) => number, from: string, to: string): void {
  const lo = Date.parse(from);
  const hi = Date.parse(to);
  for (let i = 0; i < 20_000; i++) {
    const ms = lo + Math.floor(Math.random() * (hi - lo));
    expect(read(new Date(ms).toISOString())).toBe(ms);
  }
}

describe('instantMs reads a date-time as Date.parse does', () => {
  it('agrees on the ledger form across the whole range of years, every field at its bounds and past them', () => {
    for (let i = 0; i < 50_000; i++) {
      const text = ledgerForm(i);
      expect(Object.is(instantMs(text), Date.parse(text)), text).toBe(true);
    }
  });

  it('agrees on what toISOString writes, leap days and month ends included', () => {
    readsWhatToIsoStringWrites(instantMs, '1960-01-01T00:00:00.000Z', '2200-01-01T00:00:00.000Z');
    for (const text of ['2024-02-29T23:59:59.999Z', '2100-02-29T00:00:00.000Z', '2026-04-31T12:00:00.000Z', '2000-03-01T00:00:00.000Z', '0000-01-01T00:00:00.000Z', '1969-12-31T23:59:59.999Z']) {
      expect(instantMs(text), text).toBe(Date.parse(text));
    }
  });

  it('hands every other form to Date.parse, malformed ones included', () => {
    const others = [
      '2026-01-01T24:00:00.000Z',
      '2026-01-01T24:00:01.000Z',
      '2026-11-25T10:00:00Z',
      '2026-11-25T10:00:00.000+02:00',
      '2026-11-25',
      '+002026-11-25T10:00:00.000Z',
      '2026-1a-25T10:00:00.000Z',
      '2026-11-25T10:00:00.0-0Z',
      '2026-11-25t10:00:00.000Z',
      ' 026-11-25T10:00:00.000Z',
      'not a date at all, 24 ch',
      '',
    ];
    for (const text of others) expect(Object.is(instantMs(text), Date.parse(text)), text).toBe(true);
  });
});

describe('isoInstantMs reads only what toISOString writes', () => {
  it('is the instant of every string toISOString writes, and NaN for any string toISOString does not write', () => {
    readsWhatToIsoStringWrites(isoInstantMs, '0000-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z');
    for (let i = 0; i < 50_000; i++) {
      const text = ledgerForm(i);
      const parsed = Date.parse(text);
      const written = Number.isNaN(parsed) ? null : new Date(parsed).toISOString();
      expect(Object.is(isoInstantMs(text), written === text ? parsed : Number.NaN), text).toBe(true);
    }
    for (const text of ['2026-04-31T12:00:00.000Z', '2025-02-29T00:00:00.000Z', '2100-02-29T00:00:00.000Z', '2026-01-01T24:00:00.000Z', '2026-11-25T10:00:00Z']) {
      expect(isoInstantMs(text), text).toBeNaN();
    }
    expect(isoInstantMs('2024-02-29T23:59:59.999Z')).toBe(Date.parse('2024-02-29T23:59:59.999Z'));
  });
});
