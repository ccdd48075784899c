/**
 * Private: the variables of config files. In a string value, `${env:NAME}` and `${NAME}`
 * are the environment variable (`${NAME:-fallback}` with a fallback when it is unset or
 * empty), `${input:id}` a VS Code input (the `inputs` option's answer, else the input's
 * `default`), and a name of the `variables` option (such as `workspaceFolder`) its value.
 * Anything else left unset is an error naming the key.
 *
 * @module
 */

import { configError, type ConfigPlace } from "./_config_error.ts";

/** A VS Code input: `{ type: "promptString", id, description, password }`. */
export interface ConfigInput {
  /** Its id, as `${input:id}` names it. */
  id: string;
  /** Its type, e.g. `"promptString"` or `"pickString"`. */
  type?: string;
  /** What to ask for. */
  description?: string;
  /** Its default value. */
  default?: string;
  /** Whether the answer is a secret. */
  password?: boolean;
  /** A `pickString`'s choices. */
  options?: string[];
}

/** Where variables come from. */
export interface Sources {
  /** Reads an environment variable. */
  env(name: string): string | undefined;
  /** Answers an input (may ask a person). */
  input(input: ConfigInput): string | undefined | Promise<string | undefined>;
  /** Named values such as `workspaceFolder`. */
  variables: Readonly<Record<string, string>>;
  /** The inputs the file declares, by id. */
  inputs: ReadonlyMap<string, ConfigInput>;
}

const PATTERN = /\$\{([^}]*)\}/g;

/**
 * Expands the variables of one string value.
 *
 * @param value The value.
 * @param sources Where variables come from.
 * @param place The file, entry and key, for errors.
 * @returns The expanded value.
 * @throws {McpError} kind `config`, reason `undefined_variable`, `unknown_input` or
 *   `missing_input`.
 */
export async function expand(value: string, sources: Sources, place: ConfigPlace): Promise<string> {
  if (!value.includes("${")) return value;
  let result = "";
  let at = 0;
  for (const match of value.matchAll(PATTERN)) {
    result += value.slice(at, match.index) + await resolve(match[1], sources, place);
    at = match.index + match[0].length;
  }
  return result + value.slice(at);
}

async function resolve(name: string, sources: Sources, place: ConfigPlace): Promise<string> {
  if (name.startsWith("input:")) {
    const id = name.slice(6);
    const input = sources.inputs.get(id);
    if (input === undefined) {
      throw configError(place, "unknown_input", `\${input:${id}} names no input of the file`);
    }
    const answer = await sources.input(input) ?? input.default;
    if (typeof answer !== "string") {
      throw configError(
        place,
        "missing_input",
        `\${input:${id}} has no answer (pass it in the inputs option) and no default`,
      );
    }
    return answer;
  }
  const fallbackAt = name.indexOf(":-");
  const variable = fallbackAt === -1 ? name : name.slice(0, fallbackAt);
  const fallback = fallbackAt === -1 ? undefined : name.slice(fallbackAt + 2);
  if (!variable.startsWith("env:") && Object.hasOwn(sources.variables, variable)) {
    return sources.variables[variable];
  }
  const envName = variable.startsWith("env:") ? variable.slice(4) : variable;
  const found = envName === "" ? undefined : sources.env(envName);
  if (found !== undefined && found !== "") return found;
  if (fallback !== undefined) return fallback;
  if (found !== undefined) return found;
  throw configError(
    place,
    "undefined_variable",
    `\${${name}} is not set (an environment variable, or a name of the variables option)`,
  );
}
