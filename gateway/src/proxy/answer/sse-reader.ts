/**
 * Incremental reader of a text/event-stream (https://html.spec.whatwg.org/multipage/server-sent-events.html):
 * feed it bytes as they arrive, get back complete events. Only `data` matters for the chat-completion protocol;
 * other fields are kept verbatim so a re-encoded event loses nothing.
 */
export interface SseEvent {
  /** Joined data lines. */
  data: string;
  /** The event's other lines (event:, id:, retry:, comments), verbatim. */
  other: string[];
}

export class SseReader {
  #buffer = '';
  readonly #decoder = new TextDecoder('utf-8');

  /** Complete events found in `chunk` plus what was held from before. */
  push(chunk: Uint8Array): SseEvent[] {
    this.#buffer += this.#decoder.decode(chunk, { stream: true });
    return this.#drain();
  }

  /** Characters held for an event not ended yet (a reader that caps its memory checks this after each push). */
  get pending(): number {
    return this.#buffer.length;
  }

  /** Whatever is left at end of stream (an unterminated last event is still delivered). */
  end(): SseEvent[] {
    this.#buffer += this.#decoder.decode();
    if (this.#buffer.trim() === '') return [];
    this.#buffer += '\n\n';
    return this.#drain();
  }

  #drain(): SseEvent[] {
    const out: SseEvent[] = [];
    for (;;) {
      const m = /\r\n\r\n|\n\n|\r\r/.exec(this.#buffer);
      if (!m) break;
      const block = this.#buffer.slice(0, m.index);
      this.#buffer = this.#buffer.slice(m.index + m[0].length);
      const ev = parseBlock(block);
      if (ev) out.push(ev);
    }
    return out;
  }
}

function parseBlock(block: string): SseEvent | null {
  const data: string[] = [];
  const other: string[] = [];
  for (const line of block.split(/\r\n|\n|\r/)) {
    if (line.startsWith('data:')) data.push(line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5));
    else if (line !== '') other.push(line);
  }
  if (data.length === 0 && other.length === 0) return null;
  return { data: data.join('\n'), other };
}

export function encodeSse(ev: SseEvent): string {
  let s = '';
  for (const o of ev.other) s += `${o}\n`;
  if (ev.data !== '' || ev.other.length === 0) for (const line of ev.data.split('\n')) s += `data: ${line}\n`;
  return `${s}\n`;
}
