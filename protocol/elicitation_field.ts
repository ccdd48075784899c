/**
 * One field of an elicitation form (pure): what it holds as read from the form's
 * `requestedSchema` ({@linkcode FormField}), and the check of one value against it
 * ({@linkcode checkField}): text lengths and formats (email, uri, date, date-time), number
 * bounds, booleans, single and multiple choices and their counts.
 *
 * @module
 */

/** What kind of value a field takes. */
export type FieldKind = "string" | "number" | "integer" | "boolean" | "choice" | "choices";

/** One option of a `choice` or `choices` field. */
export interface FieldOption {
  /** The value sent. */
  value: string;
  /** The label shown (the value when the server gave none). */
  label: string;
}

/** One field of a form, read from its property schema. */
export interface FormField {
  /** The property's key. */
  key: string;
  /** What it takes. */
  kind: FieldKind;
  /** The schema's `title`, or the key. */
  title: string;
  /** The schema's `description`, if any. */
  description?: string;
  /** Whether the schema's `required` lists it. */
  required: boolean;
  /** The schema's `default`, when it is a valid value of the field. */
  default?: unknown;
  /** The options of a `choice` or `choices` field. */
  options?: FieldOption[];
  /** `minLength`, `maxLength` (strings). */
  minLength?: number;
  /** `maxLength` (strings). */
  maxLength?: number;
  /** `format` (strings): `email`, `uri`, `date` or `date-time`. */
  format?: string;
  /** `minimum` (numbers). */
  minimum?: number;
  /** `maximum` (numbers). */
  maximum?: number;
  /** `minItems` (multi-select). */
  minItems?: number;
  /** `maxItems` (multi-select). */
  maxItems?: number;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2})$/;

function formatProblem(format: string | undefined, value: string): string | undefined {
  switch (format) {
    case "email":
      return EMAIL.test(value) ? undefined : "is not an email address";
    case "uri":
      try {
        new URL(value);
        return /^[a-z][a-z0-9+.-]*:/i.test(value) ? undefined : "is not a URI";
      } catch {
        return "is not a URI (such as https://example.com)";
      }
    case "date": {
      const m = DATE.exec(value);
      const day = m && new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
      const ok = day && day.getUTCMonth() === +m[2] - 1 && day.getUTCDate() === +m[3];
      return ok ? undefined : "is not a date (YYYY-MM-DD)";
    }
    case "date-time":
      return DATE_TIME.test(value) && !Number.isNaN(Date.parse(value))
        ? undefined
        : "is not a date and time (such as 2025-01-31T09:30:00Z)";
  }
  return undefined;
}

/**
 * Why `value` is not a valid answer to `field`, or `undefined` when it is.
 *
 * @param field The field.
 * @param value The value.
 * @returns The reason (to follow the field's name), or `undefined`.
 */
export function checkField(field: FormField, value: unknown): string | undefined {
  switch (field.kind) {
    case "string": {
      if (typeof value !== "string") return "must be text";
      const length = [...value].length;
      if (field.minLength !== undefined && length < field.minLength) {
        return `must be at least ${field.minLength} characters`;
      }
      if (field.maxLength !== undefined && length > field.maxLength) {
        return `must be at most ${field.maxLength} characters`;
      }
      return formatProblem(field.format, value);
    }
    case "number":
    case "integer": {
      if (typeof value !== "number" || !Number.isFinite(value)) return "must be a number";
      if (field.kind === "integer" && !Number.isInteger(value)) return "must be a whole number";
      if (field.minimum !== undefined && value < field.minimum) {
        return `must be at least ${field.minimum}`;
      }
      if (field.maximum !== undefined && value > field.maximum) {
        return `must be at most ${field.maximum}`;
      }
      return undefined;
    }
    case "boolean":
      return typeof value === "boolean" ? undefined : "must be true or false";
    case "choice":
      return field.options!.some((o) => o.value === value)
        ? undefined
        : `must be one of ${field.options!.map((o) => o.value).join(", ")}`;
    case "choices": {
      if (!Array.isArray(value)) return "must be a list of choices";
      for (const item of value) {
        if (!field.options!.some((o) => o.value === item)) {
          return `holds ${JSON.stringify(String(item))}, not one of ${
            field.options!.map((o) => o.value).join(", ")
          }`;
        }
      }
      if (new Set(value).size !== value.length) return "holds a choice twice";
      if (field.minItems !== undefined && value.length < field.minItems) {
        return `needs at least ${field.minItems} choices`;
      }
      if (field.maxItems !== undefined && value.length > field.maxItems) {
        return `takes at most ${field.maxItems} choices`;
      }
      return undefined;
    }
  }
}
