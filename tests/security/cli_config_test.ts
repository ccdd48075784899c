// Item 26: without --config the CLI reads only config files the user can vouch for: the walk
// up stops at the repository root or the home folder, files owned by someone else or
// writable by others are ignored, and the user's own host config wins for the names it
// defines.
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { loadServers, untrustedConfig } from "../../cli/_config.ts";
import { assert, assertEquals, test } from "../_harness.ts";

function servers(entries: Record<string, string>): string {
  const mcpServers: Record<string, unknown> = {};
  for (const [name, command] of Object.entries(entries)) {
    mcpServers[name] = { command, args: ["${env:SECRET}"] };
  }
  return JSON.stringify({ mcpServers });
}

function write(path: string, text: string, mode = 0o644): void {
  writeFileSync(path, text);
  chmodSync(path, mode);
}

function tree() {
  const root = mkdtempSync(join(tmpdir(), "conduit-sec-config-"));
  const home = join(root, "home");
  mkdirSync(join(home, ".cursor"), { recursive: true });
  write(join(home, ".cursor", "mcp.json"), servers({ fs: "host-fs" }));
  const env = (name: string) => ({ HOME: home, SECRET: "s3cret" } as Record<string, string>)[name];
  return { root, home, env, dispose: () => rmSync(root, { recursive: true, force: true }) };
}

test("item 26: an mcp.json planted above the repository root or the home folder is not read", async () => {
  const { root, home, env, dispose } = tree();
  try {
    // Above a repository: /root/planted/mcp.json, the repository at /root/planted/work/repo.
    mkdirSync(join(root, "planted", "work", "repo", ".git"), { recursive: true });
    mkdirSync(join(root, "planted", "work", "repo", "src"), { recursive: true });
    write(join(root, "planted", "mcp.json"), servers({ evil: "planted" }));
    const inRepo = await loadServers(undefined, join(root, "planted", "work", "repo", "src"), env);
    assertEquals(Object.keys(inRepo?.servers ?? {}), ["fs"], JSON.stringify(inRepo));
    // Above the home folder: /root/mcp.json, the working folder under home, no repository.
    write(join(root, "mcp.json"), servers({ evil: "planted" }));
    mkdirSync(join(home, "notes", "deep"), { recursive: true });
    const inHome = await loadServers(undefined, join(home, "notes", "deep"), env);
    assertEquals(Object.keys(inHome?.servers ?? {}), ["fs"], JSON.stringify(inHome));
    // The repository root's own file is still the project's.
    write(join(root, "planted", "work", "repo", "mcp.json"), servers({ project: "mine" }));
    const own = await loadServers(undefined, join(root, "planted", "work", "repo", "src"), env);
    assertEquals(own?.servers.project?.command, "mine");
    assertEquals(own?.servers.evil, undefined);
  } finally {
    dispose();
  }
});

test("item 26: a config file writable by others or owned by someone else is ignored", async () => {
  const { home, env, dispose } = tree();
  try {
    const project = join(home, "project");
    mkdirSync(join(project, ".git"), { recursive: true });
    write(join(project, "mcp.json"), servers({ evil: "writable" }), 0o666);
    const writable = await loadServers(undefined, project, env);
    assertEquals(Object.keys(writable?.servers ?? {}), ["fs"], JSON.stringify(writable));
    const uid = process.getuid?.() ?? 0;
    assertEquals(untrustedConfig({ uid, mode: 0o100644 }, uid), undefined);
    assert(untrustedConfig({ uid: uid + 1, mode: 0o100644 }, uid) !== undefined);
    assert(untrustedConfig({ uid, mode: 0o100646 }, uid) !== undefined);
    if (uid === 0) {
      // Root can give the file away: owned by nobody now, it is not read either.
      chmodSync(join(project, "mcp.json"), 0o644);
      chownSync(join(project, "mcp.json"), 65534, 65534);
      const foreign = await loadServers(undefined, project, env);
      assertEquals(Object.keys(foreign?.servers ?? {}), ["fs"], JSON.stringify(foreign));
    }
  } finally {
    dispose();
  }
});

test("item 26: the user's own host config wins for the names it defines", async () => {
  const { home, env, dispose } = tree();
  try {
    const project = join(home, "project");
    mkdirSync(join(project, ".git"), { recursive: true });
    write(join(project, "mcp.json"), servers({ fs: "project-fs", other: "project-other" }));
    const config = await loadServers(undefined, project, env);
    assertEquals(config?.servers.fs?.command, "host-fs");
    assertEquals(config?.servers.other?.command, "project-other");
  } finally {
    dispose();
  }
});
