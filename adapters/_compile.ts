/**
 * Private: the schema dialect compiler, one tool list at a time. Each tool gets a safe name
 * (`_names.ts`), its input schema self-contained (`_refs.ts`), an object at the root with
 * `properties` (OpenAI refuses an object schema without them), and in strict mode the
 * strict rewrite (`_strict.ts`) with its way back; a tool whose schema cannot be strict
 * goes without strict mode, and says why in its notes. Its description and the prose of its
 * schema are sanitised last (`_visible.ts`), like its results; a tool whose schema hides
 * characters in a name or value the model sends back is marked `leftOut`. Pure.
 *
 * @module
 */

import type { Tool } from "../protocol/shapes.ts";
import { safeNames } from "./_names.ts";
import type { Plan } from "./_plan.ts";
import { inlineRefs } from "./_refs.ts";
import { toStrict } from "./_strict.ts";
import { hiddenInValues, visible, visibleSchema } from "./_visible.ts";
import { isObject } from "../protocol/json.ts";
import type { JsonSchema } from "./_walk.ts";

/** One tool, compiled for a model API. */
export interface CompiledTool {
  /** The name the model sees. */
  name: string;
  /** The tool as the source listed it. */
  tool: Tool;
  /** Its description (the tool's, else its title). */
  description?: string;
  /** The schema of its arguments, in the API's dialect. */
  parameters: JsonSchema;
  /** Whether the schema is strict. */
  strict: boolean;
  /** How to map the model's arguments back; `undefined` when they go as they are. */
  plan?: Plan;
  /** What the compiler changed or could not do, one line each. */
  notes: string[];
  /**
   * Why the tool is left out of the kit: its schema hides characters in a name or value the
   * model must send back exactly (`_visible.ts`). Absent when it is in.
   */
  leftOut?: string;
}

/** The dialect's choices. */
export interface CompileOptions {
  /** Rewrite schemas for strict mode where they allow it. */
  strict: boolean;
  /** Safe names given before for the same source (see `_names.ts`). */
  previous?: ReadonlyMap<string, string>;
}

/** The root as an object schema with `properties`. */
function rooted(schema: JsonSchema): JsonSchema {
  return {
    ...schema,
    type: "object",
    properties: isObject(schema.properties) ? schema.properties : {},
  };
}

/**
 * Compiles one tool list.
 *
 * @param tools The tools as the source listed them.
 * @param options The dialect's choices.
 * @returns One compiled tool per tool (a duplicate name is kept once, the first).
 */
export function compileTools(tools: readonly Tool[], options: CompileOptions): CompiledTool[] {
  const names = safeNames(tools.map((t) => t.name), undefined, options.previous);
  const seen = new Set<string>();
  const out: CompiledTool[] = [];
  for (const tool of tools) {
    if (seen.has(tool.name)) continue;
    seen.add(tool.name);
    const name = names.safe.get(tool.name)!;
    const notes: string[] = name === tool.name ? [] : [`renamed from ${JSON.stringify(tool.name)}`];
    const inlined = inlineRefs(isObject(tool.inputSchema) ? tool.inputSchema : {});
    notes.push(...inlined.open.map((line) => `reference left open: ${line}`));
    const loose = rooted(inlined.schema);
    const description = visible(
      typeof tool.description === "string"
        ? tool.description
        : typeof tool.title === "string"
        ? tool.title
        : undefined,
    );
    const compiled: CompiledTool = {
      name,
      tool,
      description,
      parameters: loose,
      strict: false,
      notes,
    };
    if (options.strict) {
      const strict = toStrict(loose);
      if (strict.problems.length === 0 && inlined.open.length === 0) {
        Object.assign(compiled, { parameters: strict.schema, strict: true, plan: strict.plan });
      } else {
        notes.push(...strict.problems.map((p) => `not strict: ${p}`));
        if (inlined.open.length > 0) notes.push("not strict: a reference left open");
      }
    }
    const hidden = hiddenInValues(loose);
    if (hidden !== undefined) {
      compiled.leftOut = `hidden characters in ${hidden}`;
      notes.push(`left out: ${compiled.leftOut}`);
    }
    compiled.parameters = visibleSchema(compiled.parameters);
    out.push(compiled);
  }
  return out;
}
