/**
 * `--verbose`: every message over the transport printed on standard error as it goes, as it
 * went (the client's own `clientInfo`, the real ids and progress tokens, times), through the
 * library's `record` with `normalize: false`, so only credentials are redacted (the header
 * values given, credential-named keys, bearer tokens); and each line a stdio server wrote on
 * stdout that is not JSON-RPC, redacted the same way. Every line goes through `clean`.
 *
 * @module
 */

import type { Transport } from "../mod.ts";
import { createSecrets } from "../protocol/secrets.ts";
import { record } from "../testing/mod.ts";
import { clean } from "./_format.ts";
import { paint, type Terminal } from "./terminal.ts";

/** Prints each message of `transport` on standard error, redacted (see `record`). */
export function tapped(transport: Transport, term: Terminal, secrets: string[]): Transport {
  const recording = record(transport, { redact: secrets, normalize: false });
  const known = createSecrets();
  for (const secret of secrets) known.add(secret, true);
  const redact = (text: string) =>
    known.text(text).replace(/\b(Bearer|Basic|DPoP)\s+[A-Za-z0-9._~+/=-]{8,}/g, "$1 [redacted]");
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
        skipped(line) {
          flush();
          const erase = term.tty ? "\r\x1b[2K" : "";
          const text = `← not JSON-RPC, skipped: ${redact(line)}`;
          term.err(erase + paint(term.color, "yellow", clean(text)) + "\n");
          sink.skipped?.(line);
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
