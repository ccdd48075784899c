/**
 * An elicitation form's `requestedSchema` read into fields, and the checks of an answer
 * against it (pure): strings (`minLength`, `maxLength`, `format` email, uri, date,
 * date-time), numbers and integers (`minimum`, `maximum`), booleans, single-select enums
 * (untitled `enum`, titled `oneOf: [{ const, title }]`, legacy `enumNames`) and
 * multi-select arrays (`items.enum` or `items.anyOf`, `minItems`, `maxItems`), required
 * fields and defaults. The terminal form and the answer rules share it.
 *
 * Every name, title and description is the server's and hostile: a field's `title` and
 * `description` are kept as sent (capped in length) and must be sanitised where shown.
 *
 * @module
 */

import { isObject } from "./json.ts";
import { checkField, type FieldOption, type FormField } from "./elicitation_field.ts";

export { checkField } from "./elicitation_field.ts";
export type { FieldKind, FieldOption, FormField } from "./elicitation_field.ts";

/** The most fields a form may have, and options a field. */
export const MAX_FORM_FIELDS = 100;
const MAX_OPTIONS = 200;
const MAX_TITLE = 200;
const MAX_DESCRIPTION = 2000;

type Json = Record<string, unknown>;

const cap = (text: string, max: number) => text.length > max ? `${text.slice(0, max - 1)}…` : text;

const count = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) ? value : undefined;

/** Sets an own property (a key such as `__proto__` stays a plain key). */
export function setOwn(target: Json, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

function optionsOf(schema: Json): FieldOption[] | undefined {
  const titled = Array.isArray(schema.oneOf) ? schema.oneOf : schema.anyOf;
  if (Array.isArray(titled)) {
    const options = titled.filter((o) => isObject(o) && typeof o.const === "string").map((o) => ({
      value: (o as Json).const as string,
      label: typeof (o as Json).title === "string" ? (o as Json).title as string : "",
    }));
    return options.map((o) => ({ value: o.value, label: cap(o.label || o.value, MAX_TITLE) }));
  }
  if (!Array.isArray(schema.enum)) return undefined;
  const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
  return schema.enum.filter((v) => typeof v === "string").map((value, i) => ({
    value: value as string,
    label: cap(typeof names[i] === "string" && names[i] !== "" ? names[i] : value, MAX_TITLE),
  }));
}

function fieldOf(key: string, schema: Json, required: boolean): FormField | string {
  const title = typeof schema.title === "string" && schema.title.trim() !== ""
    ? cap(schema.title, MAX_TITLE)
    : cap(key, MAX_TITLE);
  const field: FormField = { key, kind: "string", title, required };
  if (typeof schema.description === "string" && schema.description !== "") {
    field.description = cap(schema.description, MAX_DESCRIPTION);
  }
  const type = schema.type;
  if (type === "array") {
    const items = isObject(schema.items) ? schema.items : {};
    const options = optionsOf(items);
    if (options === undefined || options.length === 0) {
      return `field "${key}" is an array without options`;
    }
    field.kind = "choices";
    field.options = options.slice(0, MAX_OPTIONS);
    field.minItems = count(schema.minItems);
    field.maxItems = count(schema.maxItems);
  } else if (type === "string" || type === undefined) {
    const options = optionsOf(schema);
    if (options !== undefined) {
      if (options.length === 0) return `field "${key}" is an enum without options`;
      field.kind = "choice";
      field.options = options.slice(0, MAX_OPTIONS);
    } else if (type === undefined) {
      return `field "${key}" has no type`;
    } else {
      field.minLength = count(schema.minLength);
      field.maxLength = count(schema.maxLength);
      if (typeof schema.format === "string") field.format = schema.format;
    }
  } else if (type === "number" || type === "integer") {
    field.kind = type;
    field.minimum = count(schema.minimum);
    field.maximum = count(schema.maximum);
  } else if (type === "boolean") {
    field.kind = "boolean";
  } else {
    return `field "${key}" has type ${JSON.stringify(type)}, which a form cannot ask for`;
  }
  if (schema.default !== undefined && checkField(field, schema.default) === undefined) {
    field.default = schema.default;
  }
  return field;
}

/**
 * The fields of a form's `requestedSchema`, in the schema's order, or why it cannot be asked
 * (not an object, too many fields, a nested or unknown type).
 *
 * @param schema The `requestedSchema`.
 * @returns The fields, or the reason.
 *
 * @example
 * ```ts
 * import { formFields } from "./elicitation_form.ts";
 *
 * const fields = formFields({
 *   type: "object",
 *   properties: {
 *     name: { type: "string", title: "Name", minLength: 1 },
 *     size: { type: "string", enum: ["s", "m"], enumNames: ["Small", "Medium"] },
 *   },
 *   required: ["name"],
 * });
 * if (typeof fields === "string") throw new Error(fields);
 * if (fields[0].required !== true || fields[1].kind !== "choice") throw new Error("unexpected");
 * if (fields[1].options?.[1].label !== "Medium") throw new Error("unexpected");
 * ```
 */
export function formFields(schema: unknown): FormField[] | string {
  if (!isObject(schema)) return "the requested schema is not an object";
  const properties = isObject(schema.properties) ? schema.properties : {};
  const keys = Object.keys(properties);
  if (keys.length > MAX_FORM_FIELDS) {
    return `the form has ${keys.length} fields, more than ${MAX_FORM_FIELDS}`;
  }
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((k) => typeof k === "string") : [],
  );
  const fields: FormField[] = [];
  for (const key of keys) {
    const property = properties[key];
    if (!isObject(property)) return `field "${key}" has no schema`;
    const field = fieldOf(key, property, required.has(key));
    if (typeof field === "string") return field;
    fields.push(field);
  }
  return fields;
}

function pick(field: FormField, word: string): string | undefined {
  const options = field.options!;
  if (/^\d+$/.test(word)) {
    const n = Number(word);
    if (n >= 1 && n <= options.length) return options[n - 1].value;
  }
  return options.find((o) => o.value === word)?.value ??
    options.find((o) => o.label.toLowerCase() === word.toLowerCase())?.value;
}

/**
 * Reads typed text as a value of `field` (a number for a number field, `yes`/`no` for a
 * boolean, an option's number, value or label for a choice, a comma-separated list for a
 * multi-select), then checks it.
 *
 * @param field The field.
 * @param text What was typed (not empty).
 * @returns The value, or the reason it is not one.
 *
 * @example
 * ```ts
 * import { formFields, readField } from "./elicitation_form.ts";
 *
 * const [age] = formFields({ type: "object", properties: { age: { type: "integer", minimum: 18 } } }) as never[];
 * const ok = readField(age, "42");
 * const low = readField(age, "7");
 * if (!("value" in ok) || ok.value !== 42) throw new Error("unexpected");
 * if (!("reason" in low) || low.reason !== "must be at least 18") throw new Error("unexpected");
 * ```
 */
export function readField(field: FormField, text: string): { value: unknown } | { reason: string } {
  let value: unknown = text;
  const word = text.trim();
  switch (field.kind) {
    case "number":
    case "integer":
      value = word === "" || !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(word)
        ? NaN
        : Number(word);
      break;
    case "boolean": {
      const lower = word.toLowerCase();
      if (["y", "yes", "true"].includes(lower)) value = true;
      else if (["n", "no", "false"].includes(lower)) value = false;
      else return { reason: "must be yes or no" };
      break;
    }
    case "choice": {
      const chosen = pick(field, word);
      if (chosen === undefined) {
        return { reason: `must be one of 1-${field.options!.length} (or an option's name)` };
      }
      value = chosen;
      break;
    }
    case "choices": {
      const words = word.split(",").map((w) => w.trim()).filter((w) => w !== "");
      const chosen: string[] = [];
      for (const w of words) {
        const one = pick(field, w);
        if (one === undefined) return { reason: `has ${JSON.stringify(w)}, not an option` };
        chosen.push(one);
      }
      value = chosen;
      break;
    }
  }
  const reason = checkField(field, value);
  return reason === undefined ? { value } : { reason };
}

/**
 * Checks a form's whole answer: every key a field of the form, every value valid, every
 * required field present (after the schema's defaults).
 *
 * @param fields The form's fields ({@linkcode formFields}).
 * @param content The answer's content.
 * @returns The first problem, or `undefined`.
 */
export function checkAnswer(
  fields: FormField[],
  content: Record<string, unknown>,
): string | undefined {
  const byKey = new Map(fields.map((f) => [f.key, f]));
  for (const [key, value] of Object.entries(content)) {
    const field = byKey.get(key);
    if (field === undefined) return `the form has no field "${key}"`;
    const problem = checkField(field, value);
    if (problem !== undefined) return `field "${key}" ${problem}`;
  }
  for (const field of fields) {
    if (field.required && !Object.hasOwn(content, field.key) && field.default === undefined) {
      return `required field "${field.key}" has no value`;
    }
  }
  return undefined;
}
