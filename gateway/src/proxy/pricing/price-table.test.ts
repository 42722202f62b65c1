import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PriceTable } from './price-table.js';

describe('PriceTable', () => {
  it('an unknown model is unpriced: cost 0, never priced as another model', () => {
    const prices = new PriceTable();
    expect(prices.cost('my-finetune-7b', 1000, 1000)).toEqual({ brl: 0, priced: false });
    expect(prices.priceOf('my-finetune-7b')).toBeNull();
    // A known model by its longest listed prefix.
    expect(prices.cost('gpt-4o-mini-2024-07-18', 1000, 1000)).toEqual({ brl: (1000 * 0.000825 + 1000 * 0.0033) / 1000, priced: true });
  });

  it('an operator may name a default price for models the table does not list', () => {
    const prices = new PriceTable('{"default": {"input": 0.001, "output": 0.002}}');
    expect(prices.cost('my-finetune-7b', 1000, 2000)).toEqual({ brl: 0.005, priced: true });
  });

  it('MODEL_PRICES_FILE is merged over the built-in table, and MODEL_PRICES_BRL over the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prices-'));
    const file = join(dir, 'prices.json');
    writeFileSync(file, JSON.stringify({ 'my-finetune': { input: 0.5, output: 1 }, 'gpt-4o': { input: 1, output: 1 }, 'claude-x': { input: 2, output: 2 } }));
    const prices = PriceTable.load('{"claude-x": {"input": 3, "output": 3}}', file);
    expect(prices.cost('my-finetune-7b', 1000, 1000)).toEqual({ brl: 1.5, priced: true });
    expect(prices.cost('gpt-4o', 1000, 0)).toEqual({ brl: 1, priced: true });
    expect(prices.cost('claude-x', 1000, 0)).toEqual({ brl: 3, priced: true });
    expect(prices.cost('gpt-4.1', 1000, 0)).toEqual({ brl: 0.011, priced: true });
  });

  it('a bad file or entry is refused at start, naming where it came from', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prices-'));
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"m": {"input": -1, "output": 0}}');
    expect(() => PriceTable.load('', bad)).toThrow(`MODEL_PRICES_FILE (${bad}): m needs non-negative numbers input and output`);
    expect(() => PriceTable.load('', join(dir, 'missing.json'))).toThrow(/MODEL_PRICES_FILE .*cannot be read/);
    expect(() => new PriceTable('[1]')).toThrow('MODEL_PRICES_BRL: must be an object {model: {input, output}}');
  });
});
