/**
 * Private: a bag of items each held in a numbered slot that is free again once its item
 * leaves. For what is added and dropped once per request (the controllers of an HTTP link's
 * requests in flight): under Bun a `Set` that takes and drops one entry per request keeps
 * what the requests in flight reach alive past the young collections, where an array of
 * slots does not.
 *
 * @module
 */

/** Items in numbered slots. */
export class Slots<T> {
  private items: (T | undefined)[] = [];
  private free: number[] = [];
  private count = 0;

  /** How many items are held. */
  get size(): number {
    return this.count;
  }

  /** Holds `item`; returns its slot, for {@linkcode Slots.drop}. */
  add(item: T): number {
    const slot = this.free.length > 0 ? this.free.pop()! : this.items.length;
    this.items[slot] = item;
    this.count++;
    return slot;
  }

  /**
   * Lets go of `item` in `slot` (nothing when the slot no longer holds it: taken out, or
   * free and taken again).
   */
  drop(slot: number, item: T): void {
    if (this.items[slot] !== item) return;
    this.items[slot] = undefined;
    this.free.push(slot);
    this.count--;
  }

  /** Takes every item out, and returns them. */
  take(): T[] {
    const out: T[] = [];
    for (const item of this.items) if (item !== undefined) out.push(item);
    this.items = [];
    this.free = [];
    this.count = 0;
    return out;
  }
}
