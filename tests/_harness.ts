/**
 * The one test file that knows its runner: `test` and `@std/assert`-style assertions that
 * work the same under `deno test` and `bun test`.
 *
 * @module
 */

/** Options for {@linkcode test}. */
export interface TestOptions {
  /** Skip the test (give the reason in the name or a comment). */
  ignore?: boolean;
  /** Fail the test after this many milliseconds (default 20 000). */
  timeout?: number;
}

type TestFn = () => void | Promise<void>;

// deno-lint-ignore no-explicit-any
const g = globalThis as any;
const isBun = typeof g.Bun !== "undefined";
const bunSpecifier = "bun:test";
// deno-lint-ignore no-explicit-any
const bunTest: any = isBun ? (await import(bunSpecifier)).test : undefined;

/** The runtime the tests run in. */
export const runtime: "deno" | "bun" = isBun ? "bun" : "deno";

function withTimeout(fn: TestFn, ms: number, name: string): () => Promise<void> {
  // The timer is armed before the body runs: a test may replace `setTimeout` while it runs.
  return async () => await within(ms, `Test "${name}"`, fn);
}

/**
 * Registers a test with the current runner.
 *
 * @param name What the test shows.
 * @param fn The test body.
 * @param options `ignore` and `timeout`.
 */
export function test(name: string, fn: TestFn, options: TestOptions = {}): void {
  const timeout = options.timeout ?? 20_000;
  if (isBun) {
    if (options.ignore) bunTest.skip(name, fn);
    else bunTest(name, withTimeout(fn, timeout, name), timeout + 1_000);
    return;
  }
  g.Deno.test({
    name,
    ignore: options.ignore ?? false,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: withTimeout(fn, timeout, name),
  });
}

/**
 * Settles as `work` does, or rejects with "`what` timed out after `ms` ms" (and whatever
 * `detail` then says) when it has not settled by then: a step that hangs fails as itself, not
 * as the whole test's timeout. Each test runs under it too. A function is called once the
 * timer is armed.
 */
export async function within<T>(
  ms: number,
  what: string,
  work: Promise<T> | (() => T | Promise<T>),
  detail: () => string = () => "",
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const more = detail();
      reject(new Error(`${what} timed out after ${ms} ms${more ? `\n${more}` : ""}`));
    }, ms);
  });
  try {
    const promise = typeof work === "function" ? (async () => await work())() : work;
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `resource`, whose disposal fails after `ms` with "`what` timed out after `ms` ms" rather
 * than holding the test until its own timeout: `await using _ = bounded(15_000, "the client
 * closing", client)`.
 */
export function bounded(ms: number, what: string, resource: AsyncDisposable): AsyncDisposable {
  return {
    [Symbol.asyncDispose]: () =>
      within(ms, what, async () => await resource[Symbol.asyncDispose]()),
  };
}

/** An assertion failed. */
export class AssertionError extends Error {
  /** @param message What did not hold. */
  constructor(message: string) {
    super(message);
    this.name = "AssertionError";
  }
}

function stringify(value: unknown): string {
  try {
    return JSON.stringify(value, (_k, v) => typeof v === "bigint" ? `${v}n` : v) ?? String(value);
  } catch {
    return String(value);
  }
}

function equal(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    return a.length === b.length && a.every((x, i) => x === b[i]);
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (a instanceof Map && b instanceof Map) {
    return a.size === b.size && [...a].every(([k, v]) => b.has(k) && equal(v, b.get(k)));
  }
  if (a instanceof Set && b instanceof Set) {
    return a.size === b.size && [...a].every((v) => b.has(v));
  }
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (ka.length !== kb.length) return false;
  return ka.every((k) =>
    equal((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])
  );
}

/** Asserts deep equality (undefined members are ignored, as in `@std/assert`). */
export function assertEquals<T>(actual: T, expected: T, msg?: string): void {
  if (!equal(actual, expected)) {
    throw new AssertionError(
      `${msg ? msg + ": " : ""}values are not equal\n  actual:   ${stringify(actual)}\n` +
        `  expected: ${stringify(expected)}`,
    );
  }
}

/** Asserts deep inequality. */
export function assertNotEquals<T>(actual: T, expected: T, msg?: string): void {
  if (equal(actual, expected)) {
    throw new AssertionError(`${msg ? msg + ": " : ""}values are equal: ${stringify(actual)}`);
  }
}

/** Asserts strict (`Object.is`) equality. */
export function assertStrictEquals<T>(actual: unknown, expected: T, msg?: string): void {
  if (!Object.is(actual, expected)) {
    throw new AssertionError(
      `${msg ? msg + ": " : ""}${stringify(actual)} is not ${stringify(expected)}`,
    );
  }
}

/** Asserts that `expr` is truthy. */
export function assert(expr: unknown, msg = "expected a truthy value"): asserts expr {
  if (!expr) throw new AssertionError(msg);
}

/** Asserts that `actual` is neither `null` nor `undefined`. */
export function assertExists<T>(actual: T, msg?: string): asserts actual is NonNullable<T> {
  if (actual === null || actual === undefined) {
    throw new AssertionError(msg ?? `expected a value, got ${actual}`);
  }
}

/** Asserts that `actual` contains `expected`. */
export function assertStringIncludes(actual: string, expected: string, msg?: string): void {
  if (!actual.includes(expected)) {
    throw new AssertionError(
      `${msg ? msg + ": " : ""}${stringify(actual)} does not include ${stringify(expected)}`,
    );
  }
}

/** Asserts that `actual` matches `expected`. */
export function assertMatch(actual: string, expected: RegExp, msg?: string): void {
  if (!expected.test(actual)) {
    throw new AssertionError(
      `${msg ? msg + ": " : ""}${stringify(actual)} does not match ${expected}`,
    );
  }
}

/** Asserts `actual` is an instance of `type`. */
export function assertInstanceOf<T>(
  actual: unknown,
  // deno-lint-ignore no-explicit-any
  type: abstract new (...args: any[]) => T,
  msg?: string,
): asserts actual is T {
  if (!(actual instanceof type)) {
    throw new AssertionError(msg ?? `expected an instance of ${type.name}`);
  }
}

/** Asserts that an array includes every listed value (deep equality). */
export function assertArrayIncludes<T>(actual: readonly T[], expected: readonly T[], msg?: string) {
  const missing = expected.filter((e) => !actual.some((a) => equal(a, e)));
  if (missing.length) {
    throw new AssertionError(`${msg ? msg + ": " : ""}missing ${stringify(missing)}`);
  }
}

/** Fails the test. */
export function fail(msg = "failed"): never {
  throw new AssertionError(msg);
}

function checkError(
  error: unknown,
  // deno-lint-ignore no-explicit-any
  ErrorClass?: abstract new (...args: any[]) => Error,
  msgIncludes?: string,
): void {
  if (ErrorClass && !(error instanceof ErrorClass)) {
    throw new AssertionError(
      `expected ${ErrorClass.name}, got ${(error as Error)?.name}: ${(error as Error)?.message}`,
    );
  }
  if (msgIncludes !== undefined && !String((error as Error)?.message).includes(msgIncludes)) {
    throw new AssertionError(
      `expected the message to include ${stringify(msgIncludes)}, got ${
        stringify((error as Error)?.message)
      }`,
    );
  }
}

/** Asserts that `fn` throws; returns the error. */
export function assertThrows<E extends Error = Error>(
  fn: () => unknown,
  // deno-lint-ignore no-explicit-any
  ErrorClass?: abstract new (...args: any[]) => E,
  msgIncludes?: string,
): E {
  try {
    fn();
  } catch (error) {
    checkError(error, ErrorClass, msgIncludes);
    return error as E;
  }
  throw new AssertionError("expected the function to throw");
}

/** Asserts that `fn` rejects; returns the error. */
export async function assertRejects<E extends Error = Error>(
  fn: () => PromiseLike<unknown>,
  // deno-lint-ignore no-explicit-any
  ErrorClass?: abstract new (...args: any[]) => E,
  msgIncludes?: string,
): Promise<E> {
  try {
    await fn();
  } catch (error) {
    checkError(error, ErrorClass, msgIncludes);
    return error as E;
  }
  throw new AssertionError("expected the promise to reject");
}

/**
 * The command that runs a TypeScript script under the current runtime, for tests that
 * spawn fixture servers: `deno run -A <script>` under Deno, `bun <script>` under Bun.
 *
 * @param script A path or `file:` URL of a `.ts` file.
 * @returns The executable and its arguments.
 */
export function scriptCommand(script: string | URL): { command: string; args: string[] } {
  const path = script instanceof URL || script.startsWith("file:")
    ? decodeURIComponent(new URL(script).pathname)
    : script;
  if (isBun) return { command: g.process.execPath, args: [path] };
  return { command: g.Deno.execPath(), args: ["run", "-A", path] };
}
