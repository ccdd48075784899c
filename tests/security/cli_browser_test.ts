// Item 27: login opens the browser without a shell parsing the authorization URL.
import { browserCommand } from "../../cli/commands/_auth.ts";
import { assert, assertEquals, test } from "../_harness.ts";

const SHELLS = /^(?:cmd|cmd\.exe|powershell|pwsh|sh|bash)$/i;

test("item 27: on Windows the authorization URL, '&' and all, is one argument of a launcher no shell parses", () => {
  const url = new URL(
    "https://auth.example/authorize?response_type=code&client_id=a&redirect_uri=" +
      encodeURIComponent("http://127.0.0.1:5000/callback") + "&state=s%26x&code_challenge=c",
  );
  const argv = browserCommand("win32", url);
  assert(!SHELLS.test(argv[0]), `a shell parses the URL: ${JSON.stringify(argv)}`);
  assertEquals(argv, ["rundll32", "url.dll,FileProtocolHandler", url.href]);
  for (const platform of ["darwin", "linux", "freebsd"]) {
    const vector = browserCommand(platform, url);
    assert(!SHELLS.test(vector[0]), `${platform}: ${JSON.stringify(vector)}`);
    assertEquals(vector[vector.length - 1], url.href, platform);
  }
});
