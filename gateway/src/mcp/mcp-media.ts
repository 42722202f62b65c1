import type { MediaSlot, MediaSlots } from '../policy/input-text.js';

/**
 * Where MCP's schema puts media in what a server sends: content blocks of type image and audio (`data`, `mimeType`),
 * embedded resources and `resources/read` contents (`blob`, `mimeType`), in tool results, prompts and sampling
 * messages. Everything else a server writes, `structuredContent` included, is free JSON and judged as text. A blob of a
 * text type (or whose bytes are text) is decoded and judged; redaction is written back encoded.
 */
export function mcpMedia(result: object): MediaSlots {
  let slots: Map<object, MediaSlot> | null = null;
  const add = (holder: Record<string, unknown>, key: string): void => {
    if (typeof holder[key] !== 'string') return;
    const type = holder['mimeType'];
    (slots ??= new Map()).set(holder, { key, mediaType: typeof type === 'string' ? type.toLowerCase() : '' });
  };
  const block = (b: unknown): void => {
    if (!isObject(b)) return;
    if (b['type'] === 'image' || b['type'] === 'audio') add(b, 'data');
    else if (b['type'] === 'resource' && isObject(b['resource'])) add(b['resource'], 'blob');
  };
  const blocks = (list: unknown): void => {
    if (Array.isArray(list)) for (const b of list) block(b);
    else block(list);
  };
  const r = result as Record<string, unknown>;
  blocks(r['content']);
  // resources/read: {contents: [{uri, mimeType, blob | text}]}
  const contents = r['contents'];
  if (Array.isArray(contents)) for (const c of contents) if (isObject(c)) add(c, 'blob');
  // prompts/get results and sampling/createMessage params: {messages: [{role, content}]}
  const messages = r['messages'];
  if (Array.isArray(messages)) for (const m of messages) if (isObject(m)) blocks(m['content']);
  return slots;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
