import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../errors.js';
import type { AnswerBody, UpstreamResponse } from '../upstream/upstream-client.js';
import type { ChatTranslator, Json } from './chat-translator.js';
import { translateAnswer } from './translated-answer.js';

// The byte plumbing around a translator: a provider's answer in, OpenAI's bytes out, whatever the translator maps.
// The translator here is a stand-in that says what it saw, so each test checks what the plumbing fed it and wrote.

const echo: ChatTranslator = {
  provider: 'anthropic',
  request: () => ({ path: '/v1/messages', body: {}, headers: {}, stream: false }),
  answer: (body, model) => ({ object: 'chat.completion', model, seen: body }),
  stream: (model, includeUsage) => {
    const names: (string | null)[] = [];
    return {
      event: (name, data) => {
        names.push(name);
        if (data['boom'] === true) throw new GatewayError('upstream_error', 'provider error event');
        return data['skip'] === true ? [] : [{ object: 'chat.completion.chunk', model, name, data }];
      },
      end: () => [{ object: 'chat.completion.chunk', model, ended: names.length, includeUsage }],
    };
  },
  error: (status, body) => ({ status: status === 529 ? 503 : status, body: { error: { message: JSON.stringify(body), type: 'x', param: null, code: null } } }),
};

class Body implements AnswerBody {
  destroyed: Error | undefined;
  constructor(private readonly chunks: readonly string[]) {}
  destroy(reason?: Error): void {
    this.destroyed = reason ?? new Error('destroyed');
  }
  async *[Symbol.asyncIterator](): AsyncIterator<Buffer> {
    for (const c of this.chunks) {
      if (this.destroyed) throw this.destroyed;
      yield Buffer.from(c);
    }
  }
}

const answer = (status: number, contentType: string, chunks: string[]): UpstreamResponse => ({ status, headers: { 'content-type': contentType, 'request-id': 'req_1' }, body: new Body(chunks) });

async function text(up: UpstreamResponse): Promise<string> {
  let s = '';
  for await (const c of up.body) s += c.toString();
  return s;
}

const options = { translator: echo, model: 'claude-x', stream: true, includeUsage: true, maxBytes: 1000 };

describe('a translated answer', () => {
  it('a stream: each provider event (split anywhere across chunks) becomes its chunks, keep-alives none, then the end and [DONE]', async () => {
    const up = await translateAnswer(answer(200, 'text/event-stream', ['event: a\ndata: {"n":', '1}\n\n: keep-alive\n\nevent: b\ndata: {"skip":true}\n\n', 'data: {"n":2}\n\n']), options);
    expect(up.status).toBe(200);
    expect(up.headers).toMatchObject({ 'content-type': 'text/event-stream; charset=utf-8', 'request-id': 'req_1' });
    const events = (await text(up)).split('\n\n').filter(Boolean);
    expect(events.at(-1)).toBe('data: [DONE]');
    expect(events.slice(0, -1).map((e) => JSON.parse(e.slice('data: '.length)) as Json)).toEqual([
      { object: 'chat.completion.chunk', model: 'claude-x', name: 'a', data: { n: 1 } },
      { object: 'chat.completion.chunk', model: 'claude-x', name: null, data: { n: 2 } },
      { object: 'chat.completion.chunk', model: 'claude-x', ended: 3, includeUsage: true },
    ]);
  });

  it('a stream whose last event has no blank line after it still delivers it', async () => {
    const up = await translateAnswer(answer(200, 'text/event-stream', ['data: {"n":1}']), options);
    expect(await text(up)).toContain('"data":{"n":1}');
  });

  it('a stream event the translator refuses, or one that is not JSON, ends the stream with a GatewayError', async () => {
    await expect(text(await translateAnswer(answer(200, 'text/event-stream', ['data: {"boom":true}\n\n']), options))).rejects.toThrow('provider error event');
    await expect(text(await translateAnswer(answer(200, 'text/event-stream', ['data: {not json\n\n']), options))).rejects.toThrow(/not JSON/);
  });

  it('a whole answer is read, translated and written once as JSON; a stream asked for but answered whole is read whole', async () => {
    const up = await translateAnswer(answer(200, 'application/json', ['{"a":', '1}']), options);
    expect(up.headers['content-type']).toBe('application/json');
    expect(JSON.parse(await text(up))).toEqual({ object: 'chat.completion', model: 'claude-x', seen: { a: 1 } });
    await expect(text(await translateAnswer(answer(200, 'application/json', ['[1]']), options))).rejects.toThrow(/invalid JSON/);
  });

  it("an error is read before its head: its status and body are the translator's (a body that is not JSON is given as null)", async () => {
    const up = await translateAnswer(answer(529, 'application/json', ['{"type":"error"}']), options);
    expect(up.status).toBe(503);
    expect(JSON.parse(await text(up))).toEqual({ error: { message: '{"type":"error"}', type: 'x', param: null, code: null } });
    const html = await translateAnswer(answer(502, 'text/html', ['<html>bad gateway</html>']), options);
    expect(JSON.parse(await text(html)).error.message).toBe('null');
  });

  it('a whole answer past the cap stops the provider and fails as an untranslated one does', async () => {
    const raw = answer(200, 'application/json', ['{"a":"', 'x'.repeat(1200), '"}']);
    await expect(text(await translateAnswer(raw, options))).rejects.toThrow(/larger than the gateway accepts/);
    expect((raw.body as Body).destroyed?.message).toBe('answer too large');
  });

  it("destroying the translated body stops the provider's", async () => {
    const raw = answer(200, 'text/event-stream', ['data: {"n":1}\n\n']);
    (await translateAnswer(raw, options)).body.destroy(new Error('client left'));
    expect((raw.body as Body).destroyed?.message).toBe('client left');
  });
});
