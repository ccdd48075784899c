/**
 * Private: the listing behind `defer: true`. A source with `listCatalogue` (a hub) gives its
 * whole catalogue and the tools it keeps loaded; any other source lists its tools, and keeps
 * loaded those whose `_meta["anthropic/alwaysLoad"]` is `true`. Every other tool is sent
 * with `defer_loading: true`, for the provider's own tool search to find.
 *
 * @module
 */

import type { ListAllOptions } from "../client/types.ts";
import type { Tool } from "../protocol/shapes.ts";
import type { ToolSource } from "./types.ts";

/** The `_meta` key that keeps a tool loaded. */
const ALWAYS_LOAD = "anthropic/alwaysLoad";

/** A source that can list its whole catalogue (a hub). */
interface CatalogueSource {
  listCatalogue(options?: ListAllOptions): Promise<{ tools: Tool[]; alwaysLoad: string[] }>;
}

const hasCatalogue = (source: unknown): source is CatalogueSource =>
  typeof (source as Partial<CatalogueSource>).listCatalogue === "function";

/**
 * Lists a source for deferral.
 *
 * @param source The client or hub.
 * @param list The listing options.
 * @returns The tools and the original names of those kept loaded.
 */
export async function deferredListing(
  source: ToolSource,
  list: ListAllOptions,
): Promise<{ tools: Tool[]; loaded: Set<string> }> {
  if (hasCatalogue(source)) {
    const { tools, alwaysLoad } = await source.listCatalogue(list);
    return { tools, loaded: new Set(alwaysLoad) };
  }
  const tools = await source.listAllTools(list);
  const loaded = tools.filter((tool) => {
    const meta = (tool as { _meta?: Record<string, unknown> })._meta;
    return typeof meta === "object" && meta !== null && meta[ALWAYS_LOAD] === true;
  });
  return { tools, loaded: new Set(loaded.map((tool) => tool.name)) };
}

/** A kit's listing for `defer: true`, and what it kept loaded once it has listed. */
export interface DeferredLister {
  /** Lists the source (its whole catalogue, for a hub). */
  list(options: ListAllOptions): Promise<Tool[]>;
  /** The original names of the tools kept loaded (not deferred), after `list`. */
  loaded(): Set<string>;
}

/**
 * The listing a deferring kit builds from: {@linkcode deferredListing}, remembering what it
 * kept loaded.
 *
 * @param source The client or hub.
 * @returns The lister.
 */
export function deferredLister(source: ToolSource): DeferredLister {
  let loaded = new Set<string>();
  return {
    async list(options) {
      const listed = await deferredListing(source, options);
      loaded = listed.loaded;
      return listed.tools;
    },
    loaded: () => loaded,
  };
}
