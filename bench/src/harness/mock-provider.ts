import { App, us_listen_socket_close, us_socket_local_port, type us_listen_socket } from 'uWebSockets.js';

/**
 * The benchmark's provider: an OpenAI-compatible endpoint on loopback that answers as fast as it can (uWS, canned
 * bodies), so the harness measures the gateway's overhead, not the mock's. Non-streamed chat returns a fixed
 * completion; streamed chat sends `streamChunks` content events, then usage and [DONE]. Anthropic's Messages API
 * (`/v1/messages`) answers the same text in its own format, whole or streamed; so does Gemini's generateContent
 * (`/v1/models/{model}:generateContent`, whole only).
 */
export interface MockProvider {
  url: string;
  port: number;
  close(): void;
}

const ANSWER = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1700000000,
  model: 'gpt-4o-mini',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Here is a short summary of the accounts that match your filters, grouped by segment.' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 230, completion_tokens: 18, total_tokens: 248 },
});

function sse(obj: unknown): string {
  return `data: ${JSON.stringify(obj)}\n\n`;
}

const ANTHROPIC_ANSWER = JSON.stringify({
  id: 'msg_bench',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4',
  content: [{ type: 'text', text: 'Here is a short summary of the accounts that match your filters, grouped by segment.' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 230, output_tokens: 18 },
});

const GEMINI_ANSWER = JSON.stringify({
  candidates: [{ content: { role: 'model', parts: [{ text: 'Here is a short summary of the accounts that match your filters, grouped by segment.' }] }, finishReason: 'STOP', index: 0 }],
  usageMetadata: { promptTokenCount: 230, candidatesTokenCount: 18, totalTokenCount: 248 },
  modelVersion: 'gemini-2.0-flash',
});

/** The same answer as Anthropic's Messages API streams it: named events, one text delta per word. */
function anthropicStream(streamChunks: number): { first: string; words: string[]; tail: string } {
  const ev = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify({ type: name, ...(data as object) })}\n\n`;
  const message = { id: 'msg_bench', type: 'message', role: 'assistant', model: 'claude-sonnet-4', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 230, output_tokens: 1 } };
  return {
    first: ev('message_start', { message }) + ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    words: Array.from({ length: streamChunks }, (_, i) => ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: `word${i} ` } })),
    tail: ev('content_block_stop', { index: 0 }) + ev('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: streamChunks } }) + ev('message_stop', {}),
  };
}

export function startMockProvider(port = 0, streamChunks = 20): Promise<MockProvider> {
  const anthropic = anthropicStream(streamChunks);
  const base = { id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1700000000, model: 'gpt-4o-mini' };
  const first = sse({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
  const words = Array.from({ length: streamChunks }, (_, i) => sse({ ...base, choices: [{ index: 0, delta: { content: `word${i} ` }, finish_reason: null }] }));
  const tail = sse({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }) + sse({ ...base, choices: [], usage: { prompt_tokens: 230, completion_tokens: streamChunks, total_tokens: 230 + streamChunks } }) + 'data: [DONE]\n\n';
  return new Promise((resolve, reject) => {
    let socket: us_listen_socket | null = null;
    const app = App()
      .post('/v1/chat/completions', (res) => {
        let body = '';
        let aborted = false;
        res.onAborted(() => (aborted = true));
        res.onData((chunk, last) => {
          body += Buffer.from(chunk).toString('latin1');
          if (!last || aborted) return;
          const stream = body.includes('"stream":true');
          if (stream && body.includes('"slow-stream"')) {
            // Held-open stream (memory under concurrent streams): one content event every 20 ms.
            res.cork(() => res.writeHeader('content-type', 'text/event-stream').write(first));
            let i = 0;
            const timer = setInterval(() => {
              if (aborted) return clearInterval(timer);
              res.cork(() => {
                if (i < words.length) res.write(words[i++] as string);
                else {
                  clearInterval(timer);
                  res.end(tail);
                }
              });
            }, 20);
            return;
          }
          res.cork(() => {
            if (!stream) {
              res.writeHeader('content-type', 'application/json').end(ANSWER);
              return;
            }
            res.writeHeader('content-type', 'text/event-stream').write(first);
            for (const w of words) res.write(w);
            res.end(tail);
          });
        });
      })
      .post('/v1/messages', (res) => {
        let body = '';
        let aborted = false;
        res.onAborted(() => (aborted = true));
        res.onData((chunk, last) => {
          body += Buffer.from(chunk).toString('latin1');
          if (!last || aborted) return;
          res.cork(() => {
            if (!body.includes('"stream":true')) {
              res.writeHeader('content-type', 'application/json').end(ANTHROPIC_ANSWER);
              return;
            }
            res.writeHeader('content-type', 'text/event-stream').write(anthropic.first);
            for (const w of anthropic.words) res.write(w);
            res.end(anthropic.tail);
          });
        });
      })
      .post('/v1/models/*', (res) => {
        // Gemini's generateContent: the same answer in its format.
        res.onAborted(() => undefined);
        res.onData((_chunk, last) => {
          if (last) res.cork(() => res.writeHeader('content-type', 'application/json').end(GEMINI_ANSWER));
        });
      })
      .get('/v1/models', (res) => {
        res.writeHeader('content-type', 'application/json').end('{"object":"list","data":[]}');
      })
      .listen('127.0.0.1', port, (s) => {
        if (!s) return reject(new Error(`mock provider: cannot listen on ${port}`));
        socket = s;
        const p = us_socket_local_port(s as unknown as Parameters<typeof us_socket_local_port>[0]);
        resolve({ url: `http://127.0.0.1:${p}/v1`, port: p, close: () => socket && us_listen_socket_close(socket) });
      });
    void app;
  });
}
