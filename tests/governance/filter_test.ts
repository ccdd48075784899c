import { assertEquals, assertThrows, test } from "../_harness.ts";
import { compileFilter } from "../../governance/filter.ts";
import { anyMatcher, patternMatcher } from "../../governance/glob.ts";
import type { GovernanceContext, Tool } from "../../governance/types.ts";

const ctx: GovernanceContext = { assigns: {}, server: "s" };
const tool = (name: string): Tool => ({ name, inputSchema: { type: "object" } });

test("patternMatcher(): names and * globs, nothing else special (table)", () => {
  const table: [string, string, boolean][] = [
    ["echo", "echo", true],
    ["echo", "echo2", false],
    ["*", "", true],
    ["*", "anything", true],
    ["fs_*", "fs_read", true],
    ["fs_*", "fs_", true],
    ["fs_*", "xfs_read", false],
    ["*_delete", "file_delete", true],
    ["*_delete", "file_delete_all", false],
    ["a*b*c", "aXXbYYc", true],
    ["a*b*c", "acb", false],
    ["file.read", "file.read", true],
    ["file.read", "fileXread", false],
    ["db.(x)+", "db.(x)+", true],
    ["[a]*", "[a]z", true],
    ["*\n*", "a\nb", true],
  ];
  for (const [pattern, name, expected] of table) {
    assertEquals(patternMatcher(pattern)(name), expected, `${pattern} ~ ${name}`);
  }
  const any = anyMatcher(["echo", "fs_*"]);
  assertEquals(["echo", "fs_x", "other"].map(any), [true, true, false]);
});

test("compileFilter(): allow and deny lists, deny wins (table)", () => {
  const table: [unknown, string[]][] = [
    [{}, ["echo", "fs_read", "fs_delete", "admin"]],
    [{ allow: ["fs_*"] }, ["fs_read", "fs_delete"]],
    [{ deny: ["*_delete", "admin"] }, ["echo", "fs_read"]],
    [{ allow: ["fs_*", "echo"], deny: ["fs_delete"] }, ["echo", "fs_read"]],
    [{ allow: "echo" }, ["echo"]],
    [{ allow: [] }, []],
  ];
  const names = ["echo", "fs_read", "fs_delete", "admin"];
  for (const [option, shown] of table) {
    const filter = compileFilter(option);
    assertEquals(names.filter((n) => filter(tool(n), ctx)), shown, JSON.stringify(option));
  }
});

test("compileFilter(): a function sees the tool and the caller; a throwing one hides", () => {
  const filter = compileFilter((t: Tool, c: GovernanceContext) =>
    c.principal === "root" || (t.name !== "admin" && c.assigns.team === "ops")
  );
  assertEquals(filter(tool("admin"), { ...ctx, principal: "root" }), true);
  assertEquals(filter(tool("admin"), { ...ctx, assigns: { team: "ops" } }), false);
  assertEquals(filter(tool("echo"), { ...ctx, assigns: { team: "ops" } }), true);
  assertEquals(filter(tool("echo"), ctx), false);
  const truthy = compileFilter(() => 1 as unknown as boolean);
  assertEquals(truthy(tool("echo"), ctx), false, "only true shows a tool");
  const throwing = compileFilter(() => {
    throw new Error("boom");
  });
  assertEquals(throwing(tool("echo"), ctx), false);
});

test("compileFilter(): a malformed option is a TypeError naming it", () => {
  const table: [unknown, string][] = [
    [null, 'option "tools"'],
    [["echo"], 'option "tools"'],
    [{ allow: "" }, 'option "tools.allow"'],
    [{ deny: [1] }, 'option "tools.deny"'],
    [{ hide: ["x"] }, 'unknown key "hide"'],
  ];
  for (const [value, message] of table) {
    assertThrows(() => compileFilter(value), TypeError, message);
  }
});
