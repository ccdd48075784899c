/**
 * JSON Schema → TypeScript types, for `emit-ts`. Pure.
 *
 * Objects (required and optional properties, `additionalProperties`, `patternProperties`),
 * arrays and tuples (`prefixItems`, or `items` as an array), `enum` and `const` as literal
 * unions, `anyOf`/`oneOf` as unions, `allOf` as an intersection, `type` arrays and
 * `nullable`, and `$ref` to any JSON pointer of the same document (`#/$defs/…`,
 * `#/definitions/…`, `#`). A `$ref` under a property or an array item becomes a named type
 * alias, so recursion is a recursive alias; at the top of an alias it is inlined, and a
 * reference back to what is being inlined (which no type could express) is `unknown`. What
 * the compiler does not know (external references, `not`, a bad schema, past the depth and
 * size caps) is `unknown`: wider, never wrong.
 *
 * @module
 */

import { isObject } from "../../protocol/json.ts";
import { commentText, docBlock } from "./_comment.ts";
import { type NameBook, pascalName, propertyKey } from "./_names.ts";
import {
  arrayOf,
  atom,
  intersection,
  literal,
  NEVER,
  type TsType,
  union,
  UNKNOWN,
} from "./_ts_type.ts";

/** The deepest nesting compiled; deeper schemas are `unknown`. */
export const MAX_DEPTH = 32;
/** The most schema nodes compiled for one root schema; the rest are `unknown`. */
export const MAX_NODES = 5_000;
/** The longest tuple written as one; longer ones are arrays. */
const MAX_TUPLE = 50;

/** A named type the compiler made. */
export interface TypeAlias {
  /** Its name. */
  name: string;
  /** Its doc comment (made safe), or `""`. */
  doc: string;
  /** Its type. */
  body: string;
  /** Whether every value of it is an object. */
  obj: boolean;
  /** Whether it has a required property. */
  req: boolean;
  /** Its members, when it is a union. */
  members?: string[];
}

/** The width the formatter fits code to, by default. */
export const LINE_WIDTH = 80;

/**
 * `head type tail` at `indent` (`key: T;`, `export type X = T;`), a long one-line union one
 * member a line, as the formatter writes it.
 */
export function typeLine(
  indent: string,
  head: string,
  type: { text: string; members?: readonly string[] },
  tail: string,
): string {
  const line = `${indent}${head} ${type.text}${tail}`;
  if (type.members === undefined || line.length <= LINE_WIDTH || type.text.includes("\n")) {
    return line;
  }
  return `${indent}${head}\n${type.members.map((m) => `${indent}  | ${m}`).join("\n")}${tail}`;
}

/** The value a JSON pointer (`#/a/b`) names in `root`, or `undefined`. */
function resolvePointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith("#")) return undefined;
  let path = ref.slice(1);
  try {
    path = decodeURIComponent(path);
  } catch {
    return undefined;
  }
  if (path === "") return root;
  if (!path.startsWith("/")) return undefined;
  let node: unknown = root;
  for (const raw of path.slice(1).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(node) && /^(0|[1-9][0-9]*)$/.test(key)) node = node[Number(key)];
    else if (isObject(node) && Object.hasOwn(node, key)) node = node[key];
    else return undefined;
  }
  return node;
}

/** The doc of a schema: its title and description, made safe. */
export function schemaDoc(schema: unknown): string {
  if (!isObject(schema)) return "";
  const title = commentText(schema.title);
  const description = commentText(schema.description);
  if (title === "" || description === "" || description.startsWith(title)) {
    return description || title;
  }
  return `${title}\n\n${description}`;
}

/** One root schema being compiled: its document, aliases by pointer, and its budget. */
interface Root {
  schema: unknown;
  /** The prefix of its aliases' names. */
  prefix: string;
  /** Pointer → alias name. */
  refs: Map<string, string>;
  nodes: number;
}

/**
 * Compiles the schemas of one module into named types, sharing one {@linkcode NameBook} so
 * no two names meet.
 *
 * @example
 * ```ts
 * import { SchemaCompiler } from "./_schema.ts";
 * import { NameBook } from "./_names.ts";
 *
 * const compiler = new SchemaCompiler(new NameBook());
 * compiler.compile({ type: "object", properties: { a: { type: "number" } }, required: ["a"] }, "SumArgs");
 * if (compiler.aliases[0].body !== "{\n  a: number;\n}") throw new Error("unexpected");
 * ```
 */
export class SchemaCompiler {
  /** Every alias made, in the order their names were taken. */
  readonly aliases: TypeAlias[] = [];
  readonly #names: NameBook;
  readonly #byName = new Map<string, TypeAlias>();

  /** @param names Where names are taken. */
  constructor(names: NameBook) {
    this.#names = names;
  }

  /**
   * Compiles `schema` as the alias `name` (taken from the book: it may come back with a
   * suffix); its `$ref`s name aliases prefixed with `name`.
   *
   * @returns The alias made for the root.
   */
  compile(schema: unknown, name: string): TypeAlias {
    const root: Root = { schema, prefix: name, refs: new Map(), nodes: 0 };
    return this.#alias(root, "#", name, schema);
  }

  /** The alias of `pointer` in `root` (made once), compiled with the pointer inlined at its top. */
  #alias(root: Root, pointer: string, base: string, target: unknown): TypeAlias {
    const known = root.refs.get(pointer);
    if (known !== undefined) return this.#byName.get(known)!;
    const alias: TypeAlias = {
      name: this.#names.take(base),
      doc: schemaDoc(target),
      body: "unknown",
      obj: false,
      req: false,
    };
    root.refs.set(pointer, alias.name);
    this.#byName.set(alias.name, alias);
    this.aliases.push(alias);
    const type = this.#type(root, target, new Set([pointer]), false, 0, "");
    alias.body = type.text;
    alias.obj = type.obj;
    alias.req = type.req;
    alias.members = type.members;
    return alias;
  }

  /**
   * The type of `schema`. `bare` holds the pointers being inlined since the top of the
   * alias (a `$ref` back to one is `unknown`); `guarded` says a property or item was
   * passed (a `$ref` then names an alias).
   */
  #type(
    root: Root,
    schema: unknown,
    bare: ReadonlySet<string>,
    guarded: boolean,
    depth: number,
    indent: string,
  ): TsType {
    if (schema === true) return UNKNOWN;
    if (schema === false) return NEVER;
    if (!isObject(schema) || depth > MAX_DEPTH || ++root.nodes > MAX_NODES) return UNKNOWN;
    const next = (sub: unknown, inner = guarded, deeper = indent) =>
      this.#type(root, sub, inner ? new Set() : bare, inner, depth + 1, deeper);
    const parts: TsType[] = [];

    if (typeof schema.$ref === "string") {
      parts.push(this.#ref(root, schema.$ref, bare, guarded, depth, indent));
    } else if (schema.$ref !== undefined) return UNKNOWN;

    let base: TsType | undefined;
    if (Object.hasOwn(schema, "const")) base = literal(schema.const);
    else if (Array.isArray(schema.enum)) base = union(schema.enum.map(literal));
    else base = this.#typed(root, schema, next, indent);
    if (base !== undefined) {
      if (schema.nullable === true) base = union([base, atom("null")]);
      parts.push(base);
    }
    for (const key of ["anyOf", "oneOf"] as const) {
      const members = schema[key];
      if (Array.isArray(members) && members.length > 0) {
        parts.push(union(members.map((member) => next(member, guarded))));
      }
    }
    if (Array.isArray(schema.allOf)) {
      for (const member of schema.allOf) parts.push(next(member, guarded));
    }
    return intersection(parts);
  }

  /** A `$ref`: an alias under a property or item, inlined at an alias's top. */
  #ref(
    root: Root,
    ref: string,
    bare: ReadonlySet<string>,
    guarded: boolean,
    depth: number,
    indent: string,
  ): TsType {
    const target = resolvePointer(root.schema, ref);
    if (target === undefined) return UNKNOWN;
    const pointer = ref === "" ? "#" : ref;
    if (!guarded) {
      if (bare.has(pointer)) return UNKNOWN;
      return this.#type(root, target, new Set([...bare, pointer]), false, depth + 1, indent);
    }
    if (pointer === "#" || pointer === "#/") {
      const name = root.refs.get("#")!;
      const self = this.#byName.get(name)!;
      return atom(name, self.obj, self.req);
    }
    const last = pointer.slice(pointer.lastIndexOf("/") + 1).replace(/~1/g, "/").replace(
      /~0/g,
      "~",
    );
    let segment = last;
    try {
      segment = decodeURIComponent(last);
    } catch { /* the raw segment */ }
    const alias = this.#alias(root, pointer, `${root.prefix}${pascalName(segment, "Def")}`, target);
    return atom(alias.name, alias.obj, alias.req);
  }

  /** The type `type` (or its absence, read from the keywords present) says; `undefined` for none. */
  #typed(
    root: Root,
    schema: Record<string, unknown>,
    next: (sub: unknown, inner?: boolean, deeper?: string) => TsType,
    indent: string,
  ): TsType | undefined {
    let types: unknown[];
    if (typeof schema.type === "string") types = [schema.type];
    else if (Array.isArray(schema.type)) types = schema.type;
    else if (isObject(schema.properties) || schema.additionalProperties !== undefined) {
      types = ["object"];
    } else if (schema.items !== undefined || schema.prefixItems !== undefined) types = ["array"];
    else return undefined;
    return union(types.map((type) => {
      switch (type) {
        case "string":
          return atom("string");
        case "number":
        case "integer":
          return atom("number");
        case "boolean":
          return atom("boolean");
        case "null":
          return atom("null");
        case "object":
          return this.#object(root, schema, next, indent);
        case "array":
          return this.#array(schema, next, indent);
        default:
          return UNKNOWN;
      }
    }));
  }

  #object(
    _root: Root,
    schema: Record<string, unknown>,
    next: (sub: unknown, inner?: boolean, deeper?: string) => TsType,
    indent: string,
  ): TsType {
    const inner = `${indent}  `;
    const required = new Set(
      Array.isArray(schema.required)
        ? schema.required.filter((n): n is string => typeof n === "string")
        : [],
    );
    const properties = isObject(schema.properties) ? schema.properties : {};
    const lines: string[] = [];
    const propTypes: TsType[] = [];
    let optional = false;
    for (const [key, sub] of Object.entries(properties)) {
      const type = next(sub, true, inner);
      const isRequired = required.has(key);
      optional ||= !isRequired;
      propTypes.push(type);
      lines.push(
        docBlock([schemaDoc(sub)], inner) +
          typeLine(inner, `${propertyKey(key)}${isRequired ? "" : "?"}:`, type, ";"),
      );
    }
    // Required but not described: present, of any type.
    for (const key of required) {
      if (!Object.hasOwn(properties, key)) {
        lines.push(`${inner}${propertyKey(key)}: unknown;`);
        propTypes.push(UNKNOWN);
      }
    }
    const extra: TsType[] = [];
    const additional = schema.additionalProperties;
    if (additional !== undefined && additional !== false) extra.push(next(additional, true, inner));
    if (isObject(schema.patternProperties)) {
      for (const sub of Object.values(schema.patternProperties)) extra.push(next(sub, true, inner));
    }
    if (extra.length === 0 && lines.length === 0 && additional !== false) extra.push(UNKNOWN);
    if (additional === false && lines.length === 0 && extra.length === 0) extra.push(NEVER);
    if (extra.length > 0) {
      // A property's type must fit the index signature.
      const all = union([...extra, ...propTypes, ...(optional ? [atom("undefined")] : [])]);
      lines.push(typeLine(inner, "[key: string]:", all, ";"));
    }
    return atom(`{\n${lines.join("\n")}\n${indent}}`, true, required.size > 0);
  }

  #array(
    schema: Record<string, unknown>,
    next: (sub: unknown, inner?: boolean, deeper?: string) => TsType,
    indent: string,
  ): TsType {
    const draft2020 = Array.isArray(schema.prefixItems);
    const prefix = draft2020 ? schema.prefixItems as unknown[] : schema.items;
    if (Array.isArray(prefix) && prefix.length <= MAX_TUPLE) {
      const rest = draft2020 ? schema.items : schema.additionalItems;
      const min = typeof schema.minItems === "number" ? schema.minItems : 0;
      const elements = prefix.map((sub, i) => {
        const type = next(sub, true, indent);
        return `${type.prec === 2 ? type.text : `(${type.text})`}${i >= min ? "?" : ""}`;
      });
      if (rest !== false) {
        const restType = rest === undefined ? UNKNOWN : next(rest, true, indent);
        elements.push(`...${arrayOf(restType)}`);
      }
      return atom(`[${elements.join(", ")}]`);
    }
    if (Array.isArray(prefix)) {
      return atom(arrayOf(union(prefix.map((sub) => next(sub, true, indent)))));
    }
    return atom(arrayOf(schema.items === undefined ? UNKNOWN : next(schema.items, true, indent)));
  }
}
