/**
 * What a root (the gateway, the control plane, a request thread) opened, closed in the reverse order (as avvio's
 * `onClose`): each part registers how it closes as it is opened, and the same list runs on close and on a start that
 * fails part-way, so both paths close the same parts in the same order and nothing opened is left open. A closer that
 * throws is reported and the others still run.
 */
export class Lifecycle {
  readonly #closers: { readonly name: string; readonly close: () => unknown }[] = [];
  #closing: Promise<void> | null = null;

  constructor(private readonly onError: (err: unknown, name: string) => void) {}

  /** Registers how `name` closes: it runs before everything registered earlier. */
  onClose(name: string, close: () => unknown): void {
    if (this.#closing !== null) throw new Error(`${name}: registered while closing`);
    this.#closers.push({ name, close });
  }

  /** Registers `part`'s own close and returns it: `const store = life.own('store', openStore())`. */
  own<T extends { close(): unknown }>(name: string, part: T): T {
    this.onClose(name, () => part.close());
    return part;
  }

  /** Runs `build`; if it throws, closes what was opened so far, then throws its error. */
  async start<T>(build: () => Promise<T>): Promise<T> {
    try {
      return await build();
    } catch (err) {
      await this.close();
      throw err;
    }
  }

  /** Closes every registered part, the last registered first; once (later calls get the same promise). */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      for (const { name, close } of [...this.#closers].reverse()) {
        try {
          await close();
        } catch (err) {
          this.onError(err, name);
        }
      }
    })();
    return this.#closing;
  }
}
