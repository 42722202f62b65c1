import { GatewayError } from '../../errors.js';
import type { Json } from './chat-translator.js';

/**
 * The request's fields beside its messages (docs/translation.md, Gemini): tools, tool_choice and the generation
 * settings, and the refusal of what Gemini cannot express.
 */

/** The request fields translated, and fields with no effect on the answer's content, which Gemini has no place for (ignored). */
const KNOWN = new Set([
  'model', 'messages', 'stream', 'stream_options', 'max_tokens', 'max_completion_tokens', 'temperature', 'top_p', 'stop',
  'response_format', 'tools', 'tool_choice', 'parallel_tool_calls', 'n', 'seed', 'frequency_penalty',
  'presence_penalty', 'logprobs', 'top_logprobs', 'logit_bias', 'reasoning_effort', 'modalities', 'audio',
  // Ignored: OpenAI-side storage, billing, abuse and caching hints, and a latency hint that never changes the answer.
  'user', 'store', 'metadata', 'service_tier', 'prompt_cache_key', 'safety_identifier', 'prediction',
]);

/**
 * OpenAI's reasoning efforts as Gemini thinking budgets (tokens): low, medium and high as Google's OpenAI-compatible
 * endpoint maps them, none as thinking off, minimal between the two. A budget a model refuses (0 on a model that always
 * thinks) is Gemini's 400.
 */
const THINKING_BUDGETS: Readonly<Record<string, number>> = { none: 0, minimal: 512, low: 1024, medium: 8192, high: 24576 };

export function isObject(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function refuse(target: string, field: string, reason: string): never {
  throw new GatewayError('invalid_request', `${field}: target ${target} (gemini) ${reason}`);
}

/** A JSON Schema as Gemini's JSON Schema fields take it: the root `$schema` dialect marker, which Gemini refuses, dropped. */
function jsonSchema(schema: Json): Json {
  if (!('$schema' in schema)) return schema;
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

function numberField(body: Json, key: string, target: string): number | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) refuse(target, key, 'needs a number');
  return v;
}

export function tools(tools: unknown, target: string): Json[] {
  if (!Array.isArray(tools)) refuse(target, 'tools', 'needs an array');
  const declarations: Json[] = [];
  for (let i = 0; i < tools.length; i++) {
    const tool: unknown = tools[i];
    if (!isObject(tool) || tool['type'] !== 'function') refuse(target, `tools[${i}].type`, 'translates only function tools');
    const fn = tool['function'];
    if (!isObject(fn) || typeof fn['name'] !== 'string') refuse(target, `tools[${i}].function.name`, 'needs a string');
    const declaration: Json = { name: fn['name'] };
    if (typeof fn['description'] === 'string') declaration['description'] = fn['description'];
    const parameters = fn['parameters'];
    if (isObject(parameters)) declaration['parametersJsonSchema'] = jsonSchema(parameters);
    else if (parameters != null) refuse(target, `tools[${i}].function.parameters`, 'needs a JSON Schema object');
    declarations.push(declaration);
  }
  return declarations;
}

export function toolConfig(choice: unknown, hasTools: boolean, target: string): Json | null {
  if (choice === undefined || choice === null) return null;
  let config: Json;
  if (choice === 'auto') config = { mode: 'AUTO' };
  else if (choice === 'none') config = { mode: 'NONE' };
  else if (choice === 'required') config = { mode: 'ANY' };
  else if (isObject(choice) && choice['type'] === 'function' && isObject(choice['function']) && typeof choice['function']['name'] === 'string') {
    config = { mode: 'ANY', allowedFunctionNames: [choice['function']['name']] };
  } else refuse(target, 'tool_choice', 'translates auto, none, required and a named function');
  if (!hasTools) {
    if (config['mode'] === 'ANY') refuse(target, 'tool_choice', 'needs tools to choose from');
    return null;
  }
  return { functionCallingConfig: config };
}

function stopSequences(stop: unknown, target: string): string[] | null {
  if (stop === undefined || stop === null) return null;
  if (typeof stop === 'string') return [stop];
  if (Array.isArray(stop) && stop.every((s) => typeof s === 'string')) return stop as string[];
  return refuse(target, 'stop', 'needs a string or an array of strings');
}

/** response_format as generationConfig fields (set on `config`). */
function responseFormat(format: unknown, config: Json, target: string): void {
  if (format === undefined || format === null) return;
  const type = isObject(format) ? format['type'] : undefined;
  if (type === 'text') return;
  if (type === 'json_object') {
    config['responseMimeType'] = 'application/json';
    return;
  }
  if (type !== 'json_schema') return refuse(target, 'response_format.type', 'translates text, json_object and json_schema');
  const spec = (format as Json)['json_schema'];
  const schema = isObject(spec) ? spec['schema'] : undefined;
  config['responseMimeType'] = 'application/json';
  if (isObject(schema)) config['responseJsonSchema'] = jsonSchema(schema);
  else if (schema != null) refuse(target, 'response_format.json_schema.schema', 'needs a JSON Schema object');
}

/** Refuses what Gemini cannot express; a field left at its no-op value (n 1, logprobs false, …) passes. */
export function refuseInexpressible(body: Json, target: string): void {
  for (const key in body) if (!KNOWN.has(key)) refuse(target, key, 'has no equivalent');
  const n = body['n'];
  if (n != null && n !== 1) refuse(target, 'n', 'cannot return more than one choice');
  if (body['logprobs'] != null && body['logprobs'] !== false) refuse(target, 'logprobs', 'does not return log probabilities');
  const top = body['top_logprobs'];
  if (top != null && top !== 0) refuse(target, 'top_logprobs', 'does not return log probabilities');
  const bias = body['logit_bias'];
  if (bias != null && !(isObject(bias) && Object.keys(bias).length === 0)) refuse(target, 'logit_bias', 'has no token biases');
  if (body['audio'] != null) refuse(target, 'audio', 'does not answer in audio');
  const modalities = body['modalities'];
  if (modalities != null && !(Array.isArray(modalities) && modalities.every((m) => m === 'text'))) refuse(target, 'modalities', 'answers only in text');
  if (body['parallel_tool_calls'] === false) refuse(target, 'parallel_tool_calls', 'cannot be held to one tool call per answer');
}

export function generationConfig(body: Json, target: string): Json | null {
  const config: Json = {};
  const max = numberField(body, 'max_completion_tokens', target) ?? numberField(body, 'max_tokens', target);
  if (max !== undefined) config['maxOutputTokens'] = max;
  const temperature = numberField(body, 'temperature', target);
  if (temperature !== undefined) config['temperature'] = temperature;
  const topP = numberField(body, 'top_p', target);
  if (topP !== undefined) config['topP'] = topP;
  const stop = stopSequences(body['stop'], target);
  if (stop && stop.length > 0) config['stopSequences'] = stop;
  const seed = numberField(body, 'seed', target);
  if (seed !== undefined) config['seed'] = seed;
  // 0 is OpenAI's default: not sent, as some Gemini models refuse any penalty field.
  const presence = numberField(body, 'presence_penalty', target);
  if (presence) config['presencePenalty'] = presence;
  const frequency = numberField(body, 'frequency_penalty', target);
  if (frequency) config['frequencyPenalty'] = frequency;
  responseFormat(body['response_format'], config, target);
  const effort = body['reasoning_effort'];
  if (effort != null) {
    const budget = typeof effort === 'string' ? THINKING_BUDGETS[effort] : undefined;
    if (budget === undefined) refuse(target, 'reasoning_effort', 'translates none, minimal, low, medium and high');
    config['thinkingConfig'] = { thinkingBudget: budget };
  }
  for (const _ in config) return config;
  return null;
}
