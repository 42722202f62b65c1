import type { MediaSlot, MediaSlots } from '../../policy/input-text.js';

/**
 * Where each wire format's schema puts media in a request: images, audio and files as base64, and the provider's own
 * ciphertexts (reasoning state, thinking signatures). Only these positions may hold bytes the policies skip, and only
 * when the bytes really are base64 of something that is not text (the walker checks); a key of the same name anywhere
 * else (inside tool arguments, say) is text like any other.
 *
 * Each locator reads just its format's fixed structure (messages, their parts, a tool result's parts), so it costs a
 * few property reads per message and allocates only when media is there.
 */
export type MediaLocator = (body: Record<string, unknown>) => MediaSlots;

/** A provider's opaque state: base64 with no media type of its own. */
const OPAQUE = 'application/octet-stream';

type Slots = Map<object, MediaSlot>;

function add(slots: Slots | null, holder: unknown, key: string, mediaType: string): Slots | null {
  if (!isObject(holder) || typeof holder[key] !== 'string') return slots;
  (slots ??= new Map()).set(holder, { key, mediaType });
  return slots;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function str(v: unknown): string {
  return typeof v === 'string' ? v.toLowerCase() : '';
}

/** OpenAI's `input_audio.format` ('wav', 'mp3') as a media type. */
function audioType(audio: unknown): string {
  const format = isObject(audio) ? str(audio['format']) : '';
  return format === '' ? '' : `audio/${format === 'mp3' ? 'mpeg' : format}`;
}

/** Chat completions (OpenAI, Azure): `messages[].content[]` parts `image_url.url`, `input_audio.data`, `file.file_data`. */
export const openaiChatMedia: MediaLocator = (body) => {
  let slots: Slots | null = null;
  const messages = body['messages'];
  if (!Array.isArray(messages)) return null;
  for (const m of messages) {
    if (!isObject(m) || !Array.isArray(m['content'])) continue;
    for (const part of m['content']) {
      if (!isObject(part)) continue;
      const type = part['type'];
      if (type === 'image_url') slots = add(slots, part['image_url'], 'url', '');
      else if (type === 'input_audio') slots = add(slots, part['input_audio'], 'data', audioType(part['input_audio']));
      else if (type === 'file') slots = add(slots, part['file'], 'file_data', '');
    }
  }
  return slots;
};

/** A Responses content part list (a message's `content`, a tool output's `output`). */
function responsesParts(slots: Slots | null, parts: unknown): Slots | null {
  if (!Array.isArray(parts)) return slots;
  for (const part of parts) {
    if (!isObject(part)) continue;
    const type = part['type'];
    if (type === 'input_image') slots = add(slots, part, 'image_url', '');
    else if (type === 'input_file') slots = add(slots, part, 'file_data', '');
    else if (type === 'input_audio') slots = add(slots, part['input_audio'], 'data', audioType(part['input_audio']));
  }
  return slots;
}

/**
 * Responses' items (a request's `input`, a stored response's input items): message parts, tool outputs' parts, and
 * the `encrypted_content` of reasoning and compaction items.
 */
export function responsesItemsMedia(items: unknown): MediaSlots {
  let slots: Slots | null = null;
  if (!Array.isArray(items)) return null;
  for (const item of items) {
    if (!isObject(item)) continue;
    const type = item['type'];
    if (type === 'reasoning' || type === 'compaction') slots = add(slots, item, 'encrypted_content', OPAQUE);
    else if (type === 'function_call_output' || type === 'custom_tool_call_output') slots = responsesParts(slots, item['output']);
    else slots = responsesParts(slots, item['content']);
  }
  return slots;
}

export const openaiResponsesMedia: MediaLocator = (body) => responsesItemsMedia(body['input']);

/** Anthropic's content blocks: base64 sources of images and documents, thinking signatures, redacted thinking. */
function anthropicBlocks(slots: Slots | null, blocks: unknown): Slots | null {
  if (!Array.isArray(blocks)) return slots;
  for (const block of blocks) {
    if (!isObject(block)) continue;
    const type = block['type'];
    if (type === 'image' || type === 'document') {
      const source = block['source'];
      if (isObject(source) && source['type'] === 'base64') slots = add(slots, source, 'data', str(source['media_type']));
    } else if (type === 'thinking') slots = add(slots, block, 'signature', OPAQUE);
    else if (type === 'redacted_thinking') slots = add(slots, block, 'data', OPAQUE);
    else if (type === 'tool_result') slots = anthropicBlocks(slots, block['content']);
  }
  return slots;
}

/** Anthropic Messages (and count_tokens): `messages[].content[]`, a tool result's own blocks included. */
export const anthropicMedia: MediaLocator = (body) => {
  let slots: Slots | null = null;
  const messages = body['messages'];
  if (!Array.isArray(messages)) return null;
  for (const m of messages) if (isObject(m)) slots = anthropicBlocks(slots, m['content']);
  return slots;
};

/** Gemini's parts (the API takes proto JSON names in either case): `inlineData.data`, `thoughtSignature`. */
function geminiParts(slots: Slots | null, content: unknown): Slots | null {
  if (!isObject(content) || !Array.isArray(content['parts'])) return slots;
  for (const part of content['parts']) {
    if (!isObject(part)) continue;
    const inline = part['inlineData'] ?? part['inline_data'];
    if (isObject(inline)) slots = add(slots, inline, 'data', str(inline['mimeType'] ?? inline['mime_type']));
    if (typeof part['thoughtSignature'] === 'string') slots = add(slots, part, 'thoughtSignature', OPAQUE);
    else if (typeof part['thought_signature'] === 'string') slots = add(slots, part, 'thought_signature', OPAQUE);
  }
  return slots;
}

function geminiContents(slots: Slots | null, req: unknown): Slots | null {
  if (!isObject(req)) return slots;
  const contents = req['contents'];
  if (Array.isArray(contents)) for (const c of contents) slots = geminiParts(slots, c);
  slots = geminiParts(slots, req['systemInstruction'] ?? req['system_instruction']);
  return slots;
}

/**
 * Gemini: generateContent and its stream (`contents`, `systemInstruction`), countTokens (either, or a
 * `generateContentRequest`), embedContent (`content`) and batchEmbedContents (`requests[].content`).
 */
export const geminiMedia: MediaLocator = (body) => {
  let slots = geminiContents(null, body);
  slots = geminiContents(slots, body['generateContentRequest'] ?? body['generate_content_request']);
  slots = geminiParts(slots, body['content']);
  const requests = body['requests'];
  if (Array.isArray(requests)) for (const r of requests) if (isObject(r)) slots = geminiParts(slots, r['content']);
  return slots;
};
