import { GatewayError } from '../../errors.js';
import type { Json } from './chat-translator.js';

/** The image types Anthropic's base64 source takes. */
const IMAGE_TYPES: ReadonlySet<string> = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

const BASE64 = ';base64,';

/** The ids Anthropic takes for a tool_use and its tool_result. */
const TOOL_ID = /^[a-zA-Z0-9_-]+$/;

/**
 * A tool call id as Anthropic takes it. Anthropic's own ids (and OpenAI's) pass unchanged, so a tool loop keeps them;
 * another provider's id with other characters (a dot, a colon) is encoded, the same way on the call and on its
 * result, so they still pair.
 */
function toolId(id: string): string {
  return TOOL_ID.test(id) ? id : `id_${Buffer.from(id, 'utf8').toString('base64url')}`;
}

type Role = 'user' | 'assistant';

interface Turn {
  readonly role: Role;
  readonly content: Json[];
}

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function refuse(field: string, target: string, why: string): never {
  throw new GatewayError('invalid_request', `${field}: target ${target} (anthropic) ${why}`);
}

function invalid(field: string, why: string): never {
  throw new GatewayError('invalid_request', `${field}: ${why}`);
}

/** A data URL's media type and base64 payload, null when it is not a base64 data URL. */
function dataUrl(url: string): { mediaType: string; data: string } | null {
  if (!url.startsWith('data:')) return null;
  const comma = url.indexOf(BASE64);
  if (comma < 0) return null;
  return { mediaType: url.slice(5, comma).toLowerCase(), data: url.slice(comma + BASE64.length) };
}

/** An `image_url` part: a data URL becomes a base64 source, an http(s) URL a URL source Anthropic fetches itself. */
function image(part: Json, field: string, target: string): Json {
  const holder = part['image_url'];
  const url = isObject(holder) ? holder['url'] : holder;
  if (typeof url !== 'string') invalid(`${field}.image_url.url`, 'required string');
  const inline = dataUrl(url);
  if (inline !== null) {
    if (!IMAGE_TYPES.has(inline.mediaType)) refuse(`${field}.image_url.url`, target, `takes JPEG, PNG, GIF or WebP images, not ${inline.mediaType || 'an untyped data URL'}`);
    return { type: 'image', source: { type: 'base64', media_type: inline.mediaType, data: inline.data } };
  }
  if (url.startsWith('https://') || url.startsWith('http://')) return { type: 'image', source: { type: 'url', url } };
  return refuse(`${field}.image_url.url`, target, 'takes images as http(s) URLs or base64 data URLs');
}

/** A `file` part: a PDF sent inline becomes a document block titled by its file name; OpenAI file ids mean nothing to Anthropic. */
function file(part: Json, field: string, target: string): Json {
  const f = part['file'];
  const data = isObject(f) ? f['file_data'] : undefined;
  if (typeof data !== 'string') refuse(`${field}.file`, target, 'takes files only inline as file_data (an OpenAI file_id is not its own)');
  const inline = dataUrl(data);
  if (inline === null || inline.mediaType !== 'application/pdf') refuse(`${field}.file.file_data`, target, 'takes inline files only as PDF data URLs');
  const doc: Json = { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: inline.data } };
  // The file's name tells the model what the document is, as Anthropic's title does.
  if (isObject(f) && typeof f['filename'] === 'string' && f['filename'] !== '') doc['title'] = f['filename'];
  return doc;
}

/** A user or tool message's content part as a content block, null for an empty text. */
function part(p: unknown, field: string, target: string): Json | null {
  if (!isObject(p)) return invalid(field, 'must be a content part object');
  switch (p['type']) {
    case 'text':
      if (typeof p['text'] !== 'string') invalid(`${field}.text`, 'required string');
      // Anthropic refuses empty text blocks; an empty text says nothing.
      return p['text'] === '' ? null : { type: 'text', text: p['text'] };
    case 'image_url':
      return image(p, field, target);
    case 'file':
      return file(p, field, target);
    case 'input_audio':
      return refuse(field, target, 'takes no audio');
    default:
      return refuse(`${field}.type`, target, `takes no ${String(p['type'])} content parts`);
  }
}

/** A message's `content` as content blocks (a string is one text block). */
function blocks(content: unknown, field: string, target: string, out: Json[]): Json[] {
  if (typeof content === 'string') {
    if (content !== '') out.push({ type: 'text', text: content });
    return out;
  }
  if (!Array.isArray(content)) invalid(field, 'must be a string or an array of content parts');
  for (let j = 0; j < content.length; j++) {
    const b = part(content[j], `${field}[${j}]`, target);
    if (b !== null) out.push(b);
  }
  return out;
}

/** A system or developer message's text, each of its texts a system text block. */
function systemBlocks(content: unknown, field: string, out: Json[]): void {
  if (typeof content === 'string') {
    if (content !== '') out.push({ type: 'text', text: content });
    return;
  }
  if (!Array.isArray(content)) invalid(field, 'must be a string or an array of text parts');
  for (let j = 0; j < content.length; j++) {
    const p: unknown = content[j];
    if (!isObject(p) || p['type'] !== 'text' || typeof p['text'] !== 'string') invalid(`${field}[${j}]`, 'system and developer messages take text parts only');
    if (p['text'] !== '') out.push({ type: 'text', text: p['text'] });
  }
}

/** An assistant message's tool call as a `tool_use` block, its arguments parsed (Anthropic takes the input as JSON). */
function toolUse(call: unknown, field: string, target: string): Json {
  if (!isObject(call)) invalid(field, 'must be a tool call object');
  if (call['type'] !== undefined && call['type'] !== 'function') refuse(`${field}.type`, target, `has no ${String(call['type'])} tool calls, only function calls`);
  if (typeof call['id'] !== 'string') invalid(`${field}.id`, 'required string');
  const fn = call['function'];
  if (!isObject(fn) || typeof fn['name'] !== 'string') invalid(`${field}.function.name`, 'required string');
  const args = fn['arguments'];
  let input: unknown = {};
  // A call without arguments may carry an empty string: it took none.
  if (typeof args === 'string' && args !== '') {
    try {
      input = JSON.parse(args);
    } catch {
      input = undefined;
    }
  } else if (args != null && args !== '') input = undefined;
  if (!isObject(input)) invalid(`${field}.function.arguments`, 'must be a JSON object in a string');
  return { type: 'tool_use', id: toolId(call['id']), name: fn['name'], input };
}

/** An assistant message's blocks: its text (and a refusal it gave), then its tool calls. */
function assistantBlocks(m: Json, field: string, target: string): Json[] {
  const out: Json[] = [];
  const content = m['content'];
  if (Array.isArray(content)) {
    for (let j = 0; j < content.length; j++) {
      const p: unknown = content[j];
      const f = `${field}.content[${j}]`;
      if (!isObject(p)) invalid(f, 'must be a content part object');
      // A refusal part is what the assistant said, as text.
      const text = p['type'] === 'text' ? p['text'] : p['type'] === 'refusal' ? p['refusal'] : refuse(`${f}.type`, target, `takes no ${String(p['type'])} parts in an assistant message`);
      if (typeof text !== 'string') invalid(f, 'must hold a string');
      if (text !== '') out.push({ type: 'text', text });
    }
  } else if (typeof content === 'string') {
    if (content !== '') out.push({ type: 'text', text: content });
  } else if (content != null) invalid(`${field}.content`, 'must be a string, an array of parts or null');
  if (typeof m['refusal'] === 'string' && m['refusal'] !== '') out.push({ type: 'text', text: m['refusal'] });
  if (m['audio'] != null) refuse(`${field}.audio`, target, 'takes no audio');
  if (m['function_call'] != null) refuse(`${field}.function_call`, target, 'takes tool_calls, not the legacy function_call');
  const calls = m['tool_calls'];
  if (calls != null) {
    if (!Array.isArray(calls)) invalid(`${field}.tool_calls`, 'must be an array');
    for (let j = 0; j < calls.length; j++) out.push(toolUse(calls[j], `${field}.tool_calls[${j}]`, target));
  }
  return out;
}

/** A tool message as a `tool_result` block answering the `tool_use` of the same id. */
function toolResult(m: Json, field: string, target: string): Json {
  const id = m['tool_call_id'];
  if (typeof id !== 'string') invalid(`${field}.tool_call_id`, 'required string');
  const out: Json = { type: 'tool_result', tool_use_id: toolId(id) };
  const content = m['content'];
  if (typeof content === 'string') {
    if (content !== '') out['content'] = content;
  } else {
    const parts = blocks(content, `${field}.content`, target, []);
    if (parts.length > 0) out['content'] = parts;
  }
  return out;
}

/** Adds blocks to the conversation: to the last turn when it is the same role's (Anthropic's turns alternate). */
function append(turns: Turn[], role: Role, content: Json[]): void {
  const last = turns[turns.length - 1];
  if (last !== undefined && last.role === role) {
    for (const b of content) last.content.push(b);
  } else turns.push({ role, content });
}

/** Adds a tool result to the user turn, before any text or image in it: Anthropic wants the results first. */
function appendResult(turns: Turn[], result: Json): void {
  const last = turns[turns.length - 1];
  if (last === undefined || last.role !== 'user') {
    turns.push({ role: 'user', content: [result] });
    return;
  }
  let at = 0;
  while (at < last.content.length && last.content[at]?.['type'] === 'tool_result') at++;
  if (at === last.content.length) last.content.push(result);
  else last.content.splice(at, 0, result);
}

/**
 * OpenAI's `messages` as Anthropic's `system` and alternating `messages`: system and developer messages, wherever
 * they stand, become system text blocks in their order; user messages and tool results make user turns, assistant
 * messages assistant turns, consecutive ones of a role merged into one turn.
 */
export function anthropicMessages(messages: unknown, target: string): { system: Json[] | null; messages: Turn[] } {
  if (!Array.isArray(messages)) invalid('messages', 'required array');
  let system: Json[] | null = null;
  const turns: Turn[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m: unknown = messages[i];
    const field = `messages[${i}]`;
    if (!isObject(m)) invalid(field, 'must be a message object');
    switch (m['role']) {
      case 'system':
      case 'developer':
        systemBlocks(m['content'], `${field}.content`, (system ??= []));
        break;
      case 'user':
        append(turns, 'user', blocks(m['content'], `${field}.content`, target, []));
        break;
      case 'assistant':
        append(turns, 'assistant', assistantBlocks(m, field, target));
        break;
      case 'tool':
        appendResult(turns, toolResult(m, field, target));
        break;
      case 'function':
        refuse(`${field}.role`, target, 'takes tool messages, not the legacy function role');
        break;
      default:
        invalid(`${field}.role`, `unknown role ${String(m['role'])}`);
    }
  }
  return { system: system !== null && system.length > 0 ? system : null, messages: turns };
}
