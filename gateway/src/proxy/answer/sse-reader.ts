import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser';

/**
 * Incremental reader of a text/event-stream (https://html.spec.whatwg.org/multipage/server-sent-events.html):
 * feed it bytes as they arrive, get back complete events. The parsing is eventsource-parser's (twice the speed of
 * the hand-written reader it replaced on a streamed answer: docs/benchmarks-history.md, "Libraries against
 * hand-written code"). Only `data` matters for the chat-completion protocol; the event's other fields are kept so a
 * re-encoded event means the same to the client. Comments (keep-alives) and `retry:` come out as events of their
 * own; a block with no data line dispatches nothing in a client, and is not relayed.
 */
export interface SseEvent {
  /** Joined data lines. */
  data: string;
  /** The event's other lines (event:, id:, retry:, comments). */
  other: string[];
}

export interface SseReaderOptions {
  /** Characters an event not ended yet may hold; beyond it push throws (one event that never ends must not hold memory). */
  maxPending?: number;
}

export class SseReader {
  #out: SseEvent[] = [];
  #tooLarge = false;
  readonly #decoder = new TextDecoder('utf-8');
  readonly #parser: EventSourceParser;

  constructor(options: SseReaderOptions = {}) {
    this.#parser = createParser({
      onEvent: (m) => this.#out.push({ data: m.data, other: fieldsOf(m) }),
      onComment: (c) => this.#out.push({ data: '', other: [`: ${c}`] }),
      onRetry: (ms) => this.#out.push({ data: '', other: [`retry: ${ms}`] }),
      // Unknown fields and a malformed retry are ignored, as the standard says; only the cap is an error.
      onError: (err) => {
        if (err.type === 'max-buffer-size-exceeded') this.#tooLarge = true;
      },
      ...(options.maxPending === undefined ? {} : { maxBufferSize: options.maxPending }),
    });
  }

  /** Complete events found in `chunk` plus what was held from before. */
  push(chunk: Uint8Array): SseEvent[] {
    this.#parser.feed(this.#decoder.decode(chunk, { stream: true }));
    if (this.#tooLarge) throw new Error('stream event too large');
    return this.#take();
  }

  /**
   * Whatever is left at end of stream (an unterminated last event is still delivered, and so is one whose last line
   * ended with a lone CR: the parser holds a CR back until it knows no LF follows).
   */
  end(): SseEvent[] {
    this.#parser.feed(`${this.#decoder.decode()}\n\n`);
    return this.#take();
  }

  #take(): SseEvent[] {
    const out = this.#out;
    if (out.length > 0) this.#out = [];
    return out;
  }
}

/**
 * The events of a whole stream, a list per chunk as the chunks arrive, then what `end()` finds once the body has
 * ended: reading a stream this way cannot forget its last event.
 */
export async function* sseEvents(body: AsyncIterable<unknown>, reader: SseReader): AsyncGenerator<SseEvent[]> {
  for await (const chunk of body) yield reader.push(chunk as Uint8Array);
  yield reader.end();
}

function fieldsOf(m: EventSourceMessage): string[] {
  if (m.event === undefined && m.id === undefined) return [];
  const other: string[] = [];
  if (m.event !== undefined) other.push(`event: ${m.event}`);
  if (m.id !== undefined) other.push(`id: ${m.id}`);
  return other;
}

export function encodeSse(ev: SseEvent): string {
  let s = '';
  for (const o of ev.other) s += `${o}\n`;
  if (ev.data !== '' || ev.other.length === 0) for (const line of ev.data.split('\n')) s += `data: ${line}\n`;
  return `${s}\n`;
}
