import { App, us_listen_socket_close, us_socket_local_port, type HttpResponse, type us_listen_socket } from 'uWebSockets.js';

/**
 * The benchmark's provider: an OpenAI-compatible endpoint on loopback that answers as fast as it can (uWS, canned
 * bodies), so the harness measures the gateway's overhead, not the mock's. Non-streamed chat returns a fixed
 * completion; streamed chat sends `streamChunks` content events, then usage and [DONE]. Anthropic's Messages API
 * (`/v1/messages`) and OpenAI's Responses API (`/v1/responses`) answer the same text in their own formats, whole or
 * streamed; so does Gemini's generateContent (`/v1/models/{model}:generateContent`, whole only).
 */
export interface MockProvider {
  url: string;
  port: number;
  close(): void;
}

/** The non-streamed chat completion's answer (the MCP benchmark sizes its tool result after it). */
export const CHAT_ANSWER = JSON.stringify({
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

const RESPONSE = {
  id: 'resp_bench',
  object: 'response',
  created_at: 1700000000,
  status: 'completed',
  model: 'gpt-4o-mini',
  output: [{ id: 'msg_bench', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Here is a short summary of the accounts that match your filters, grouped by segment.', annotations: [] }] }],
  usage: { input_tokens: 230, output_tokens: 18, total_tokens: 248 },
};
const RESPONSES_ANSWER = JSON.stringify(RESPONSE);

/** The same answer as the Responses API streams it: numbered, named events, one text delta per word. */
function responsesStream(streamChunks: number): { first: string; words: string[]; tail: string } {
  let n = 0;
  const ev = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify({ type: name, sequence_number: n++, ...(data as object) })}\n\n`;
  const started = { ...RESPONSE, status: 'in_progress', output: [], usage: null };
  const at = { item_id: 'msg_bench', output_index: 0, content_index: 0 };
  const first =
    ev('response.created', { response: started }) +
    ev('response.output_item.added', { output_index: 0, item: { id: 'msg_bench', type: 'message', status: 'in_progress', role: 'assistant', content: [] } }) +
    ev('response.content_part.added', { ...at, part: { type: 'output_text', text: '', annotations: [] } });
  const words = Array.from({ length: streamChunks }, (_, i) => ev('response.output_text.delta', { ...at, delta: `word${i} ` }));
  const text = Array.from({ length: streamChunks }, (_, i) => `word${i} `).join('');
  const part = { type: 'output_text', text, annotations: [] };
  const item = { id: 'msg_bench', type: 'message', status: 'completed', role: 'assistant', content: [part] };
  const tail =
    ev('response.output_text.done', { ...at, text }) +
    ev('response.content_part.done', { ...at, part }) +
    ev('response.output_item.done', { output_index: 0, item }) +
    ev('response.completed', { response: { ...RESPONSE, output: [item], usage: { input_tokens: 230, output_tokens: streamChunks, total_tokens: 230 + streamChunks } } });
  return { first, words, tail };
}

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

/** A route answering `whole`, or, when the body asks for a stream, the stream's events at once. */
function canned(whole: string, stream: { first: string; words: string[]; tail: string }): (res: HttpResponse) => void {
  return (res) => {
    let body = '';
    let aborted = false;
    res.onAborted(() => (aborted = true));
    res.onData((chunk, last) => {
      body += Buffer.from(chunk).toString('latin1');
      if (!last || aborted) return;
      res.cork(() => {
        if (!body.includes('"stream":true')) {
          res.writeHeader('content-type', 'application/json').end(whole);
          return;
        }
        res.writeHeader('content-type', 'text/event-stream').write(stream.first);
        for (const w of stream.words) res.write(w);
        res.end(stream.tail);
      });
    });
  };
}

export function startMockProvider(port = 0, streamChunks = 20): Promise<MockProvider> {
  const anthropic = anthropicStream(streamChunks);
  const responses = responsesStream(streamChunks);
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
          if (stream && body.includes('slow-stream')) {
            // Held-open stream (memory under concurrent streams): one content event every 20 ms. The marker is the
            // end of the prompt (`chatBody(true, ' slow-stream')`), so it is matched without quotes.
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
              res.writeHeader('content-type', 'application/json').end(CHAT_ANSWER);
              return;
            }
            res.writeHeader('content-type', 'text/event-stream').write(first);
            for (const w of words) res.write(w);
            res.end(tail);
          });
        });
      })
      .post('/v1/messages', canned(ANTHROPIC_ANSWER, anthropic))
      .post('/v1/responses', canned(RESPONSES_ANSWER, responses))
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
