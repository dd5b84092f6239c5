/**
 * A stack for walks that run on every message (the secret-field walk, the size count before a check): it
 * keeps its room between walks, where a new array per walk, grown as it is filled, was most of what the
 * walk allocated. Cutting an array's length to 0 frees its room in V8, so `top` counts instead.
 * A walk must not start another on the same stack; `clear` in a `finally` leaves it empty for the next.
 */
export class ReusedStack<T> {
  private readonly items: Array<T | undefined> = [];
  top = 0;

  push(item: T): void {
    this.items[this.top++] = item;
  }

  /** Two at once: a container and its walk's state beside it. */
  pushPair(a: T, b: T): void {
    this.items[this.top++] = a;
    this.items[this.top++] = b;
  }

  pop(): T {
    const item = this.items[--this.top] as T;
    // Not kept alive by the stack once popped.
    this.items[this.top] = undefined;
    return item;
  }

  /** Drops what is left (a walk that stopped early), keeping the room. */
  clear(): void {
    while (this.top > 0) this.items[--this.top] = undefined;
  }
}
