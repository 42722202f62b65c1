/**
 * A kind of change the main thread tells request threads of, so that what they cache says what its own caches say
 * (as Envoy's thread-local slots): the cache's owner declares its slot once, the main thread sends values through it
 * (`RequestThreads.notify`), and each request thread applies them with the handler it registered for the slot
 * (`NoticeHandlers.on`). Nothing in between knows the kinds. A value crosses threads by structured clone.
 */
export class NoticeSlot<T> {
  /** Only a type witness: the value a notice on this slot carries. */
  declare readonly value: T;

  constructor(readonly name: string) {}
}

/** A notice as it crosses: the slot's name and its value. */
export interface ThreadNotice {
  readonly slot: string;
  readonly value: unknown;
}

export function notice<T>(slot: NoticeSlot<T>, value: T): ThreadNotice {
  return { slot: slot.name, value };
}

/** A request thread's handlers, one per slot it caches for. */
export class NoticeHandlers {
  readonly #handlers = new Map<string, (value: unknown) => void>();

  on<T>(slot: NoticeSlot<T>, apply: (value: T) => void): this {
    if (this.#handlers.has(slot.name)) throw new Error(`a handler for notice slot '${slot.name}' is registered already`);
    this.#handlers.set(slot.name, apply as (value: unknown) => void);
    return this;
  }

  /** Applies a notice; one for a slot no handler caches for is a programming error, thrown to the caller's logger. */
  apply(n: ThreadNotice): void {
    const apply = this.#handlers.get(n.slot);
    if (apply === undefined) throw new Error(`no handler for notice slot '${n.slot}'`);
    apply(n.value);
  }
}
