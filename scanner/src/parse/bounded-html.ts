import { DomHandler, type Document } from 'domhandler';
import { Parser } from 'htmlparser2';
import { JudgingLimitError } from '../checks/judging-limits.js';

export interface HtmlBounds {
  readonly maxElements: number;
  readonly maxDepth: number;
}

/** Thrown from inside the parser's callbacks to stop it; turned into a JudgingLimitError below. */
class Stop extends Error {}

/** Counts open elements as the parser reports them and stops it past either cap. */
class BoundedHandler extends DomHandler {
  depth = 0;
  elements = 0;

  constructor(private readonly bounds: HtmlBounds) {
    super(null, null);
  }

  override onopentag(name: string, attribs: { [key: string]: string }): void {
    this.elements++;
    this.depth++;
    if (this.depth > this.bounds.maxDepth || this.elements > this.bounds.maxElements) throw new Stop();
    super.onopentag(name, attribs);
  }

  override onclosetag(): void {
    this.depth--;
    super.onclosetag();
  }
}

/**
 * Parses a page with htmlparser2 (what cheerio's `load` does with these options), within element and depth caps.
 * The caps are checked while parsing because the parser's own work per open tag grows with the depth of the open
 * elements: 100,000 nested tags cost it seconds, so the depth must be refused before it is reached, not after.
 */
export function parseHtmlBounded(html: string, bounds: HtmlBounds): Document {
  const handler = new BoundedHandler(bounds);
  const parser = new Parser(handler, { xmlMode: false, decodeEntities: true });
  try {
    parser.end(html);
  } catch (err) {
    if (!(err instanceof Stop)) throw err;
    throw new JudgingLimitError(
      handler.depth > bounds.maxDepth
        ? `the page nests elements deeper than ${String(bounds.maxDepth)} levels: its markup was not judged`
        : `the page has more than ${String(bounds.maxElements)} elements: its markup was not judged`,
    );
  }
  return handler.root;
}
