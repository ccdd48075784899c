// The header encoder: every value it emits is a valid header value (visible ASCII, no CR or
// LF, no edge whitespace) that the runtime's Headers accepts unchanged and that decodes back;
// the headers built for a request never carry a line break, whatever the arguments.
import fc from "fast-check";
import { assert, assertEquals } from "../_harness.ts";
import { decodeHeaderValue, encodeHeaderValue, modernHeaders } from "../../protocol/headers.ts";
import { mcpHeaderDeclarations, paramHeaders } from "../../protocol/param_headers.ts";
import { isMcpError } from "../../protocol/errors.ts";
import { fuzz } from "./_fuzz.ts";

const SAFE = /^(?:[\x21-\x7e](?:[\x20-\x7e\t]*[\x21-\x7e])?)?$/;

function checkValue(encoded: string): void {
  assert(SAFE.test(encoded), JSON.stringify(encoded));
  const headers = new Headers();
  headers.set("mcp-param-x", encoded);
  assertEquals(headers.get("mcp-param-x"), encoded);
}

/** Strings with the characters header encoders get wrong. */
const text = fc.oneof(
  fc.string(),
  fc.string({ unit: "grapheme" }),
  fc.string({ unit: "binary" }),
  fc.constantFrom(" x", "x ", "\t", "a\r\nb", "\n", "=?base64?", "=?base64?eA==?=", "\0", "é"),
);

fuzz(
  "headers: encodeHeaderValue emits a valid value that decodes back",
  () =>
    fc.property(text, (value) => {
      const encoded = encodeHeaderValue(value);
      checkValue(encoded);
      // A well-formed string comes back as it was; a lone surrogate as U+FFFD (as UTF-8 has it).
      assertEquals(
        decodeHeaderValue(encoded),
        new TextDecoder().decode(new TextEncoder().encode(value)),
      );
    }),
);

fuzz(
  "headers: numbers and booleans encode as their text",
  () =>
    fc.property(fc.oneof(fc.maxSafeInteger(), fc.boolean()), (value) => {
      const encoded = encodeHeaderValue(value);
      checkValue(encoded);
      assertEquals(encoded, String(value));
    }),
);

fuzz(
  "headers: decodeHeaderValue returns a string or undefined for any input",
  () =>
    fc.property(fc.oneof(text, text.map((t) => `=?base64?${t}?=`)), (value) => {
      const decoded = decodeHeaderValue(value);
      assert(decoded === undefined || typeof decoded === "string");
    }),
);

fuzz("headers: a request's headers never carry a line break", () =>
  fc.property(
    fc.oneof(fc.constantFrom("tools/call", "prompts/get", "resources/read"), text),
    fc.record({
      name: text,
      uri: text,
      _meta: fc.record({ "io.modelcontextprotocol/protocolVersion": text }),
    }),
    (method, params) => {
      const headers = modernHeaders({ jsonrpc: "2.0", id: 1, method, params });
      for (const value of Object.values(headers)) checkValue(value);
    },
  ));

fuzz(
  "headers: Mcp-Param values are valid for any arguments, or a validation error",
  () =>
    fc.property(
      fc.array(fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,6}$/), { minLength: 1, maxLength: 3 }),
      fc.anything({ maxDepth: 2 }),
      (names, value) => {
        const properties = Object.fromEntries(
          names.map((n, i) => [`p${i}`, { type: "string", "x-mcp-header": n }]),
        );
        const declared = mcpHeaderDeclarations({ type: "object", properties });
        if (!declared.ok) return; // e.g. a name declared twice
        const args = Object.fromEntries(names.map((_, i) => [`p${i}`, value]));
        try {
          const headers = paramHeaders(declared.headers, args);
          for (const [name, v] of Object.entries(headers)) {
            assert(name.startsWith("Mcp-Param-"), name);
            checkValue(v);
          }
        } catch (error) {
          assert(isMcpError(error) && error.kind === "validation", String(error));
        }
      },
    ),
);
