import { assertEquals, test } from "../_harness.ts";
import { clientVersions, era, pickVersion } from "../../protocol/versions.ts";

test("era() sorts dates into eras and everything else into unknown", () => {
  const table: [unknown, string][] = [
    ["2026-07-28", "modern"],
    ["2027-01-01", "modern"],
    ["2026-07-27", "legacy"],
    ["2025-11-25", "legacy"],
    ["2025-06-18", "legacy"],
    ["2024-11-05", "legacy"],
    ["2026-02-30", "unknown"],
    ["2026-13-01", "unknown"],
    ["2026-7-28", "unknown"],
    [" 2026-07-28", "unknown"],
    ["latest", "unknown"],
    ["", "unknown"],
    [20260728, "unknown"],
    [null, "unknown"],
  ];
  for (const [input, expected] of table) assertEquals(era(input), expected, String(input));
});

test("clientVersions() lists the versions newest first and returns a copy", () => {
  const versions = clientVersions();
  assertEquals(versions, ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"]);
  versions.pop();
  assertEquals(clientVersions().length, 4);
});

test("pickVersion() takes the client's preference order", () => {
  assertEquals(pickVersion(["2025-06-18", "2025-11-25"]), "2025-11-25");
  assertEquals(pickVersion(["2024-11-05"]), undefined);
  assertEquals(pickVersion([]), undefined);
  assertEquals(
    pickVersion(["2026-07-28", "2025-06-18"], ["2025-06-18", "2026-07-28"]),
    "2025-06-18",
  );
});

test("2025-03-26, the oldest version spoken: no elicitation, a plain sampling capability", async () => {
  const { clientCapabilities } = await import("../../protocol/capabilities.ts");
  const handler = { sampling: () => ({}), elicitation: () => ({}), listRoots: () => [] };
  const options = { samplingTools: true, samplingContext: true, rootsListChanged: true };
  assertEquals(clientCapabilities(handler as never, { ...options, version: "2025-03-26" }), {
    sampling: {},
    roots: { listChanged: true },
  });
  assertEquals(
    clientCapabilities(handler as never, { ...options, version: "2025-06-18" }).elicitation,
    {},
  );
  assertEquals(clientVersions().at(-1), "2025-03-26");
});
