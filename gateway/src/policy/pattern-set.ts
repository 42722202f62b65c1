import RE2 from 're2';
import type { FilterEntry, PatternOwner } from './compiled-parts.js';

type RE2Set = InstanceType<typeof RE2.Set>;

/** A content-filter target compiled into one RE2.Set: one scan finds every pattern of every policy that matches. */
export class PatternSet {
  readonly set: RE2Set | null;
  readonly owners: PatternOwner[];
  constructor(entries: readonly FilterEntry[]) {
    this.owners = entries.map((e) => e.owner);
    this.set = entries.length ? new RE2.Set(entries.map((e) => (e.ci ? `(?i)${e.pattern}` : e.pattern)), 'u') : null;
  }
  /**
   * Owners with at least one matching pattern, each once. `utf8` is `text` already encoded, when the caller scans it
   * with other sets too: node-re2 converts a string argument to UTF-8 on every call, which costs several times what
   * `Buffer.from` does, and a set's answer (which patterns match) is the same on the bytes.
   */
  matches(text: string, out: PatternOwner[], utf8?: Buffer): void {
    if (!this.set || text.length === 0) return;
    const idx = this.set.match(utf8 ?? Buffer.from(text, 'utf8'));
    for (const i of idx) {
      const o = this.owners[i] as PatternOwner;
      if (!out.includes(o)) out.push(o);
    }
  }
}
