/**
 * What the example server offers, the same in both eras: four tools, one prompt and one
 * resource. Each handler returns a plain result, or throws a {@linkcode RpcError}.
 *
 * @module
 */

// deno-lint-ignore no-explicit-any
type Json = any;
type Schema = Record<string, Json>;

/** A JSON-RPC error to send back (thrown by handlers). */
export interface RpcError {
  /** The JSON-RPC error code. */
  code: number;
  /** A message for people. */
  message: string;
  /** Extra data. */
  data?: unknown;
}

/** Builds a {@linkcode RpcError} to throw. */
export function rpcError(code: number, message: string, data?: unknown): RpcError {
  return data === undefined ? { code, message } : { code, message, data };
}

interface ToolDef {
  name: string;
  title: string;
  description: string;
  inputSchema: Schema;
  outputSchema: Schema;
  annotations: Record<string, boolean>;
  run(args: Json): Json | Promise<Json>;
}

const obj = (properties: Schema, required: string[]): Schema => ({
  type: "object",
  properties,
  required,
  additionalProperties: false,
});
const str = { type: "string" };
const num = { type: "number" };
const int = { type: "integer" };
const pure = { readOnlyHint: true, openWorldHint: false };

// mulberry32: a tiny seedable PRNG, so a seeded roll is reproducible.
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Scale = [toKelvin: (value: number) => number, fromKelvin: (kelvin: number) => number];
const TEMPERATURE: Record<string, Scale> = {
  celsius: [(c) => c + 273.15, (k) => k - 273.15],
  fahrenheit: [(f) => (f - 32) * 5 / 9 + 273.15, (k) => (k - 273.15) * 9 / 5 + 32],
  kelvin: [(k) => k, (k) => k],
};
const METRES: Record<string, number> = {
  mm: 0.001,
  cm: 0.01,
  m: 1,
  km: 1000,
  in: 0.0254,
  ft: 0.3048,
  yd: 0.9144,
  mi: 1609.344,
};
const UNITS = [...Object.keys(TEMPERATURE), ...Object.keys(METRES)];

function convert(value: number, from: string, to: string): number {
  if (from in TEMPERATURE && to in TEMPERATURE) {
    return TEMPERATURE[to][1](TEMPERATURE[from][0](value));
  }
  if (from in METRES && to in METRES) return value * METRES[from] / METRES[to];
  throw new Error(`Cannot convert ${from} to ${to}: they measure different things`);
}

const TOOLS: ToolDef[] = [{
  name: "word_count",
  title: "Word count",
  description: "Counts the words, lines and characters of a text.",
  inputSchema: obj({ text: str }, ["text"]),
  outputSchema: obj({ words: int, lines: int, characters: int }, ["words", "lines", "characters"]),
  annotations: pure,
  run: ({ text }: { text: string }) => ({
    words: text.split(/\s+/u).filter((word) => word !== "").length,
    lines: text === "" ? 0 : text.replace(/\r?\n$/, "").split(/\r?\n/).length,
    characters: [...text].length,
  }),
}, {
  name: "roll_dice",
  title: "Roll dice",
  description: 'Rolls dice in NdM+K notation, e.g. "3d6+2". Pass a seed to repeat a roll.',
  inputSchema: obj({
    dice: {
      type: "string",
      pattern: "^([1-9][0-9]?|100)d([2-9]|[1-9][0-9]{1,3})([+-][0-9]{1,4})?$",
    },
    seed: { type: "integer", minimum: 0, maximum: 4294967295 },
  }, ["dice"]),
  outputSchema: obj(
    { dice: str, rolls: { type: "array", items: int }, total: int, seed: int },
    ["dice", "rolls", "total", "seed"],
  ),
  annotations: { openWorldHint: false },
  run({ dice, seed }: { dice: string; seed?: number }) {
    const [, count, sides, modifier] = /^(\d+)d(\d+)([+-]\d+)?$/.exec(dice)!.map(Number);
    seed ??= crypto.getRandomValues(new Uint32Array(1))[0];
    const next = rng(seed);
    const rolls = Array.from({ length: count }, () => 1 + Math.floor(next() * sides));
    const total = rolls.reduce((sum, roll) => sum + roll, modifier || 0);
    return { dice, rolls, total, seed };
  },
}, {
  name: "convert_units",
  title: "Convert units",
  description: `Converts a temperature or a length. Units: ${UNITS.join(", ")}.`,
  inputSchema: obj({
    value: num,
    from: { ...str, enum: UNITS },
    to: { ...str, enum: UNITS },
  }, ["value", "from", "to"]),
  outputSchema: obj({ value: num, from: str, to: str, result: num }, [
    "value",
    "from",
    "to",
    "result",
  ]),
  annotations: pure,
  run: ({ value, from, to }: { value: number; from: string; to: string }) => ({
    value,
    from,
    to,
    result: Number(convert(value, from, to).toPrecision(12)),
  }),
}, {
  name: "hash",
  title: "Hash",
  description: "Hashes a text (UTF-8) with SHA-256 (default), SHA-384 or SHA-512; hex output.",
  inputSchema: obj({
    text: str,
    algorithm: { ...str, enum: ["SHA-256", "SHA-384", "SHA-512"], default: "SHA-256" },
  }, ["text"]),
  outputSchema: obj({ algorithm: str, hex: str }, ["algorithm", "hex"]),
  annotations: pure,
  async run({ text, algorithm = "SHA-256" }: { text: string; algorithm?: string }) {
    const digest = await crypto.subtle.digest(algorithm, new TextEncoder().encode(text));
    const hex = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0"));
    return { algorithm, hex: hex.join("") };
  },
}];

/** Checks `value` against the small subset of JSON Schema the tools above use. */
function check(schema: Schema, value: Json, path: string): string | undefined {
  const type = Array.isArray(value) ? "array" : value === null ? "null" : typeof value;
  if (schema.type === "integer" && !Number.isInteger(value)) return `${path} must be an integer`;
  if (schema.type && schema.type !== "integer" && schema.type !== type) {
    return `${path} must be of type ${schema.type}`;
  }
  if (schema.enum && !schema.enum.includes(value)) {
    return `${path} must be one of ${schema.enum.join(", ")}`;
  }
  if (schema.pattern && !new RegExp(schema.pattern).test(value)) {
    return `${path} must match ${schema.pattern}`;
  }
  if (schema.minimum !== undefined && value < schema.minimum) return `${path} is too small`;
  if (schema.maximum !== undefined && value > schema.maximum) return `${path} is too large`;
  if (schema.type !== "object") return undefined;
  for (const key of schema.required ?? []) {
    if (!(key in value)) return `${path}.${key} is required`;
  }
  for (const key of Object.keys(value)) {
    if (!(key in schema.properties)) return `${path}.${key} is not a known argument`;
    const problem = check(schema.properties[key], value[key], `${path}.${key}`);
    if (problem) return problem;
  }
  return undefined;
}

const failed = (message: string) => ({ content: [{ type: "text", text: message }], isError: true });

async function callTool(params: Json): Promise<Json> {
  const tool = TOOLS.find((t) => t.name === params?.name);
  if (!tool) throw rpcError(-32602, `Unknown tool: ${params?.name}`);
  const args = params.arguments ?? {};
  // Invalid arguments and failures are tool errors (isError), which the model can act on.
  const problem = check(tool.inputSchema, args, "arguments");
  if (problem) return failed(problem);
  try {
    const structuredContent = await tool.run(args);
    return {
      content: [{ type: "text", text: JSON.stringify(structuredContent) }],
      structuredContent,
    };
  } catch (error) {
    return failed(error instanceof Error ? error.message : String(error));
  }
}

const PROMPT = {
  name: "proofread",
  title: "Proofread",
  description: "Asks the model to proofread a text, optionally in a given tone.",
  arguments: [
    { name: "text", description: "The text to proofread", required: true },
    { name: "tone", description: "formal or casual (default: keep the author's)" },
  ],
};

function getPrompt(params: Json): Json {
  if (params?.name !== PROMPT.name) throw rpcError(-32602, `Unknown prompt: ${params?.name}`);
  const { text, tone } = params.arguments ?? {};
  if (typeof text !== "string") throw rpcError(-32602, "Missing required argument: text");
  const how = tone ? ` Use a ${tone} tone.` : "";
  const request = `Proofread the text below: fix spelling and grammar, keep its meaning.${how}`;
  return {
    description: PROMPT.description,
    messages: [{ role: "user", content: { type: "text", text: `${request}\n\n${text}` } }],
  };
}

const RESOURCE = {
  uri: "example://units",
  name: "units",
  title: "Units",
  description: "The units convert_units understands, by quantity.",
  mimeType: "application/json",
};

function readResource(params: Json, notFound: number): Json {
  if (params?.uri !== RESOURCE.uri) {
    throw rpcError(notFound, `Resource not found: ${params?.uri}`, { uri: params?.uri });
  }
  const text = JSON.stringify({ temperature: Object.keys(TEMPERATURE), length: METRES });
  return { contents: [{ uri: RESOURCE.uri, mimeType: RESOURCE.mimeType, text }] };
}

const TOOL_LIST = TOOLS.map(({ run: _run, ...tool }) => tool);

/** The capabilities the server declares (both eras). */
export const CAPABILITIES = { tools: {}, prompts: {}, resources: {} };

/** The results that `ttlMs`/`cacheScope` apply to in the modern era. */
export const CACHEABLE = new Set([
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
]);

/**
 * Handles a feature request of either era.
 *
 * @param era Decides the "resource not found" code (modern -32602, legacy -32002).
 * @returns The result, or `undefined` for a method the server does not have.
 */
export function feature(method: string, params: Json, era: "modern" | "legacy"): Json {
  switch (method) {
    case "tools/list":
      return { tools: TOOL_LIST };
    case "tools/call":
      return callTool(params);
    case "prompts/list":
      return { prompts: [PROMPT] };
    case "prompts/get":
      return getPrompt(params);
    case "resources/list":
      return { resources: [RESOURCE] };
    case "resources/templates/list":
      return { resourceTemplates: [] };
    case "resources/read":
      return readResource(params, era === "modern" ? -32602 : -32002);
  }
  return undefined;
}
