/**
 * Private: the pieced reader of long messages (`protocol/pieced_json.ts`), loaded on first
 * need. A client whose messages all stay short never loads it; a reader that sees a message
 * grow long asks for it early ({@linkcode loadLong}) and switches to it once it is there.
 *
 * @module
 */

import type { PiecedReader } from "../protocol/pieced_json.ts";

/** Messages from this many bytes on are read in pieces (when the reader has loaded). */
export const LONG_MESSAGE = 1024 * 1024;

let make: (() => PiecedReader) | undefined;
let loading: Promise<void> | undefined;

/**
 * Starts loading the pieced reader (once); resolves when it is there. A failed load is
 * forgotten (the next call tries again): until then, long messages are read whole.
 *
 * @returns When the reader can be made.
 */
export function loadLong(): Promise<void> {
  return loading ??= import("../protocol/pieced_json.ts").then((module) => {
    make = () => module.piecedReader();
  }, () => {
    loading = undefined;
  });
}

/**
 * A reader for one long message, or `undefined` while its module has not loaded (the load
 * starts then).
 *
 * @returns The reader, or `undefined`.
 */
export function longReader(): PiecedReader | undefined {
  if (make !== undefined) return make();
  void loadLong();
  return undefined;
}
