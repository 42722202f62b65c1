import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collectText, headedText } from './input-text.js';

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

  it('reads keys as text, ends with a separator when the root holds none, and leaves binary payloads out', () => {
    expect(headedText(['tool_call', 'POST'], { n: 1, list: [true, null] })).toBe('tool_call\nPOST\nn\nlist');
    expect(headedText(['tool_call'], {})).toBe('tool_call\n');
    const image = `data:image/png;base64,${'A'.repeat(100)}`;
    expect(headedText(['event'], { a: 'x', b: [image] })).toBe('event\na\nx\nb');
  });
});

describe('collectText on provider requests', () => {
  it("leaves Anthropic's base64 sources out and judges its text sources", () => {
    const body = {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB' } },
            { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'ana@example.com wrote this' } },
          ],
        },
      ],
    };
    const text = collectText(body);
    expect(text).not.toContain('iVBORw0KGgo');
    expect(text).toContain('ana@example.com wrote this');
  });
});
