/**
 * The one rule for names whose values are credentials: object keys in cassettes, request
 * and configured headers, and a stdio server's environment variables all use it. It is
 * unanchored (`authToken`, `x-auth-token`, `AWS_SECRET_ACCESS_KEY`, `privateKey` all match)
 * and errs towards redacting; the only exceptions are the protocol's own counters and
 * handles that merely contain such a word (`progressToken`, `maxTokens`, token counts). Pure.
 *
 * @module
 */

/** A credential word anywhere in a name. */
const CREDENTIAL_WORD = /token|secret|key|passw|passphrase|pwd|auth|cred|cookie|jwt|bearer|dpop/i;

/** Names that contain a credential word but hold none (a progress token, token counts). */
const NOT_CREDENTIAL = /^(?:progress_?token|max_?tokens|(?:input|output|total)_?tokens)$/i;

/**
 * Whether a key, header or environment variable name holds a credential.
 *
 * @param name The name, in any case.
 * @returns `true` for `authToken`, `GITHUB_TOKEN`, `x-auth-token`, `passphrase`, …;
 *   `false` for `progressToken`, `maxTokens` and ordinary names.
 *
 * @example
 * ```ts
 * import { isCredentialName } from "./credential_names.ts";
 *
 * if (!isCredentialName("AWS_SECRET_ACCESS_KEY") || isCredentialName("progressToken")) {
 *   throw new Error("unexpected");
 * }
 * ```
 */
export function isCredentialName(name: string): boolean {
  return CREDENTIAL_WORD.test(name) && !NOT_CREDENTIAL.test(name);
}

/**
 * The rule as a `RegExp` (for options that take one, such as a recording's `redactKeys`):
 * it matches exactly the names {@linkcode isCredentialName} accepts.
 */
export const CREDENTIAL_NAME: RegExp = new RegExp(
  `^(?!${NOT_CREDENTIAL.source.slice(1, -1)}$).*(?:${CREDENTIAL_WORD.source})`,
  "i",
);
