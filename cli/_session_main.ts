/**
 * The entry of a kept session's background process (`connect` starts it): reads its
 * settings from standard input (so nothing of them shows on a process list), then runs the
 * session until it ends.
 *
 * @module
 */

import process from "node:process";
import { runSession, type SessionSettings } from "./_session_server.ts";

const SETTINGS_MAX = 1024 * 1024;

async function readSettings(): Promise<SessionSettings> {
  let text = "";
  for await (const chunk of process.stdin) {
    text += typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk as Uint8Array);
    if (text.length > SETTINGS_MAX) throw new TypeError("settings over 1 MiB");
  }
  return JSON.parse(text) as SessionSettings;
}

if (import.meta.main) {
  let code = 1;
  try {
    code = await runSession(await readSettings());
  } catch {
    code = 1;
  }
  process.exit(code);
}
