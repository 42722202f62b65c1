import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

/**
 * What Anthropic's Messages API and Gemini's generateContent take, as their references document the request bodies:
 * the mocks of the translation tests refuse anything else with a 400, as the providers do, so a translation that
 * sends a field a provider does not know, a part of the wrong shape, or turns in an order it refuses, fails there.
 *   - https://docs.anthropic.com/en/api/messages (request body), .../build-with-claude/tool-use (tool_result order),
 *     .../build-with-claude/pdf-support (document blocks), .../build-with-claude/structured-outputs (output_config)
 *   - https://ai.google.dev/api/generate-content#request-body, .../api/caching#Content, #Part, #Schema, #Tool
 */

type Json = Record<string, unknown>;

const ajv = new Ajv({ allErrors: false, strict: false });

const CACHE_CONTROL = { type: 'object', properties: { type: { const: 'ephemeral' }, ttl: { type: 'string' } }, required: ['type'], additionalProperties: false };
const ANTHROPIC_TEXT = { type: 'object', properties: { type: { const: 'text' }, text: { type: 'string', minLength: 1 }, cache_control: CACHE_CONTROL, citations: {} }, required: ['type', 'text'], additionalProperties: false };
const ANTHROPIC_IMAGE = {
  type: 'object',
  properties: {
    type: { const: 'image' },
    source: {
      oneOf: [
        { type: 'object', properties: { type: { const: 'base64' }, media_type: { enum: ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] }, data: { type: 'string', minLength: 1 } }, required: ['type', 'media_type', 'data'], additionalProperties: false },
        { type: 'object', properties: { type: { const: 'url' }, url: { type: 'string', pattern: '^https?://' } }, required: ['type', 'url'], additionalProperties: false },
      ],
    },
    cache_control: CACHE_CONTROL,
  },
  required: ['type', 'source'],
  additionalProperties: false,
};
const ANTHROPIC_DOCUMENT = {
  type: 'object',
  properties: {
    type: { const: 'document' },
    source: { type: 'object', properties: { type: { const: 'base64' }, media_type: { const: 'application/pdf' }, data: { type: 'string', minLength: 1 } }, required: ['type', 'media_type', 'data'], additionalProperties: false },
    title: { type: 'string' },
    context: { type: 'string' },
    citations: {},
    cache_control: CACHE_CONTROL,
  },
  required: ['type', 'source'],
  additionalProperties: false,
};
const ANTHROPIC_TOOL_USE = { type: 'object', properties: { type: { const: 'tool_use' }, id: { type: 'string', pattern: '^[a-zA-Z0-9_-]+$' }, name: { type: 'string', minLength: 1 }, input: { type: 'object' }, cache_control: CACHE_CONTROL }, required: ['type', 'id', 'name', 'input'], additionalProperties: false };
const ANTHROPIC_TOOL_RESULT = {
  type: 'object',
  properties: {
    type: { const: 'tool_result' },
    tool_use_id: { type: 'string', pattern: '^[a-zA-Z0-9_-]+$' },
    content: { oneOf: [{ type: 'string' }, { type: 'array', items: { oneOf: [ANTHROPIC_TEXT, ANTHROPIC_IMAGE, ANTHROPIC_DOCUMENT] } }] },
    is_error: { type: 'boolean' },
    cache_control: CACHE_CONTROL,
  },
  required: ['type', 'tool_use_id'],
  additionalProperties: false,
};

const ANTHROPIC_MESSAGES = ajv.compile({
  type: 'object',
  properties: {
    model: { type: 'string', minLength: 1 },
    max_tokens: { type: 'integer', minimum: 1 },
    messages: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        properties: {
          role: { enum: ['user', 'assistant'] },
          content: { oneOf: [{ type: 'string' }, { type: 'array', minItems: 1, items: { oneOf: [ANTHROPIC_TEXT, ANTHROPIC_IMAGE, ANTHROPIC_DOCUMENT, ANTHROPIC_TOOL_USE, ANTHROPIC_TOOL_RESULT] } }] },
        },
        required: ['role', 'content'],
        additionalProperties: false,
      },
    },
    system: { oneOf: [{ type: 'string' }, { type: 'array', items: ANTHROPIC_TEXT }] },
    metadata: { type: 'object', properties: { user_id: { type: ['string', 'null'], maxLength: 256 } }, additionalProperties: false },
    stop_sequences: { type: 'array', items: { type: 'string' } },
    stream: { type: 'boolean' },
    temperature: { type: 'number', minimum: 0, maximum: 1 },
    top_k: { type: 'integer', minimum: 0 },
    top_p: { type: 'number', minimum: 0, maximum: 1 },
    tools: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,128}$' },
          description: { type: 'string' },
          input_schema: { type: 'object', properties: { type: { const: 'object' } }, required: ['type'] },
          type: { const: 'custom' },
          strict: { type: 'boolean' },
          cache_control: CACHE_CONTROL,
        },
        required: ['name', 'input_schema'],
        additionalProperties: false,
      },
    },
    tool_choice: {
      oneOf: [
        { type: 'object', properties: { type: { enum: ['auto', 'any'] }, disable_parallel_tool_use: { type: 'boolean' } }, required: ['type'], additionalProperties: false },
        { type: 'object', properties: { type: { const: 'tool' }, name: { type: 'string' }, disable_parallel_tool_use: { type: 'boolean' } }, required: ['type', 'name'], additionalProperties: false },
        { type: 'object', properties: { type: { const: 'none' } }, required: ['type'], additionalProperties: false },
      ],
    },
    thinking: { type: 'object' },
    service_tier: { enum: ['auto', 'standard_only'] },
    // Structured outputs (.../build-with-claude/structured-outputs) and effort (.../build-with-claude/effort).
    output_config: {
      type: 'object',
      properties: {
        effort: { enum: ['low', 'medium', 'high', 'xhigh', 'max'] },
        format: { type: 'object', properties: { type: { const: 'json_schema' }, schema: { type: 'object' } }, required: ['type', 'schema'], additionalProperties: false },
      },
      additionalProperties: false,
    },
  },
  required: ['model', 'max_tokens', 'messages'],
  additionalProperties: false,
});

/** Why Anthropic would refuse a Messages request body (its 400 message), or null. */
export function anthropicMessagesProblem(body: Json): string | null {
  if (!ANTHROPIC_MESSAGES(body)) return describe(ANTHROPIC_MESSAGES, 'body');
  const messages = body['messages'] as { role: string; content: string | Json[] }[];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    const blocks = typeof m.content === 'string' ? [] : m.content;
    const uses = blocks.filter((b) => b['type'] === 'tool_use').map((b) => b['id'] as string);
    if (m.role === 'user' && uses.length > 0) return `messages.${i}: tool_use blocks are only for assistant turns`;
    if (m.role === 'assistant' && blocks.some((b) => b['type'] === 'tool_result')) return `messages.${i}: tool_result blocks are only for user turns`;
    // Each tool_use must be answered in the very next turn, by tool_result blocks that come first in its content.
    if (uses.length > 0) {
      const next = messages[i + 1];
      const nextBlocks = next === undefined || typeof next.content === 'string' ? [] : next.content;
      const results = nextBlocks.filter((b) => b['type'] === 'tool_result').map((b) => b['tool_use_id'] as string);
      const missing = uses.filter((id) => !results.includes(id));
      if (next !== undefined && missing.length > 0) return `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}`;
    }
    const firstOther = blocks.findIndex((b) => b['type'] !== 'tool_result');
    if (firstOther >= 0 && blocks.slice(firstOther).some((b) => b['type'] === 'tool_result')) return `messages.${i}: tool_result blocks must come first in the content, before any other block`;
    const previous = messages[i - 1];
    for (const b of blocks) {
      if (b['type'] !== 'tool_result') continue;
      const prevBlocks = previous === undefined || typeof previous.content === 'string' ? [] : previous.content;
      if (!prevBlocks.some((p) => p['type'] === 'tool_use' && p['id'] === b['tool_use_id'])) {
        return `messages.${i}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(b['tool_use_id'])}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
      }
    }
  }
  return null;
}

// Gemini's Schema: an OpenAPI 3.0 subset; any other key is "Unknown name" (a 400).
const GEMINI_SCHEMA_KEYS = new Set([
  'type', 'format', 'title', 'description', 'nullable', 'enum', 'maxItems', 'minItems', 'properties', 'required', 'minProperties', 'maxProperties',
  'minLength', 'maxLength', 'pattern', 'example', 'anyOf', 'propertyOrdering', 'default', 'items', 'minimum', 'maximum',
]);
const GEMINI_TYPES = new Set(['TYPE_UNSPECIFIED', 'STRING', 'NUMBER', 'INTEGER', 'BOOLEAN', 'ARRAY', 'OBJECT', 'NULL']);

function geminiSchemaProblem(s: unknown, at: string): string | null {
  if (s === null || typeof s !== 'object' || Array.isArray(s)) return `${at}: a Schema object`;
  for (const [k, v] of Object.entries(s as Json)) {
    if (!GEMINI_SCHEMA_KEYS.has(k)) return `Invalid JSON payload received. Unknown name "${k}" at '${at}': Cannot find field.`;
    if (k === 'type' && (typeof v !== 'string' || !GEMINI_TYPES.has(v.toUpperCase()))) return `${at}.type: invalid value ${JSON.stringify(v)}`;
    if (k === 'properties') {
      for (const [name, p] of Object.entries(v as Json)) {
        const problem = geminiSchemaProblem(p, `${at}.properties[${name}]`);
        if (problem) return problem;
      }
    }
    if (k === 'items') {
      const problem = geminiSchemaProblem(v, `${at}.items`);
      if (problem) return problem;
    }
    if (k === 'anyOf') {
      for (const [i, p] of (v as unknown[]).entries()) {
        const problem = geminiSchemaProblem(p, `${at}.anyOf[${i}]`);
        if (problem) return problem;
      }
    }
  }
  return null;
}

const GEMINI_PART = {
  type: 'object',
  properties: {
    text: { type: 'string' },
    inlineData: { type: 'object', properties: { mimeType: { type: 'string', minLength: 1 }, data: { type: 'string', minLength: 1 } }, required: ['mimeType', 'data'], additionalProperties: false },
    fileData: { type: 'object', properties: { mimeType: { type: 'string' }, fileUri: { type: 'string', minLength: 1 } }, required: ['fileUri'], additionalProperties: false },
    functionCall: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string', minLength: 1 }, args: { type: 'object' } }, required: ['name'], additionalProperties: false },
    functionResponse: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string', minLength: 1 }, response: { type: 'object' } }, required: ['name', 'response'], additionalProperties: false },
    thought: { type: 'boolean' },
    thoughtSignature: { type: 'string' },
  },
  additionalProperties: false,
  // One data field per part (`thought` and its signature may go beside it).
  oneOf: [{ required: ['text'] }, { required: ['inlineData'] }, { required: ['fileData'] }, { required: ['functionCall'] }, { required: ['functionResponse'] }],
};
const GEMINI_CONTENT = { type: 'object', properties: { role: { enum: ['user', 'model'] }, parts: { type: 'array', minItems: 1, items: GEMINI_PART } }, required: ['parts'], additionalProperties: false };

const GEMINI_GENERATE = ajv.compile({
  type: 'object',
  properties: {
    contents: { type: 'array', minItems: 1, items: GEMINI_CONTENT },
    systemInstruction: GEMINI_CONTENT,
    tools: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          functionDeclarations: {
            type: 'array',
            items: {
              type: 'object',
              properties: { name: { type: 'string', pattern: '^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$' }, description: { type: 'string' }, parameters: { type: 'object' }, parametersJsonSchema: {}, response: { type: 'object' }, responseJsonSchema: {} },
              required: ['name'],
              additionalProperties: false,
            },
          },
        },
        additionalProperties: false,
      },
    },
    toolConfig: {
      type: 'object',
      properties: {
        functionCallingConfig: {
          type: 'object',
          properties: { mode: { enum: ['MODE_UNSPECIFIED', 'AUTO', 'ANY', 'NONE', 'VALIDATED'] }, allowedFunctionNames: { type: 'array', items: { type: 'string' } } },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    },
    safetySettings: { type: 'array' },
    cachedContent: { type: 'string' },
    generationConfig: {
      type: 'object',
      properties: {
        stopSequences: { type: 'array', maxItems: 5, items: { type: 'string' } },
        responseMimeType: { enum: ['text/plain', 'application/json', 'text/x.enum'] },
        responseSchema: { type: 'object' },
        responseJsonSchema: {},
        candidateCount: { type: 'integer', minimum: 1 },
        maxOutputTokens: { type: 'integer', minimum: 1 },
        temperature: { type: 'number', minimum: 0, maximum: 2 },
        topP: { type: 'number', minimum: 0, maximum: 1 },
        topK: { type: 'integer', minimum: 1 },
        seed: { type: 'integer' },
        presencePenalty: { type: 'number' },
        frequencyPenalty: { type: 'number' },
        thinkingConfig: { type: 'object' },
      },
      additionalProperties: false,
    },
  },
  required: ['contents'],
  additionalProperties: false,
});

/** Why Gemini would refuse a generateContent request body (its 400 message), or null. */
export function geminiGenerateProblem(body: Json): string | null {
  if (!GEMINI_GENERATE(body)) return describe(GEMINI_GENERATE, 'GenerateContentRequest');
  for (const [ti, tool] of ((body['tools'] as Json[] | undefined) ?? []).entries()) {
    for (const [fi, f] of ((tool['functionDeclarations'] as Json[] | undefined) ?? []).entries()) {
      if (f['parameters'] !== undefined && f['parametersJsonSchema'] !== undefined) return `tools[${ti}].function_declarations[${fi}]: parameters and parameters_json_schema are mutually exclusive`;
      if (f['parameters'] !== undefined) {
        const problem = geminiSchemaProblem(f['parameters'], `tools[${ti}].function_declarations[${fi}].parameters`);
        if (problem) return problem;
      }
    }
  }
  const gen = body['generationConfig'] as Json | undefined;
  if (gen?.['responseSchema'] !== undefined) {
    if (gen['responseJsonSchema'] !== undefined) return 'generation_config: response_schema and response_json_schema are mutually exclusive';
    const problem = geminiSchemaProblem(gen['responseSchema'], 'generation_config.response_schema');
    if (problem) return problem;
  }
  if ((gen?.['responseSchema'] !== undefined || gen?.['responseJsonSchema'] !== undefined) && gen['responseMimeType'] !== 'application/json') {
    return 'generation_config.response_mime_type: a response schema needs response_mime_type application/json';
  }
  // A function response turn comes right after the function call turn, one response per call.
  const contents = body['contents'] as { role?: string; parts: Json[] }[];
  for (let i = 0; i < contents.length; i++) {
    const responses = contents[i]!.parts.filter((p) => p['functionResponse'] !== undefined).length;
    if (responses === 0) continue;
    const previous = contents[i - 1];
    const calls = previous?.role === 'model' ? previous.parts.filter((p) => p['functionCall'] !== undefined).length : 0;
    if (calls === 0) return 'Please ensure that function response turn comes immediately after a function call turn.';
    if (calls !== responses) return 'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.';
  }
  return null;
}

function describe(validate: ValidateFunction, root: string): string {
  const e = (validate.errors ?? [])[0] as ErrorObject | undefined;
  if (e === undefined) return `${root}: invalid`;
  const where = `${root}${e.instancePath.replaceAll('/', '.')}`;
  if (e.keyword === 'additionalProperties') return `${where}.${String(e.params['additionalProperty'])}: Extra inputs are not permitted`;
  return `${where}: ${e.message ?? 'invalid'}`;
}
