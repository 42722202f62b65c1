import { describe, expect, it } from 'vitest';
import { encodeSse, SseReader, sseEvents, type SseEvent } from './sse-reader.js';

const bytes = (s: string) => new TextEncoder().encode(s);

/** Feeds `text` one byte at a time, so every line and event is cut at every possible place. */
function readByteByByte(text: string): SseEvent[] {
  const reader = new SseReader();
  const all = bytes(text);
  const out: SseEvent[] = [];
  for (let i = 0; i < all.length; i++) out.push(...reader.push(all.subarray(i, i + 1)));
  return [...out, ...reader.end()];
}

describe('SseReader', () => {
  it('reads data, multi-line data, event and id fields however the bytes are cut, with LF, CRLF and CR line ends', () => {
    for (const nl of ['\n', '\r\n', '\r']) {
      const text = ['data: {"a":1}', '', 'event: message_start', 'data: {"b":2}', '', 'id: 7', 'data: one', 'data:two', '', ''].join(nl);
      expect(readByteByByte(text)).toEqual([
        { data: '{"a":1}', other: [] },
        { data: '{"b":2}', other: ['event: message_start'] },
        { data: 'one\ntwo', other: ['id: 7'] },
      ]);
    }
  });

  it('keeps multi-byte characters cut between chunks', () => {
    expect(readByteByByte('data: {"t":"héllo → 世界"}\n\n')).toEqual([{ data: '{"t":"héllo → 世界"}', other: [] }]);
  });

  it('delivers an unterminated last event at the end of the stream', () => {
    const reader = new SseReader();
    expect(reader.push(bytes('data: [DONE]'))).toEqual([]);
    expect(reader.end()).toEqual([{ data: '[DONE]', other: [] }]);
  });

  it('relays a keep-alive comment and an empty data field', () => {
    const events = readByteByByte(': ping\n\ndata:\n\n');
    expect(events.map(encodeSse).join('')).toBe(': ping\n\ndata: \n\n');
  });

  it('re-encodes what it read to the same events', () => {
    const text = 'event: content_block_delta\ndata: {"x":1}\n\ndata: a\ndata: b\n\n';
    const events = readByteByByte(text);
    expect(readByteByByte(events.map(encodeSse).join(''))).toEqual(events);
  });

  it('refuses an event that grows past the cap instead of holding it', () => {
    const reader = new SseReader({ maxPending: 1000 });
    expect(reader.push(bytes('data: small\n\n'))).toEqual([{ data: 'small', other: [] }]);
    expect(() => {
      for (let i = 0; i < 20; i++) reader.push(bytes(`data: ${'x'.repeat(100)}\n`));
    }).toThrow('stream event too large');
  });

  it('sseEvents: a last event ended by CR CR, held by push (a CR may be half of CRLF), comes out once the body ends', async () => {
    const last = 'data: {"id":2}\r\r';
    const reader = new SseReader();
    expect(reader.push(bytes(last))).toEqual([]);
    async function* body() {
      yield bytes('data: {"id":1}\r\r');
      yield bytes(last);
    }
    const out: SseEvent[] = [];
    for await (const events of sseEvents(body(), new SseReader())) out.push(...events);
    expect(out).toEqual([
      { data: '{"id":1}', other: [] },
      { data: '{"id":2}', other: [] },
    ]);
  });
});
