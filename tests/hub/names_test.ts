// The hub's names and URI owners, table-first: merging listings, collisions, prefix routes,
// URI templates.
import { mergeNamed, routeByPrefix } from "../../hub/_names.ts";
import { mergeResources, ownerOf, templateMatches } from "../../hub/_resources.ts";
import { restartDelay } from "../../hub/_member.ts";
import { assertEquals, test } from "../_harness.ts";

const items = (...names: string[]) => names.map((name) => ({ name }));

test("names: the same listings give the same names, whichever server answered first", () => {
  const listings = [
    { server: "a", items: items("x", "b_x") },
    { server: "a_b", items: items("x") },
  ];
  const naming = { prefix: true, separator: "_" };
  const merged = mergeNamed("tool", listings, naming);
  assertEquals(merged.items.map((i) => i.name), ["a_x", "a_b_x", "a_b_x_2"]);
  assertEquals(merged.routes.get("a_b_x_2"), { server: "a_b", name: "x" });
  assertEquals(merged.collisions.length, 1);
  // A `_2` another server wants for itself is skipped.
  const taken = mergeNamed("tool", [
    { server: "a", items: items("x", "x_2") },
    { server: "b", items: items("x", "x") },
  ], { prefix: false, separator: "__" });
  assertEquals(taken.items.map((i) => i.name), ["x", "x_2", "b__x", "x_3"]);
});

test("names: routes by prefix pick the longest server name", () => {
  const naming = { prefix: true, separator: "__" };
  const table: [string, unknown][] = [
    ["a__x", { server: "a", name: "x" }],
    ["a__b__x", { server: "a__b", name: "x" }],
    ["a__", undefined],
    ["c__x", undefined],
    ["x", undefined],
  ];
  for (const [name, route] of table) {
    assertEquals(routeByPrefix(name, ["a", "a__b"], naming), route, name);
  }
  assertEquals(routeByPrefix("a__x", ["a"], { prefix: false, separator: "__" }), undefined);
});

test("resources: URIs stay with the first server; templates match one segment or more", () => {
  const merged = mergeResources([
    { server: "a", items: [{ uri: "file:///1", name: "1" }] },
    { server: "b", items: [{ uri: "file:///1", name: "1" }, { uri: "file:///2", name: "2" }] },
  ]);
  assertEquals(merged.items.map((r) => r.uri), ["file:///1", "file:///2"]);
  assertEquals(merged.owners.get("file:///1"), "a");
  assertEquals(merged.collisions.map((c) => c.server), ["b"]);
  const templates = [
    { server: "a", items: [{ uriTemplate: "item://{id}", name: "item" }] },
    { server: "b", items: [{ uriTemplate: "repo://{+path}", name: "repo" }] },
  ];
  const table: [string, string | undefined][] = [
    ["file:///2", "b"],
    ["item://42", "a"],
    ["item://4/2", undefined],
    ["repo://src/main.ts", "b"],
    ["other://x", undefined],
  ];
  for (const [uri, owner] of table) {
    assertEquals(ownerOf(uri, merged.owners, templates), owner, uri);
  }
  assertEquals(templateMatches("a.b://{x}?q={y}", "a.b://1?q=2"), true);
  assertEquals(templateMatches("a.b://{x}", "aXb://1"), false);
});

test("restarts: the delay grows by the factor up to the cap, jitter around it", () => {
  const backoff = { attempts: Infinity, initialDelay: 100, maxDelay: 1_000, factor: 2, jitter: 0 };
  const delays = [1, 2, 3, 4, 5, 10].map((n) => restartDelay(backoff, n, () => 0.5));
  assertEquals(delays, [100, 200, 400, 800, 1_000, 1_000]);
  const jittered = { ...backoff, jitter: 0.5 };
  assertEquals(restartDelay(jittered, 1, () => 0), 50);
  assertEquals(restartDelay(jittered, 1, () => 1), 150);
});
