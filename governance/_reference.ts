/**
 * Private: the one-line reference shaping writes for a content block that is not text
 * (`[image: image/png, 1.2 KiB]`, `[resource link: "name" uri, mime]`, …), with the sizes
 * it reads for people. Pure.
 *
 * @module
 */

import { oneLine } from "../protocol/text.ts";
import type { ContentBlock } from "../protocol/shapes.ts";

/**
 * A byte count for people: `512 bytes`, `1.2 KiB`, `3.4 MiB`.
 *
 * @param bytes The count.
 * @returns The text.
 */
export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? "byte" : "bytes"}`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/**
 * The decoded size of base64 data, for people (`""` when it is not a string).
 *
 * @param data The base64 text.
 * @returns The size text.
 */
export function sizeOfBase64(data: unknown): string {
  if (typeof data !== "string") return "";
  const length = data.replace(/\s+/g, "").length;
  const padding = data.trimEnd().endsWith("==") ? 2 : data.trimEnd().endsWith("=") ? 1 : 0;
  return sizeText(Math.max(0, Math.floor((length * 3) / 4) - padding));
}

function field(object: Record<string, unknown>, key: string, max = 200): string {
  const value = object[key];
  return typeof value === "string" ? oneLine(value, max) : "";
}

function listed(label: string, parts: string[], hint = ""): string {
  const details = parts.filter((part) => part !== "").join(", ");
  return `[${label}: ${details === "" ? "no details" : details}${hint}]`;
}

/**
 * A short reference to a content block that is not text.
 *
 * @param block The block.
 * @param hint Said last in a media block's line (how to read its data), or `""`.
 * @returns One line: `[image: image/png, 1.2 KiB]`, `[resource link: "name" uri, mime]`,
 *   `[resource: uri, mime, 3 bytes text]`, or `[<type> content]`.
 */
export function reference(block: ContentBlock, hint = ""): string {
  switch (block.type) {
    case "image":
    case "audio":
      return listed(block.type, [field(block, "mimeType", 80), sizeOfBase64(block.data)], hint);
    case "resource_link": {
      const name = field(block, "name", 80);
      const named = [name === "" ? "" : `"${name}"`, field(block, "uri")];
      return listed("resource link", [
        named.filter((part) => part !== "").join(" "),
        field(block, "mimeType", 80),
        typeof block.size === "number" && block.size >= 0 ? sizeText(block.size) : "",
      ]);
    }
    case "resource": {
      const inner = block.resource;
      const resource = (typeof inner === "object" && inner !== null ? inner : {}) as Record<
        string,
        unknown
      >;
      const size = typeof resource.text === "string"
        ? `${sizeText(new TextEncoder().encode(resource.text).length)} text`
        : typeof resource.blob === "string"
        ? `${sizeOfBase64(resource.blob)} blob`
        : "";
      const parts = [field(resource, "uri"), field(resource, "mimeType", 80), size];
      return listed("resource", parts, typeof resource.blob === "string" ? hint : "");
    }
    default: {
      const type = typeof block.type === "string" ? oneLine(block.type, 40) : "";
      return `[${type === "" ? "unknown" : type} content]`;
    }
  }
}
