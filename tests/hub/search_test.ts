// The tool search index (hub/search.ts): terms (camelCase, snake_case, Porter stems, CJK pairs),
// the BM25F ranking over name, title, description, parameters and server, an exact name
// first, `select:`, partial words and one typo, and the index kept while the catalogue is
// the same.
import { createToolIndex, indexCache, searchTools } from "../../hub/search.ts";
import { stem } from "../../hub/_porter.ts";
import { terms } from "../../hub/_terms.ts";
import type { Tool } from "../../client/types.ts";
import { assert, assertEquals, test } from "../_harness.ts";
import { walkGraph } from "../edge/_graph.ts";

const tool = (name: string, description?: string, properties?: Record<string, unknown>): Tool => ({
  name,
  ...(description === undefined ? {} : { description }),
  inputSchema: { type: "object", ...(properties === undefined ? {} : { properties }) },
});

test("search: terms are cut at case humps, digits and punctuation, and stemmed", () => {
  const table: [string, string[]][] = [
    ["mail__send_email", ["mail", "send", "email"]],
    ["getHTTPResponse", ["get", "http", "respons"]],
    ["listIssues of repos", ["list", "issu", "of", "repo"]],
    ["created, creating, creates", ["creat", "creat", "creat"]],
    ["queries query", ["queri", "queri"]],
    ["base64Encode v2", ["base", "64", "encod", "v", "2"]],
    ["获取天气", ["获取", "取天", "天气"]],
    ["", []],
  ];
  for (const [text, expected] of table) assertEquals(terms(text), expected, text);
  // Porter's stemmer, with examples of its paper (one per step) and words of other letters.
  const stems = [
    ["running", "run"],
    ["addresses", "address"],
    ["is", "is"],
    ["caresses", "caress"],
    ["ponies", "poni"],
    ["agreed", "agre"],
    ["hopping", "hop"],
    ["filing", "file"],
    ["happy", "happi"],
    ["sky", "sky"],
    ["relational", "relat"],
    ["triplicate", "triplic"],
    ["adjustment", "adjust"],
    ["adoption", "adopt"],
    ["probate", "probat"],
    ["controll", "control"],
    ["generalizations", "gener"],
    ["oscillators", "oscil"],
    ["café", "café"],
    ["v2", "v2"],
  ];
  for (const [word, expected] of stems) assertEquals(stem(word), expected, word);
});

test("search: BM25F ranks name words over description words, rare words over common ones", () => {
  const tools = [
    tool("mail__send_email", "Send an email to someone", { to: { description: "Recipient" } }),
    tool("docs__search", "Search the docs; finds email addresses too"),
    tool("files__read_file", "Read a file"),
    tool("files__write_file", "Write a file", { path: {}, content: {} }),
    tool("chat__post", "Post a message to a channel", { channel: { description: "The room" } }),
  ];
  const index = createToolIndex(tools);
  const names = (query: string, limit = 10) => index.search(query, limit).map((m) => m.name);
  assertEquals(names("send email")[0], "mail__send_email");
  assertEquals(names("send email").slice(1), ["docs__search"]);
  // A parameter's name and its description count.
  assertEquals(names("content")[0], "files__write_file");
  assertEquals(names("room"), ["chat__post"]);
  assertEquals(names("writing files", 1), ["files__write_file"]);
  assertEquals(names("nothing-matches"), []);
  // Scores fall; ties keep the catalogue's order.
  const scores = index.search("file", 10).map((m) => m.score);
  assert(scores.every((s, i) => i === 0 || s <= scores[i - 1]), String(scores));
  assertEquals(names("file"), ["files__read_file", "files__write_file"]);
});

test("search: the server's name counts; an exact tool name comes first", () => {
  const index = createToolIndex([
    { tool: tool("a__lookup", "Look a thing up"), server: "weather", original: "lookup" },
    { tool: tool("b__lookup", "Look a thing up"), server: "stocks", original: "lookup" },
    {
      tool: tool("c__forecast", "The lookup of a forecast, a lookup"),
      server: "c",
      original: "forecast",
    },
  ]);
  assertEquals(index.search("stocks lookup", 1)[0].name, "b__lookup");
  assertEquals(index.search("weather lookup", 1)[0].name, "a__lookup");
  const exact = index.search("C__FORECAST", 3);
  assertEquals([exact[0].name, exact[0].score], ["c__forecast", Infinity]);
  // Its own name on the server leads to it too.
  assertEquals(index.search("forecast", 1)[0].name, "c__forecast");
});

test("search: select: returns the named tools in order, and nothing else", () => {
  const index = createToolIndex([tool("a__x"), tool("a__y"), tool("b__z")]);
  const picked = index.search("select:b__z, a__x,missing,b__z", 10);
  assertEquals(picked.map((m) => [m.name, m.score]), [["b__z", Infinity], ["a__x", Infinity]]);
  assertEquals(index.search("select:a__x,a__y,b__z", 2).map((m) => m.name), ["a__x", "a__y"]);
  assertEquals(index.search("select:", 10), []);
});

test("search: a word begun (wiki → wikipedia) and one typo away still find the tool", () => {
  const index = createToolIndex([
    tool("wikipedia__search_wikipedia", "Search Wikipedia for articles"),
    tool("arxiv__download_paper", "Download a paper"),
    tool("web__fetch", "Fetch a URL"),
  ]);
  assertEquals(index.search("search wiki", 1)[0].name, "wikipedia__search_wikipedia");
  assertEquals(index.search("donwload", 1)[0].name, "arxiv__download_paper");
  assertEquals(index.search("dowload the paper", 1)[0].name, "arxiv__download_paper");
  // Too short for either: no match.
  assertEquals(index.search("wik", 5), []);
});

test("search: hostile text stays bounded; searchTools is one index and one search", () => {
  const huge = "word ".repeat(200_000);
  const deep: Record<string, unknown> = {};
  let node = deep;
  for (let i = 0; i < 100; i++) node = (node.properties = { [`p${i}`]: {} }).valueOf() as never;
  const index = createToolIndex([
    tool("big__one", huge, deep),
    tool("small__two", "A word"),
  ]);
  assertEquals(index.search("word", 2).map((m) => m.name).sort(), ["big__one", "small__two"]);
  assertEquals(searchTools([tool("a__send", "Send mail")], "sending", 5)[0].name, "a__send");
});

test("search: the index is kept while the catalogue is the same, rebuilt when it changes", () => {
  const indexFor = indexCache();
  const schema = { type: "object" };
  const entries = [{ tool: { name: "a__x", description: "x", inputSchema: schema } }];
  const first = indexFor(entries);
  // The same definitions in fresh objects: the same index.
  assert(indexFor([{ tool: { ...entries[0].tool } }]) === first);
  const changed = indexFor([{ tool: { name: "a__x", description: "y", inputSchema: schema } }]);
  assert(changed !== first);
  assertEquals(changed.search("y", 1)[0].name, "a__x");
});

test("search: the hub loads the search index and the catalogue store only when it uses them", () => {
  const eager = [...walkGraph("hub/hub.ts", { eager: true }).modules.keys()];
  for (const lazy of ["hub/search.ts", "hub/_stored.ts"]) {
    assert(!eager.includes(lazy), `hub/hub.ts loads ${lazy} at once`);
  }
  // …and they are in its graph, behind dynamic imports.
  const all = [...walkGraph("hub/hub.ts").modules.keys()];
  assert(all.includes("hub/search.ts") && all.includes("hub/_stored.ts"), "the walk finds them");
});

test("search: the first search of an index (terms found by binary search) ranks as the later ones (a table)", () => {
  const tools: Tool[] = [
    { name: "weather__forecast", description: "Forecast the weather of a city", inputSchema: {} },
    { name: "mail__send_email", description: "Send an email to someone", inputSchema: {} },
    { name: "files__read_file", description: "Read a file from the disk", inputSchema: {} },
    { name: "maps__find_parking", description: "Find parking near an address", inputSchema: {} },
  ];
  const queries = ["weather in a city", "emails", "wether", "find parking", "read disk", "zzz"];
  const first = queries.map((query) => {
    const fresh = createToolIndex(tools);
    return fresh.search(query, 4).map((m) => `${m.name}:${m.score.toFixed(6)}`);
  });
  const index = createToolIndex(tools);
  index.search("warm up", 4);
  const later = queries.map((query) =>
    index.search(query, 4).map((m) => `${m.name}:${m.score.toFixed(6)}`)
  );
  assertEquals(later, first);
  assert(first[0][0].startsWith("weather__forecast") && first[5].length === 0);
});
