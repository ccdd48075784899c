/**
 * Private: the client's listing methods, one page at a time (`listTools`, …) and every page
 * through the cache (`listAllTools`, …), where a cached listing follows its list's changes.
 *
 * Pagination (`requests/pagination.ts`) loads with the first listing.
 *
 * @module
 */

import type { ClientCache } from "./changes/cache.ts";
import type { FollowedList } from "./changes/subscriptions.ts";
import type { ListKind } from "./requests/pagination.ts";
import type { Requester } from "./requests/requests.ts";
import type {
  ListOptions,
  McpClient,
  Prompt,
  PromptsPage,
  Resource,
  ResourcesPage,
  ResourceTemplate,
  ResourceTemplatesPage,
  Tool,
  ToolsPage,
} from "./types.ts";

/** The listing methods of {@linkcode McpClient}. */
export type ListingMethods = Pick<
  McpClient,
  | "listTools"
  | "listPrompts"
  | "listResources"
  | "listResourceTemplates"
  | "listAllTools"
  | "listAllPrompts"
  | "listAllResources"
  | "listAllResourceTemplates"
>;

/**
 * The listing methods of a client.
 *
 * @param requester Sends the list requests.
 * @param cache Keeps the full listings.
 * @param following Follows the changes of lists (modern servers send them only when asked).
 * @returns The methods.
 */
export function listingMethods(
  requester: Requester,
  cache: ClientCache,
  following: <T>(lists: readonly FollowedList[], result: T) => T,
): ListingMethods {
  const listPage = async (kind: ListKind, options: ListOptions | undefined) =>
    await (await import("./requests/pagination.ts")).listPage(requester, kind, options);
  return {
    async listTools(options) {
      const page = await listPage("tools", options);
      return { tools: page.items, nextCursor: page.nextCursor } as ToolsPage;
    },
    async listPrompts(options) {
      const page = await listPage("prompts", options);
      return { prompts: page.items, nextCursor: page.nextCursor } as PromptsPage;
    },
    async listResources(options) {
      const page = await listPage("resources", options);
      return { resources: page.items, nextCursor: page.nextCursor } as ResourcesPage;
    },
    async listResourceTemplates(options) {
      const page = await listPage("resourceTemplates", options);
      return {
        resourceTemplates: page.items,
        nextCursor: page.nextCursor,
      } as ResourceTemplatesPage;
    },
    // A cached listing follows its list's changes (modern servers send them only when asked).
    listAllTools: (options) =>
      following(["tools"], cache.listAll("tools", options) as Promise<Tool[]>),
    listAllPrompts: (options) =>
      following(["prompts"], cache.listAll("prompts", options) as Promise<Prompt[]>),
    listAllResources: (options) =>
      following(["resources"], cache.listAll("resources", options) as Promise<Resource[]>),
    listAllResourceTemplates: (options) =>
      following(
        ["resources"],
        cache.listAll("resourceTemplates", options) as Promise<ResourceTemplate[]>,
      ),
  };
}
