/**
 * The TypeScript module `emit-ts` writes: one typed function per tool over a client of the
 * library, argument and result types from the tools' schemas, doc comments from their titles
 * and descriptions. Pure and deterministic: the same tools give the same text.
 *
 * @module
 */

import { isObject } from "../../protocol/json.ts";
import { commentLine, commentText, docBlock } from "./_comment.ts";
import { camelName, NameBook, pascalName, tsString } from "./_names.ts";
import { LINE_WIDTH, SchemaCompiler, type TypeAlias, typeLine } from "./_schema.ts";

/** The module's default import specifier: the package, from this version on (the same major). */
export const DEFAULT_IMPORT = "jsr:@conduit/mcp@^0.1.0";

/** What the module is written from. */
export interface EmitInput {
  /** The tools as the server listed them (hostile: names and schemas are checked here). */
  tools: readonly unknown[];
  /** The server's `serverInfo` name, version, and the negotiated protocol version. */
  server?: { name?: unknown; version?: unknown; protocol?: unknown };
  /** Where the module imports the library from (default {@linkcode DEFAULT_IMPORT}). */
  importFrom?: string;
}

/** One function of the module. */
export interface EmittedFunction {
  /** The tool's name on the wire. */
  tool: string;
  /** The function's name. */
  function: string;
  /** The name of its arguments' type. */
  args: string;
  /** The name of its structured result's type, when the tool has an output schema. */
  result?: string;
}

/** The module and what is in it. */
export interface EmittedModule {
  /** Its source text. */
  source: string;
  /** Its functions, in the module's order. */
  functions: EmittedFunction[];
  /** Tools left out: listed without a string name, or under a name listed before. */
  skipped: number;
}

/** The names the module's own imports and helper take. */
const TAKEN = [
  "McpClient",
  "McpError",
  "ToolCallOptions",
  "ToolResult",
  "resultText",
  "structured",
];

/**
 * A call `head(args…)tail` on one line at `indent` when it fits the line width, else one
 * argument a line (as the formatter writes it).
 */
function fitCall(indent: string, head: string, args: readonly string[], tail: string): string {
  const line = `${indent}${head}(${args.join(", ")})${tail}`;
  if (line.length <= LINE_WIDTH) return line;
  const inner = args.map((arg) => `${indent}  ${arg},\n`).join("");
  return `${indent}${head}(\n${inner}${indent})${tail}`;
}

/** `import [type] { names } from specifier;`, on one line when it fits. */
function importLine(type: boolean, names: readonly string[], from: string): string {
  const head = `import ${type ? "type " : ""}`;
  const line = `${head}{ ${names.join(", ")} } from ${from};`;
  if (line.length <= LINE_WIDTH) return `${line}\n`;
  return `${head}{\n${names.map((n) => `  ${n},\n`).join("")}} from ${from};\n`;
}

/** The type declaration of an alias, with its doc. */
function declaration(alias: TypeAlias): string {
  return `${docBlock([alias.doc])}${
    typeLine("", `export type ${alias.name} =`, { text: alias.body, members: alias.members }, ";")
  }\n`;
}

/** What a wrapper throws when the tool failed or gave no structured content. */
const HELPER = `/**
 * The structured content of a tool's result; throws \`McpError\` if the tool failed or
 * gave none.
 */
function structured<T>(tool: string, result: ToolResult): T {
  if (result.isError) {
    const text = resultText(result);
    throw new McpError(\`The tool \${tool} reported an error: \${text}\`, {
      kind: "server",
      reason: "tool_error",
      data: result,
    });
  }
  if (result.structuredContent === undefined) {
    throw new McpError(\`The tool \${tool} returned no structured content\`, {
      kind: "protocol",
      reason: "invalid_output",
      data: result,
    });
  }
  return result.structuredContent as T;
}
`;

/**
 * Writes the module.
 *
 * @example
 * ```ts
 * import { emitModule } from "./_module.ts";
 *
 * const { source, functions } = emitModule({
 *   tools: [{ name: "get-sum", inputSchema: { type: "object", properties: { a: { type: "number" } } } }],
 * });
 * if (functions[0].function !== "getSum" || !source.includes('client.callTool("get-sum"')) {
 *   throw new Error("unexpected");
 * }
 * ```
 */
export function emitModule(input: EmitInput): EmittedModule {
  const seen = new Set<string>();
  const tools: Record<string, unknown>[] = [];
  let skipped = 0;
  for (const tool of input.tools) {
    if (!isObject(tool) || typeof tool.name !== "string" || seen.has(tool.name)) skipped++;
    else {
      seen.add(tool.name);
      tools.push(tool);
    }
  }
  // By name, code unit by code unit: the same whatever order the server lists them in.
  tools.sort((a, b) => (a.name as string) < (b.name as string) ? -1 : 1);

  const names = new NameBook(TAKEN);
  // Functions take their names before any type does.
  const fnNames = tools.map((tool) => names.take(camelName(tool.name as string)));
  const compiler = new SchemaCompiler(names);
  const functions: EmittedFunction[] = [];
  const parts: string[] = [];
  let anyStructured = false;
  tools.forEach((tool, i) => {
    const wire = tool.name as string;
    const fn = fnNames[i];
    const base = pascalName(fn);
    const first = compiler.aliases.length;
    let args = compiler.compile(tool.inputSchema, `${base}Args`);
    if (!args.obj) {
      // Arguments are an object on the wire: a schema that does not say so is read as any object.
      args.body = "{ [key: string]: unknown }";
      args.obj = true;
      args.req = false;
      args.members = undefined;
    }
    const result = isObject(tool.outputSchema)
      ? compiler.compile(tool.outputSchema, `${base}Result`)
      : undefined;
    anyStructured ||= result !== undefined;
    const types = compiler.aliases.slice(first).map(declaration).join("\n");
    args = compiler.aliases[first];
    const doc = docBlock([
      commentText(tool.title),
      commentText(tool.description),
      `Calls the tool ${commentLine(JSON.stringify(wire))}${
        result ? "; resolves with its structured content, and throws `McpError` if it failed" : ""
      }.`,
    ]);
    const param = args.req ? `args: ${args.name}` : `args: ${args.name} = {}`;
    const name = tsString(wire);
    const callArgs = [name, "args", "options"];
    const body = result
      ? `${fitCall("  ", "const result = await client.callTool", callArgs, ";")}\n` +
        fitCall("  ", `return structured<${result.name}>`, [name, "result"], ";")
      : fitCall("  ", "return await client.callTool", callArgs, ";");
    parts.push(
      `${types}\n${doc}export async function ${fn}(\n  client: McpClient,\n  ${param},\n` +
        `  options?: ToolCallOptions & { task?: "await" },\n): Promise<${
          result?.name ?? "ToolResult"
        }> {\n${body}\n}\n`,
    );
    functions.push({ tool: wire, function: fn, args: args.name, result: result?.name });
  });

  const from = tsString(input.importFrom ?? DEFAULT_IMPORT);
  const server = input.server ?? {};
  const label = [commentLine(server.name), commentLine(server.version)].filter(Boolean).join(" ");
  const protocol = commentLine(server.protocol);
  const header = docBlock([
    `Typed wrappers for the tools of ${label || "an MCP server"}${
      protocol ? ` (protocol ${protocol})` : ""
    }: ${tools.length} tool${tools.length === 1 ? "" : "s"}.`,
    "Written by `conduit-mcp emit-ts` from the server's tool list; write it again when the " +
    "tools change. Each function calls its tool with a client of @conduit/mcp.",
    "@module",
  ]);
  // No tools, no imports (an unused one fails a strict project's check): still a module.
  const imports = tools.length === 0
    ? "export {};\n"
    : (anyStructured ? importLine(false, ["McpError", "resultText"], from) : "") +
      importLine(true, ["McpClient", "ToolCallOptions", "ToolResult"], from);
  const source = [header, imports, ...(anyStructured ? [HELPER] : []), ...parts]
    .filter((part) => part !== "").join("\n");
  return { source, functions, skipped };
}
