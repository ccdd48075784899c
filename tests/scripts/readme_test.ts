// The README's contents: every section (`## …`) is listed, in order, each link the anchor
// GitHub gives its heading.
import { readFileSync } from "node:fs";
import { assert, assertEquals, assertStringIncludes, test } from "../_harness.ts";

const README = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
}

test("readme: the contents list every section in order, with working anchors", () => {
  const lines = README.split("\n");
  // Outside code blocks: a `## ` line in a fenced example is not a heading.
  let fenced = false;
  const headings = lines.filter((line) => {
    if (line.startsWith("```")) fenced = !fenced;
    return !fenced && line.startsWith("## ");
  }).map((line) => line.slice(3));
  assertEquals(headings[0], "Contents");
  const start = lines.indexOf("## Contents");
  const entries = lines.slice(start + 1).filter((line) => line.startsWith("- ["))
    .slice(0, 100);
  const listed: { title: string; anchor: string }[] = [];
  for (const line of entries) {
    const match = /^- \[(.+)\]\(#([^)]+)\)$/.exec(line);
    if (match === null) break;
    listed.push({ title: match[1], anchor: match[2] });
  }
  for (const entry of listed) assertEquals(entry.anchor, slug(entry.title), entry.title);
  const titles = listed.map((entry) => entry.title);
  // Each section is listed, in the order it comes.
  let at = -1;
  for (const heading of headings.slice(1)) {
    const index = titles.indexOf(heading);
    assert(index > at, `"${heading}" is listed, after the one before it`);
    at = index;
  }
  assertEquals(slug("Many servers: a hub"), "many-servers-a-hub");
  assertEquals(
    slug("When the server asks (sampling, elicitation, roots)"),
    "when-the-server-asks-sampling-elicitation-roots",
  );
});

test("readme: the packages npm warns about under Node 20 are the ones the README names", () => {
  const lock = JSON.parse(
    readFileSync(new URL("../../package-lock.json", import.meta.url), "utf8"),
  ) as { packages: Record<string, { engines?: { node?: string }; dev?: boolean }> };
  const newer: string[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    const range = entry.engines?.node;
    if (typeof range !== "string") continue;
    // Each alternative a plain lower bound: Node 20 is refused when every one starts above 20.
    const bounds = range.split("||").map((part) => /^\s*>=\s*(\d+)/.exec(part)?.[1]);
    if (bounds.every((major) => major !== undefined && Number(major) > 20)) {
      newer.push(path.replace(/^.*node_modules\//, ""));
    }
  }
  const develop = README.slice(README.indexOf("## Develop"));
  const from = develop.indexOf("EBADENGINE");
  const paragraph = develop.slice(from, develop.indexOf("\n\n", from));
  assertStringIncludes(
    paragraph,
    `for ${
      ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"][newer.length]
    } packages`,
  );
  for (const name of newer) assertStringIncludes(paragraph, `\`${name}\``);
  // None of them is a runtime dependency, as the README says.
  assertStringIncludes(paragraph, "all of them development-only");
  const runtime = Object.entries(lock.packages).filter(([path, entry]) =>
    newer.includes(path.replace(/^.*node_modules\//, "")) && !entry.dev
  ).map(([path]) => path.replace(/^.*node_modules\//, ""));
  assertEquals(runtime, []);
});
