/**
 * Model prices in BRL per 1,000 tokens, for budgets. Built-in figures are list prices converted at an indicative
 * rate; operators set their own with MODEL_PRICES_BRL (JSON, merged over these). A model name matches its longest
 * listed prefix (`gpt-4o-mini-2024-07-18` → `gpt-4o-mini`); anything else costs `default`.
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
  default: { input: 0.01375, output: 0.055 },
};

export class PriceTable {
  readonly #prices: Map<string, ModelPrice>;
  readonly #names: string[];

  constructor(overridesJson = '') {
    const merged: Record<string, ModelPrice> = { ...BUILT_IN_PRICES_BRL };
    if (overridesJson.trim() !== '') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(overridesJson);
      } catch {
        throw new Error('MODEL_PRICES_BRL: not valid JSON');
      }
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('MODEL_PRICES_BRL: must be an object {model: {input, output}}');
      for (const [model, p] of Object.entries(parsed as Record<string, unknown>)) {
        const price = p as Partial<ModelPrice> | null;
        if (!price || typeof price.input !== 'number' || typeof price.output !== 'number' || price.input < 0 || price.output < 0) {
          throw new Error(`MODEL_PRICES_BRL: ${model} needs non-negative numbers input and output`);
        }
        merged[model] = { input: price.input, output: price.output };
      }
    }
    this.#prices = new Map(Object.entries(merged));
    // Longest first, so the first prefix that matches is the most specific.
    this.#names = [...this.#prices.keys()].filter((k) => k !== 'default').sort((a, b) => b.length - a.length);
  }

  priceOf(model: string): ModelPrice {
    const exact = this.#prices.get(model);
    if (exact) return exact;
    for (const name of this.#names) if (model.startsWith(name)) return this.#prices.get(name) as ModelPrice;
    return this.#prices.get('default') as ModelPrice;
  }

  cost(model: string, promptTokens: number, completionTokens: number): number {
    const p = this.priceOf(model);
    return (promptTokens * p.input + completionTokens * p.output) / 1000;
  }
}
