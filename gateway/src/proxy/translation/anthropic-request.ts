import { GatewayError } from '../../errors.js';
import type { Json, TranslatedRequest } from './chat-translator.js';
import { anthropicMessages } from './anthropic-messages.js';

/**
 * The answer's length when the agent names none: Anthropic requires `max_tokens`, OpenAI does not. 4096 is the
 * largest value every Claude model still served accepts (Claude 3 Haiku's ceiling), so it never turns a call the
 * agent could make into a 400.
 */
export const DEFAULT_MAX_TOKENS = 4096;

/** The API version the translation is written against (the Messages API's only one). */
const HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'anthropic-version': '2023-06-01' });

/** OpenAI's `reasoning_effort` values Anthropic's `output_config.effort` takes as they are. */
const EFFORTS: ReadonlySet<string> = new Set(['low', 'medium', 'high', 'xhigh']);

/** The target as an error message names it. */
function at(target: string): string {
  return `target ${target} (anthropic)`;
}

function refuse(field: string, target: string, why: string): never {
  throw new GatewayError('invalid_request', `${field}: ${at(target)} ${why}`);
}

function invalid(field: string, why: string): never {
  throw new GatewayError('invalid_request', `${field}: ${why}`);
}

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function positiveInt(v: unknown, field: string): number {
  if (!Number.isInteger(v) || (v as number) < 1) invalid(field, 'must be a positive integer');
  return v as number;
}

/** A sampling parameter in Anthropic's range, 0 to 1 (OpenAI's temperature goes to 2). */
function unitNumber(v: unknown, field: string, target: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) invalid(field, 'must be a number from 0');
  if (v > 1) refuse(field, target, `takes 0 to 1, not ${v}`);
  return v;
}

function stopSequences(v: unknown): string[] | null {
  if (typeof v === 'string') return [v];
  if (!Array.isArray(v) || !v.every((s) => typeof s === 'string')) invalid('stop', 'must be a string or an array of strings');
  return v.length === 0 ? null : (v as string[]);
}

/** `tools[k]` (a function tool) as an Anthropic tool: its parameters are the input schema. */
function tool(t: unknown, k: number, target: string): Json {
  if (!isObject(t)) invalid(`tools[${k}]`, 'must be an object');
  if (t['type'] !== 'function') refuse(`tools[${k}].type`, target, `has no ${String(t['type'])} tools, only function tools`);
  const fn = t['function'];
  if (!isObject(fn) || typeof fn['name'] !== 'string') invalid(`tools[${k}].function.name`, 'required string');
  const parameters = fn['parameters'];
  if (parameters != null && !isObject(parameters)) invalid(`tools[${k}].function.parameters`, 'must be a JSON schema object');
  const out: Json = { name: fn['name'] };
  if (typeof fn['description'] === 'string') out['description'] = fn['description'];
  // Anthropic requires an object schema; a function with no parameters takes an empty object.
  out['input_schema'] = parameters ?? { type: 'object', properties: {} };
  if (fn['strict'] === true) out['strict'] = true;
  return out;
}

/** `tool_choice` as Anthropic's, null for "leave it to the model". */
function toolChoice(v: unknown, hasTools: boolean, target: string): Json | null {
  if (v === 'auto') return hasTools ? { type: 'auto' } : null;
  if (v === 'none') return hasTools ? { type: 'none' } : null;
  if (v === 'required') {
    if (!hasTools) invalid('tool_choice', 'required needs tools');
    return { type: 'any' };
  }
  if (isObject(v) && v['type'] === 'function') {
    const name = isObject(v['function']) ? v['function']['name'] : undefined;
    if (typeof name !== 'string') invalid('tool_choice.function.name', 'required string');
    if (!hasTools) invalid('tool_choice', `names ${name} but no tools are given`);
    return { type: 'tool', name };
  }
  if (isObject(v)) refuse('tool_choice.type', target, `has no ${String(v['type'])} tool choice (auto, none, required or a named function)`);
  return invalid('tool_choice', 'must be auto, none, required or {type: function, function: {name}}');
}

/** `response_format` as `output_config.format`, null when plain text is asked for. */
function outputFormat(v: unknown, target: string): Json | null {
  if (!isObject(v)) return invalid('response_format', 'must be an object');
  const type = v['type'];
  if (type === 'text') return null;
  if (type === 'json_schema') {
    const spec = v['json_schema'];
    const schema = isObject(spec) ? spec['schema'] : undefined;
    if (!isObject(schema)) refuse('response_format.json_schema.schema', target, 'needs the schema to hold the answer to');
    return { type: 'json_schema', schema };
  }
  // Anthropic constrains output only to a schema whose objects close with additionalProperties: false: "any JSON
  // object" cannot be guaranteed, and a prompt asking for one is not a guarantee.
  if (type === 'json_object') refuse('response_format', target, 'cannot guarantee a JSON object without a schema: send {type: json_schema, json_schema: {name, schema}}');
  return refuse('response_format.type', target, `has no ${String(type)} format`);
}

/** Fields with no equivalent that are harmless at their neutral value: refused only when they would change the answer. */
function neutral(key: string, v: unknown): boolean {
  switch (key) {
    case 'n':
      return v === 1;
    case 'logprobs':
      return v === false;
    case 'top_logprobs':
      return v === 0;
    case 'frequency_penalty':
    case 'presence_penalty':
      return v === 0;
    case 'logit_bias':
      return isObject(v) && Object.keys(v).length === 0;
    case 'modalities':
      return Array.isArray(v) && v.every((m) => m === 'text');
    case 'verbosity':
      return v === 'medium';
    default:
      return false;
  }
}

/** Why a field with no equivalent is refused. */
const NO_EQUIVALENT: Readonly<Record<string, string>> = {
  n: 'cannot return more than one choice',
  logprobs: 'returns no log probabilities',
  top_logprobs: 'returns no log probabilities',
  frequency_penalty: 'has no frequency penalty',
  presence_penalty: 'has no presence penalty',
  logit_bias: 'has no logit bias',
  modalities: 'answers in text only',
  audio: 'answers in text only',
  seed: 'has no seed: its sampling cannot be made repeatable',
  prediction: 'has no predicted outputs',
  web_search_options: 'has no OpenAI web search (its own web search is a server tool this translation does not send)',
  functions: 'takes tools, not the legacy functions',
  function_call: 'takes tool_choice, not the legacy function_call',
  verbosity: 'has no verbosity setting',
};

/**
 * Fields that change nothing Anthropic would answer, accepted and not sent: OpenAI-side storage and its labels,
 * OpenAI's prompt-cache hints (Anthropic caches only where `cache_control` marks a block), the model (the target's is
 * sent), and `stream_options` (read by the caller, which asks for the usage chunk).
 */
const IGNORED: ReadonlySet<string> = new Set(['model', 'store', 'metadata', 'prompt_cache_key', 'prompt_cache_retention', 'prompt_cache_options', 'stream_options']);

/**
 * The Messages API request for an OpenAI chat completions request (docs/translation.md, "Anthropic"). Every field is
 * either translated, ignored for a stated reason (IGNORED, or at its neutral value), or refused with a 400 naming it
 * and the target: nothing is dropped unseen.
 */
export function anthropicRequest(req: Json, model: string, target: string): TranslatedRequest {
  let maxTokens: number | null = null;
  let maxCompletionTokens: number | null = null;
  let temperature: number | null = null;
  let topP: number | null = null;
  let stop: string[] | null = null;
  let userId: string | null = null;
  let safetyId: string | null = null;
  let stream = false;
  let tools: Json[] | null = null;
  let choice: unknown = undefined;
  let parallel = true;
  let format: Json | null = null;
  let effort: string | null = null;
  let serviceTier: string | null = null;

  for (const key in req) {
    const v = req[key];
    // OpenAI treats an explicit null as the field left out.
    if (v == null || key === 'messages' || IGNORED.has(key)) continue;
    switch (key) {
      case 'max_tokens':
        maxTokens = positiveInt(v, key);
        break;
      case 'max_completion_tokens':
        maxCompletionTokens = positiveInt(v, key);
        break;
      case 'temperature':
        temperature = unitNumber(v, key, target);
        break;
      case 'top_p':
        topP = unitNumber(v, key, target);
        break;
      case 'stop':
        stop = stopSequences(v);
        break;
      case 'user':
      case 'safety_identifier':
        if (typeof v !== 'string') invalid(key, 'must be a string');
        if (key === 'user') userId = v;
        else safetyId = v;
        break;
      case 'stream':
        if (typeof v !== 'boolean') invalid(key, 'must be a boolean');
        stream = v;
        break;
      case 'tools':
        if (!Array.isArray(v)) invalid(key, 'must be an array');
        tools = v.map((t, k) => tool(t, k, target));
        break;
      case 'tool_choice':
        choice = v;
        break;
      case 'parallel_tool_calls':
        if (typeof v !== 'boolean') invalid(key, 'must be a boolean');
        parallel = v;
        break;
      case 'response_format':
        format = outputFormat(v, target);
        break;
      case 'reasoning_effort':
        if (typeof v !== 'string' || !EFFORTS.has(v)) refuse(key, target, `takes an effort of low, medium, high or xhigh, not ${String(v)}`);
        effort = v;
        break;
      case 'service_tier':
        // Anthropic picks priority capacity when the organisation has it (auto) or never (standard_only).
        if (v === 'auto') serviceTier = 'auto';
        else if (v === 'default') serviceTier = 'standard_only';
        else refuse(key, target, `has no ${String(v)} tier per request (auto or default)`);
        break;
      default:
        if (neutral(key, v)) break;
        refuse(key, target, NO_EQUIVALENT[key] ?? 'has no equivalent');
    }
  }

  const { system, messages } = anthropicMessages(req['messages'], target);
  const body: Json = { model, max_tokens: maxCompletionTokens ?? maxTokens ?? DEFAULT_MAX_TOKENS };
  if (system !== null) body['system'] = system;
  body['messages'] = messages;
  const hasTools = tools !== null && tools.length > 0;
  if (hasTools) body['tools'] = tools;
  let tc = choice === undefined ? null : toolChoice(choice, hasTools, target);
  // One tool call at most: Anthropic says so on the tool choice, which then must be sent even when it is auto.
  if (!parallel && hasTools && tc?.['type'] !== 'none') tc = { ...(tc ?? { type: 'auto' }), disable_parallel_tool_use: true };
  if (tc !== null) body['tool_choice'] = tc;
  if (temperature !== null) body['temperature'] = temperature;
  // top_p 1 samples from everything, as leaving it out does; newer Claude models refuse it beside a temperature.
  if (topP !== null && topP !== 1) body['top_p'] = topP;
  if (stop !== null) body['stop_sequences'] = stop;
  const user = safetyId ?? userId;
  if (user !== null) body['metadata'] = { user_id: user };
  if (format !== null || effort !== null) {
    const config: Json = {};
    if (format !== null) config['format'] = format;
    if (effort !== null) config['effort'] = effort;
    body['output_config'] = config;
  }
  if (serviceTier !== null) body['service_tier'] = serviceTier;
  if (stream) body['stream'] = true;
  return { path: '/v1/messages', body, headers: HEADERS, stream };
}
