/**
 * `--verbose`: every message over the transport printed on standard error as it goes, through
 * the library's `record` (so credentials are redacted as in a cassette: the header values
 * given, credential-named keys, bearer tokens; ids and the client's identity are shown as a
 * cassette holds them).
 *
 * @module
 */

import type { Transport } from "../mod.ts";
import { record } from "../testing/mod.ts";
import { clean } from "./_format.ts";
import { paint, type Terminal } from "./terminal.ts";

/** Prints each message of `transport` on standard error, redacted (see `record`). */
export function tapped(transport: Transport, term: Terminal, secrets: string[]): Transport {
  const recording = record(transport, { redact: secrets });
  let shown = 0;
  const flush = () => {
    for (; shown < recording.entries.length; shown++) {
      const entry = recording.entries[shown];
      const lines: string[] = [];
      if (entry.dir === "send" || entry.dir === "recv") {
        lines.push(
          `${entry.dir === "send" ? "→" : "←"} ${entry.dir} ${JSON.stringify(entry.message)}`,
        );
      } else if (entry.dir === "probe") {
        const { status, body } = entry.outcome;
        lines.push(`→ probe ${JSON.stringify(entry.message)}`, `← probe HTTP ${status} ${body}`);
      } else {
        const { dir, t: _t, ...rest } = entry as unknown as Record<string, unknown>;
        lines.push(`· ${dir}${Object.keys(rest).length > 0 ? ` ${JSON.stringify(rest)}` : ""}`);
      }
      // On a terminal, over the progress line (it is drawn again on its next tick).
      const erase = term.tty ? "\r\x1b[2K" : "";
      for (const line of lines) term.err(erase + paint(term.color, "dim", clean(line)) + "\n");
    }
  };
  return {
    ...recording,
    async open(sink) {
      const link = await recording.open({
        ...sink,
        message(message) {
          sink.message(message);
          flush();
        },
        closed(error) {
          flush();
          sink.closed(error);
        },
      });
      flush();
      return {
        ...link,
        send(message, options) {
          const sent = link.send(message, options);
          flush();
          return sent;
        },
        probe: link.probe && (async (request, options) => {
          try {
            return await link.probe!(request, options);
          } finally {
            flush();
          }
        }),
      };
    },
  };
}
