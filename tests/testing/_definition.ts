// A mock server definition with one of everything, for the testing/ tests (and, as the default
// export, for the stdio mock server).
import type { MockDefinition } from "../../testing/mod.ts";

/** A definition exercising every feature; `pageSize` 2 so lists have pages. */
export function fullDefinition(): MockDefinition {
  return {
    serverInfo: { name: "full-mock", version: "2.0.0" },
    instructions: "Use the tools kindly.",
    pageSize: 2,
    tools: [
      { name: "echo", inputSchema: { type: "object" }, handler: ({ text }) => String(text) },
      { name: "add", handler: ({ a, b }) => ({ sum: Number(a) + Number(b) }) },
      {
        name: "fail",
        handler: () => {
          throw new Error("it broke");
        },
      },
      {
        name: "slow",
        handler: (_args, ctx) => {
          for (let step = 1; step <= 3; step++) ctx.progress(step, 3, `step ${step}`);
          ctx.log("info", "slow ran");
          return "done";
        },
      },
      {
        name: "ask",
        handler: async (_args, ctx) => {
          const [form, sampled] = await Promise.all([
            ctx.elicit({
              message: "Name?",
              requestedSchema: { type: "object", properties: { name: { type: "string" } } },
            }),
            ctx.sample({
              messages: [{ role: "user", content: { type: "text", text: "hi" } }],
              maxTokens: 5,
            }),
          ]);
          const roots = await ctx.roots();
          const name = (form.content as { name?: string } | undefined)?.name;
          const said = (sampled.content as { text?: string }).text;
          return `${name} ${said} ${roots.map((r) => r.uri).join(",")}`;
        },
      },
      { name: "long", task: "optional", handler: () => "finished as a task" },
    ],
    prompts: [
      {
        name: "greeting",
        arguments: [{ name: "name", required: true }],
        handler: ({ name }) => `Hello, ${name}!`,
        complete: { name: ["Ada", "Alan", "Grace"] },
      },
      { name: "plain", description: "No arguments" },
    ],
    resources: [
      { uri: "mem://a", name: "a", text: "alpha" },
      { uri: "mem://b", name: "b", text: "beta" },
      { uri: "mem://c", name: "c", read: () => "gamma" },
    ],
    templates: [
      {
        uriTemplate: "item://{id}",
        name: "item",
        read: (_uri, { id }) => `item ${id}`,
        complete: { id: ["1", "2", "42"] },
      },
    ],
  };
}

export default fullDefinition;
