import type { Json, TranslatedRequest } from './chat-translator.js';
import { generationConfig, isObject, refuse, refuseInexpressible, toolConfig, tools } from './gemini-fields.js';
import { signatureOf } from './gemini-ids.js';

/** Gemini's documented stand-in signature for a function call it did not make (another provider's, a client's). */
const FOREIGN_SIGNATURE = 'skip_thought_signature_validator';

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** An image URL's extension as the media type Gemini is told (it needs one for a URL it fetches). */
const IMAGE_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif', heic: 'image/heic', heif: 'image/heif',
};

interface Content { role: 'user' | 'model'; parts: Json[] }

/** A tool call of an earlier assistant message: its function's name and place in that message. */
interface CallRef { name: string; position: number }

/** A tool message's answer waiting for the run of tool messages to end (ordered then by its call's place). */
interface PendingResponse { position: number; part: Json }

/** The translation of one request: the context every helper needs (target name for messages, the calls met so far). */
class RequestBuilder {
  readonly contents: Content[] = [];
  system: Json[] | null = null;
  private readonly calls = new Map<string, CallRef>();
  private pending: PendingResponse[] | null = null;

  constructor(private readonly target: string) {}

  fail(field: string, reason: string): never {
    return refuse(this.target, field, reason);
  }

  /** Appends parts to the conversation, merged into the last turn when it has the same role. */
  push(role: 'user' | 'model', parts: Json[]): void {
    if (parts.length === 0) return;
    const last = this.contents[this.contents.length - 1];
    if (last && last.role === role) for (const p of parts) last.parts.push(p);
    else this.contents.push({ role, parts });
  }

  /** The run of tool messages just read, as one user turn of functionResponse parts in the order of their calls. */
  flushResponses(): void {
    const pending = this.pending;
    if (!pending) return;
    this.pending = null;
    if (pending.length > 1) pending.sort((a, b) => a.position - b.position);
    const parts: Json[] = [];
    for (const p of pending) parts.push(p.part);
    this.push('user', parts);
  }

  messages(messages: unknown): void {
    if (!Array.isArray(messages) || messages.length === 0) this.fail('messages', 'needs a non-empty array of messages');
    for (let i = 0; i < messages.length; i++) {
      const m: unknown = messages[i];
      const field = `messages[${i}]`;
      if (!isObject(m)) this.fail(field, 'needs a message object');
      const role = m['role'];
      if (role === 'system' || role === 'developer') this.systemMessage(m['content'], `${field}.content`);
      else if (role === 'user') {
        this.flushResponses();
        this.push('user', this.userParts(m['content'], `${field}.content`));
      } else if (role === 'assistant') {
        this.flushResponses();
        this.assistant(m, field);
      } else if (role === 'tool') this.tool(m, field);
      else this.fail(`${field}.role`, `has no role ${JSON.stringify(role)} (system, developer, user, assistant and tool are translated)`);
    }
    this.flushResponses();
    if (this.contents.length === 0) this.fail('messages', 'needs a user or assistant message with content');
  }

  /** A message's text: a string or text parts (system, developer and tool messages take nothing else). */
  private text(content: unknown, field: string): string {
    if (typeof content === 'string') return content;
    if (content === null || content === undefined) return '';
    if (!Array.isArray(content)) this.fail(field, 'needs a string or an array of text parts');
    let text = '';
    for (let j = 0; j < content.length; j++) {
      const part: unknown = content[j];
      if (!isObject(part) || part['type'] !== 'text' || typeof part['text'] !== 'string') this.fail(`${field}[${j}]`, 'takes only text parts here');
      text += part['text'];
    }
    return text;
  }

  private systemMessage(content: unknown, field: string): void {
    const text = this.text(content, field);
    if (text === '') return;
    (this.system ??= []).push({ text });
  }

  private userParts(content: unknown, field: string): Json[] {
    if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
    if (!Array.isArray(content)) this.fail(field, 'needs a string or an array of content parts');
    const parts: Json[] = [];
    for (let j = 0; j < content.length; j++) {
      const part: unknown = content[j];
      const at = `${field}[${j}]`;
      if (!isObject(part)) this.fail(at, 'needs a content part object');
      const type = part['type'];
      if (type === 'text') {
        const text = part['text'];
        if (typeof text !== 'string') this.fail(`${at}.text`, 'needs a string');
        if (text !== '') parts.push({ text });
      } else if (type === 'image_url') parts.push(this.image(part['image_url'], `${at}.image_url`));
      else if (type === 'input_audio') parts.push(this.audio(part['input_audio'], `${at}.input_audio`));
      else if (type === 'file') parts.push(this.file(part['file'], `${at}.file`));
      else this.fail(`${at}.type`, `has no content part ${JSON.stringify(type)} (text, image_url, input_audio and file are translated)`);
    }
    return parts;
  }

  /** A data URL as inline bytes; an http(s) URL as file data Gemini fetches itself (the gateway never does). */
  private image(image: unknown, field: string): Json {
    const url = isObject(image) ? image['url'] : undefined;
    if (typeof url !== 'string') this.fail(`${field}.url`, 'needs a string');
    if (url.startsWith('data:')) return { inlineData: this.dataUrl(url, `${field}.url`) };
    if (!url.startsWith('https://') && !url.startsWith('http://')) this.fail(`${field}.url`, 'takes an image as a base64 data URL or an http(s) URL');
    return { fileData: { mimeType: imageType(url), fileUri: url } };
  }

  private audio(audio: unknown, field: string): Json {
    if (!isObject(audio) || typeof audio['data'] !== 'string') this.fail(`${field}.data`, 'needs base64 audio');
    const format = audio['format'];
    if (format !== 'wav' && format !== 'mp3') this.fail(`${field}.format`, 'takes wav or mp3 audio');
    return { inlineData: { mimeType: `audio/${format}`, data: audio['data'] } };
  }

  private file(file: unknown, field: string): Json {
    if (!isObject(file)) this.fail(field, 'needs a file object');
    const data = file['file_data'];
    if (typeof data !== 'string') this.fail(`${field}.file_data`, "takes a file as a base64 data URL (an OpenAI file_id names OpenAI's storage)");
    return { inlineData: this.dataUrl(data, `${field}.file_data`) };
  }

  /** `data:<media type>[;params];base64,<data>` as Gemini's Blob. */
  private dataUrl(url: string, field: string): Json {
    const comma = url.indexOf(',');
    const meta = comma < 0 ? '' : url.slice(5, comma);
    if (!meta.endsWith(';base64')) this.fail(field, 'takes a data URL only in base64');
    const semicolon = meta.indexOf(';');
    const mimeType = meta.slice(0, semicolon);
    if (mimeType === '') this.fail(field, 'needs a data URL naming its media type');
    return { mimeType, data: url.slice(comma + 1) };
  }

  private assistant(m: Json, field: string): void {
    if (m['audio'] != null) this.fail(`${field}.audio`, 'cannot replay an audio answer');
    if (m['function_call'] != null) this.fail(`${field}.function_call`, 'translates tool_calls, not the legacy function_call');
    const parts: Json[] = [];
    const content = m['content'];
    if (typeof content === 'string') {
      if (content !== '') parts.push({ text: content });
    } else if (Array.isArray(content)) {
      for (let j = 0; j < content.length; j++) {
        const part: unknown = content[j];
        const text = isObject(part) ? (part['type'] === 'text' ? part['text'] : part['type'] === 'refusal' ? part['refusal'] : undefined) : undefined;
        if (typeof text !== 'string') this.fail(`${field}.content[${j}]`, 'takes only text and refusal parts in an assistant message');
        if (text !== '') parts.push({ text });
      }
    } else if (content != null) this.fail(`${field}.content`, 'needs a string or an array of text parts');
    const calls = m['tool_calls'];
    if (Array.isArray(calls)) {
      for (let j = 0; j < calls.length; j++) parts.push(this.toolCall(calls[j], j, `${field}.tool_calls[${j}]`));
    } else if (calls != null) this.fail(`${field}.tool_calls`, 'needs an array');
    this.push('model', parts);
  }

  private toolCall(call: unknown, position: number, field: string): Json {
    if (!isObject(call) || call['type'] !== 'function') this.fail(`${field}.type`, 'translates only function tool calls');
    const id = call['id'];
    const fn = call['function'];
    if (typeof id !== 'string' || id === '') this.fail(`${field}.id`, 'needs a string');
    if (!isObject(fn) || typeof fn['name'] !== 'string') this.fail(`${field}.function.name`, 'needs a string');
    const name = fn['name'];
    const raw = fn['arguments'];
    let args: unknown = {};
    if (typeof raw === 'string' && raw.trim() !== '') {
      try {
        args = JSON.parse(raw);
      } catch {
        this.fail(`${field}.function.arguments`, 'needs a JSON object');
      }
    } else if (raw != null && raw !== '') this.fail(`${field}.function.arguments`, 'needs a JSON object');
    if (!isObject(args)) this.fail(`${field}.function.arguments`, 'needs a JSON object');
    this.calls.set(id, { name, position });
    const part: Json = { functionCall: { name, args } };
    // Gemini 3 refuses a step whose first call has no signature: a call it did not make gets the documented stand-in.
    const signature = signatureOf(id) ?? (position === 0 ? FOREIGN_SIGNATURE : null);
    if (signature !== null) part['thoughtSignature'] = signature;
    return part;
  }

  private tool(m: Json, field: string): void {
    const id = m['tool_call_id'];
    if (typeof id !== 'string') this.fail(`${field}.tool_call_id`, 'needs a string');
    const call = this.calls.get(id);
    if (!call) this.fail(`${field}.tool_call_id`, 'needs the assistant tool call with this id earlier in messages');
    const output = this.text(m['content'], `${field}.content`);
    // The result goes as text under Google's documented `output` key: a JSON result is read by the model as well as
    // text, and is never re-parsed (Gemini 3 resolves `$ref` keys inside a structured response).
    (this.pending ??= []).push({ position: call.position, part: { functionResponse: { name: call.name, response: { output } } } });
  }
}

function imageType(url: string): string {
  let end = url.length;
  const query = url.indexOf('?');
  if (query >= 0) end = query;
  const hash = url.indexOf('#');
  if (hash >= 0 && hash < end) end = hash;
  const dot = url.lastIndexOf('.', end);
  const slash = url.lastIndexOf('/', end);
  if (dot < 0 || dot < slash) return 'image/jpeg';
  return IMAGE_TYPES[url.slice(dot + 1, end).toLowerCase()] ?? 'image/jpeg';
}

/** Gemini's model path segment: the route's model name, a `models/` prefix allowed. */
function modelSegment(model: string): string {
  return encodeURIComponent(model.startsWith('models/') ? model.slice(7) : model);
}

export function geminiRequest(body: Json, model: string, target: string): TranslatedRequest {
  refuseInexpressible(body, target);
  const builder = new RequestBuilder(target);
  builder.messages(body['messages']);
  const out: Json = { contents: builder.contents };
  if (builder.system) out['systemInstruction'] = { parts: builder.system };
  const declared = body['tools'] == null ? null : tools(body['tools'], target);
  const hasTools = declared !== null && declared.length > 0;
  if (hasTools) out['tools'] = [{ functionDeclarations: declared }];
  const config = toolConfig(body['tool_choice'], hasTools, target);
  if (config) out['toolConfig'] = config;
  const generation = generationConfig(body, target);
  if (generation) out['generationConfig'] = generation;
  const stream = body['stream'] === true;
  const path = `/v1beta/models/${modelSegment(model)}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`;
  return { path, body: out, headers: NO_HEADERS, stream };
}
