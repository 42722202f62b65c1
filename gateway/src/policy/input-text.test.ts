import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anthropicMedia, geminiMedia, openaiChatMedia, openaiResponsesMedia } from '../proxy/formats/request-media.js';
import { collectStrings, collectText, headedText, walkText } from './input-text.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex').toString('base64');
const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
const SECRET = 'Please email bob@example.com, card 4111 1111 1111 1111';
const redactEmail = (t: string): string => t.replaceAll('bob@example.com', '[REDACTED:EMAIL]');

describe('headedText', () => {
  it('is the head and the root text joined by newlines, whatever the root holds', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { minLength: 1, maxLength: 3 }), fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 4 })), (head, root) => {
        const expected = [...head, collectText(root)].join('\n');
        expect(headedText([...head], root)).toBe(expected);
      }),
      { seed: 5, numRuns: 500 },
    );
  });

  it('reads keys as text, ends with a separator when the root holds none, and judges a data URL in free JSON as written', () => {
    expect(headedText(['tool_call', 'POST'], { n: 1, list: [true, null] })).toBe('tool_call\nPOST\nn\nlist');
    expect(headedText(['tool_call'], {})).toBe('tool_call\n');
    const image = `data:image/png;base64,${PNG}`;
    expect(headedText(['event'], { a: 'x', b: [image] })).toBe(`event\na\nx\nb\n${image}`);
  });
});

describe('free JSON (tool arguments, decide payloads, events): nothing the sender writes hides text', () => {
  it('judges a data: prefix that is not base64 as written', () => {
    const text = collectText({ note: `data:text/plain;base64, ${SECRET}` });
    expect(text).toContain(SECRET);
  });

  it('judges base64 of text decoded as well, whatever media type it claims, and writes redaction back encoded', () => {
    for (const v of [`data:text/plain;base64,${b64(SECRET)}`, `data:image/png;base64,${b64(SECRET)}`, b64(SECRET)]) {
      const root = { payload: { v } };
      expect(collectText(root)).toContain(SECRET);
      walkText(root, redactEmail);
      const out = root.payload.v;
      const decoded = Buffer.from(out.slice(out.indexOf(',') + 1), 'base64').toString('utf8');
      expect(decoded).toContain('[REDACTED:EMAIL]');
      expect(decoded).not.toContain('bob@example.com');
    }
  });

  it('never skips a value by its key name: the old binary keys are text inside free JSON', () => {
    const root = {
      file_data: SECRET,
      input_audio: { data: SECRET },
      encrypted_content: SECRET,
      nested: { type: 'base64', data: SECRET, mimeType: 'image/png' },
    };
    const strings = collectStrings(root);
    expect(strings.filter((s) => s === SECRET)).toHaveLength(4);
  });

  it('judges bare base64 of binary as written (a secret in it is still seen)', () => {
    expect(collectText({ blob: PNG })).toContain(PNG);
  });

  it('visits the same strings when collecting and when replacing, in the same order', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 })), fc.string(), (root, text) => {
        const withEncoded = { ...root, x: b64(text + ' bob@example.com'), y: `data:text/plain;base64,${b64(text)}` };
        const strings = collectStrings(structuredClone(withEncoded));
        let i = 0;
        const copy = structuredClone(withEncoded);
        walkText(copy, () => strings[i++]!);
        expect(i).toBe(strings.length);
        expect(copy).toEqual(withEncoded);
      }),
      { seed: 7, numRuns: 300 },
    );
  });
});

describe('wire formats: media only where the schema puts it, and only when it is really base64 of non-text bytes', () => {
  it("OpenAI chat: an image's, audio's or file's bytes are skipped; a text-typed or fake one is judged", () => {
    const body = {
      model: 'gpt-4o',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
            { type: 'input_audio', input_audio: { data: PNG, format: 'wav' } },
            { type: 'file', file: { file_data: `data:text/plain;base64,${b64(SECRET)}`, filename: 'a.txt' } },
            { type: 'image_url', image_url: { url: `data:image/png;base64, ${SECRET}` } },
            { type: 'text', text: 'hi', file_data: `data:application/pdf;base64,${PNG}` },
          ],
        },
      ],
    };
    const strings = collectStrings(body, undefined, [], openaiChatMedia(body));
    expect(strings).not.toContain(`data:image/png;base64,${PNG}`);
    expect(strings).not.toContain(PNG);
    expect(strings).toContain(SECRET);
    expect(strings).toContain(`data:image/png;base64, ${SECRET}`);
    // `file_data` outside a `file` part is not a media position.
    expect(strings).toContain(`data:application/pdf;base64,${PNG}`);
  });

  it('OpenAI Responses: input images and files, reasoning ciphertext; a reasoning item cannot hide prose', () => {
    const body = {
      input: [
        { role: 'user', content: [{ type: 'input_image', image_url: `data:image/png;base64,${PNG}` }, { type: 'input_file', file_data: b64(SECRET) }] },
        { type: 'reasoning', encrypted_content: PNG, summary: [] },
        { type: 'reasoning', encrypted_content: SECRET, summary: [] },
        { type: 'function_call_output', call_id: 'c', output: [{ type: 'input_image', image_url: `data:image/jpeg;base64,${PNG}` }] },
      ],
    };
    const strings = collectStrings(body, undefined, [], openaiResponsesMedia(body));
    expect(strings.some((s) => s.includes(PNG))).toBe(false);
    expect(strings.filter((s) => s === SECRET)).toHaveLength(2);
  });

  it("Anthropic: base64 sources and thinking signatures; a text source and a text-typed base64 source are judged", () => {
    const body = {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
            { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'ana@example.com wrote this' } },
            { type: 'document', source: { type: 'base64', media_type: 'text/plain', data: b64(SECRET) } },
            { type: 'tool_result', tool_use_id: 't', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }] },
            { type: 'tool_use', id: 'u', name: 'x', input: { type: 'base64', data: SECRET } },
          ],
        },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'hm', signature: PNG }] },
      ],
    };
    const strings = collectStrings(body, undefined, [], anthropicMedia(body));
    expect(strings.some((s) => s.includes(PNG))).toBe(false);
    expect(strings).toContain('ana@example.com wrote this');
    expect(strings.filter((s) => s === SECRET)).toHaveLength(2);
  });

  it('Gemini: inline data by mimeType (either spelling), thought signatures; text-typed inline data is judged', () => {
    const body = {
      contents: [
        {
          role: 'user',
          parts: [
            { inlineData: { mimeType: 'image/png', data: PNG } },
            { inline_data: { mime_type: 'application/json', data: b64(`{"who":"${SECRET}"}`) } },
            { text: 'x', thoughtSignature: PNG },
            { functionResponse: { name: 'f', response: { mimeType: 'image/png', data: SECRET } } },
          ],
        },
      ],
    };
    const strings = collectStrings(body, undefined, [], geminiMedia(body));
    expect(strings.some((s) => s.includes(PNG))).toBe(false);
    expect(strings.some((s) => s.includes(SECRET) && s.startsWith('{'))).toBe(true);
    expect(strings).toContain(SECRET);
  });

  it('writes a redaction of base64 text in a media position back as base64 of the same media type', () => {
    const body = { messages: [{ role: 'user', content: [{ type: 'file', file: { file_data: `data:text/plain;base64,${b64(SECRET)}` } }] }] };
    walkText(body, redactEmail, undefined, openaiChatMedia(body));
    const url = (body.messages[0]!.content[0]!.file as { file_data: string }).file_data;
    expect(url.startsWith('data:text/plain;base64,')).toBe(true);
    expect(Buffer.from(url.slice(23), 'base64').toString('utf8')).toBe(redactEmail(SECRET));
  });
});
