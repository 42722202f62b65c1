import { readFileSync } from 'node:fs';

/**
 * Model prices in BRL per 1,000 tokens, for budgets and the console's costs. Built-in figures are list prices converted
 * at an indicative rate; operators extend or replace them with MODEL_PRICES_FILE (a JSON file read at start) and
 * MODEL_PRICES_BRL (the same JSON in the environment), each merged over what came before, the environment last. A model
 * name matches its longest listed prefix (`gpt-4o-mini-2024-07-18` → `gpt-4o-mini`); a model nothing matches is
 * unpriced (cost 0, reported apart), never priced as another model, unless the operator names a `default` price.
 */
export interface ModelPrice {
  input: number;
  output: number;
}

export const BUILT_IN_PRICES_BRL: Readonly<Record<string, ModelPrice>> = {
  'gpt-4o': { input: 0.01375, output: 0.055 },
  'gpt-4o-mini': { input: 0.000825, output: 0.0033 },
  'gpt-4.1': { input: 0.011, output: 0.044 },
  'gpt-4.1-mini': { input: 0.0022, output: 0.0088 },
  'gpt-4.1-nano': { input: 0.00055, output: 0.0022 },
  'o3-mini': { input: 0.00605, output: 0.0242 },
  'text-embedding-3-small': { input: 0.00011, output: 0 },
  'text-embedding-3-large': { input: 0.000715, output: 0 },
  'gpt-3.5-turbo-instruct': { input: 0.00825, output: 0.011 },
  // Anthropic (list prices per million tokens in USD, at the same rate): Opus 4 and 4.1 $15/$75, Opus 4.5 $5/$25,
  // Sonnet 3.7, 4 and 4.5 $3/$15, Haiku 4.5 $1/$5, Haiku 3.5 $0.80/$4.
  'claude-opus-4': { input: 0.0825, output: 0.4125 },
  'claude-opus-4-5': { input: 0.0275, output: 0.1375 },
  'claude-sonnet-4': { input: 0.0165, output: 0.0825 },
  'claude-3-7-sonnet': { input: 0.0165, output: 0.0825 },
  'claude-haiku-4-5': { input: 0.0055, output: 0.0275 },
  'claude-3-5-haiku': { input: 0.0044, output: 0.022 },
  // Google (USD per million, same rate): Gemini 2.5 Pro $1.25/$10 (prompts up to 200k tokens), 2.5 Flash $0.30/$2.50,
  // 2.5 Flash-Lite and 2.0 Flash $0.10/$0.40, 2.0 Flash-Lite $0.075/$0.30, gemini-embedding-001 $0.15 in.
  'gemini-2.5-pro': { input: 0.006875, output: 0.055 },
  'gemini-2.5-flash': { input: 0.00165, output: 0.01375 },
  'gemini-2.5-flash-lite': { input: 0.00055, output: 0.0022 },
  'gemini-2.0-flash': { input: 0.00055, output: 0.0022 },
  'gemini-2.0-flash-lite': { input: 0.0004125, output: 0.00165 },
  'gemini-embedding-001': { input: 0.000825, output: 0 },
};

/** A call's cost: `priced` false when its model is in no price table (then `brl` is 0). */
export interface Cost {
  brl: number;
  priced: boolean;
}

/** `{model: {input, output}}` read from `source` (named in errors), checked entry by entry. */
function parsePrices(json: string, source: string): Record<string, ModelPrice> {
  const out: Record<string, ModelPrice> = {};
  if (json.trim() === '') return out;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new Error(`${source}: not valid JSON`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`${source}: must be an object {model: {input, output}}`);
  for (const [model, p] of Object.entries(parsed as Record<string, unknown>)) {
    const price = p as Partial<ModelPrice> | null;
    if (!price || typeof price.input !== 'number' || typeof price.output !== 'number' || !(price.input >= 0) || !(price.output >= 0)) {
      throw new Error(`${source}: ${model} needs non-negative numbers input and output`);
    }
    out[model] = { input: price.input, output: price.output };
  }
  return out;
}

export class PriceTable {
  readonly #prices: Map<string, ModelPrice>;
  readonly #names: string[];

  /** The built-in table, then `fileJson` (MODEL_PRICES_FILE's text) over it, then `overridesJson` (MODEL_PRICES_BRL). */
  constructor(overridesJson = '', fileJson = '', fileName = '') {
    const merged: Record<string, ModelPrice> = {
      ...BUILT_IN_PRICES_BRL,
      ...parsePrices(fileJson, `MODEL_PRICES_FILE (${fileName})`),
      ...parsePrices(overridesJson, 'MODEL_PRICES_BRL'),
    };
    this.#prices = new Map(Object.entries(merged));
    // Longest first, so the first prefix that matches is the most specific.
    this.#names = [...this.#prices.keys()].filter((k) => k !== 'default').sort((a, b) => b.length - a.length);
  }

  /** The table the gateway starts with: MODEL_PRICES_FILE (path, '' for none) read now, MODEL_PRICES_BRL over it. */
  static load(overridesJson: string, filePath: string): PriceTable {
    if (filePath === '') return new PriceTable(overridesJson);
    let text: string;
    try {
      text = readFileSync(filePath, 'utf8');
    } catch (err) {
      throw new Error(`MODEL_PRICES_FILE (${filePath}): cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`, { cause: err });
    }
    return new PriceTable(overridesJson, text, filePath);
  }

  /** The model's price, or null when no table lists it (nor a `default`). */
  priceOf(model: string): ModelPrice | null {
    const exact = this.#prices.get(model);
    if (exact) return exact;
    for (const name of this.#names) if (model.startsWith(name)) return this.#prices.get(name) as ModelPrice;
    return this.#prices.get('default') ?? null;
  }

  cost(model: string, promptTokens: number, completionTokens: number): Cost {
    const p = this.priceOf(model);
    if (p === null) return { brl: 0, priced: false };
    return { brl: (promptTokens * p.input + completionTokens * p.output) / 1000, priced: true };
  }
}
