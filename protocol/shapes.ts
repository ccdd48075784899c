/**
 * The wire's shapes of what a server lists and returns, as the client hands them over: tools,
 * prompts, resources, pages, tool results, and the arguments of `complete`. They live here,
 * below every layer that names them (the client, governance, the adapters, the hub);
 * `client/shapes.ts` keeps their public names.
 *
 * @module
 */

/** A tool as the server lists it. */
export interface Tool {
  /** The tool's name. */
  name: string;
  /** A name to show. */
  title?: string;
  /** What it does. */
  description?: string;
  /** The JSON Schema of its arguments. */
  inputSchema: Record<string, unknown>;
  /** The JSON Schema of its `structuredContent`. */
  outputSchema?: Record<string, unknown>;
  /** Untrusted hints (`readOnlyHint`, …). */
  annotations?: Record<string, unknown>;
  /** Further members. */
  [key: string]: unknown;
}

/** A prompt as the server lists it. */
export interface Prompt {
  /** The prompt's name. */
  name: string;
  /** A name to show. */
  title?: string;
  /** What it is for. */
  description?: string;
  /** Its arguments. */
  arguments?: { name: string; description?: string; required?: boolean }[];
  /** Further members. */
  [key: string]: unknown;
}

/** A resource as the server lists it. */
export interface Resource {
  /** Its URI. */
  uri: string;
  /** Its name. */
  name: string;
  /** The MIME type, when known. */
  mimeType?: string;
  /** Further members. */
  [key: string]: unknown;
}

/** A resource template as the server lists it. */
export interface ResourceTemplate {
  /** The RFC 6570 URI template. */
  uriTemplate: string;
  /** Its name. */
  name: string;
  /** Further members. */
  [key: string]: unknown;
}

/** One page of tools. */
export interface ToolsPage {
  /** The tools of this page. */
  tools: Tool[];
  /** The cursor of the next page; absent on the last. */
  nextCursor?: string;
}

/** One page of prompts. */
export interface PromptsPage {
  /** The prompts of this page. */
  prompts: Prompt[];
  /** The cursor of the next page; absent on the last. */
  nextCursor?: string;
}

/** One page of resources. */
export interface ResourcesPage {
  /** The resources of this page. */
  resources: Resource[];
  /** The cursor of the next page; absent on the last. */
  nextCursor?: string;
}

/** One page of resource templates. */
export interface ResourceTemplatesPage {
  /** The templates of this page. */
  resourceTemplates: ResourceTemplate[];
  /** The cursor of the next page; absent on the last. */
  nextCursor?: string;
}

/** Optional hints on a content block (who it is for, how much it matters). */
export interface ContentAnnotations {
  /** Who the block is meant for: `"user"`, `"assistant"`. */
  audience?: string[];
  /** From 0 (least) to 1 (most important). */
  priority?: number;
  /** When it last changed (ISO 8601). */
  lastModified?: string;
  /** Further members. */
  [key: string]: unknown;
}

/** A `text` content block. */
export interface TextContent {
  /** Always `"text"`. */
  type: "text";
  /** The text. */
  text: string;
  /** Hints for the host. */
  annotations?: ContentAnnotations;
  /** Block metadata. */
  _meta?: Record<string, unknown>;
  /** Further members. */
  [key: string]: unknown;
}

/** An `image` content block: base64 `data` of `mimeType`. */
export interface ImageContent {
  /** Always `"image"`. */
  type: "image";
  /** The image, base64. */
  data: string;
  /** Its MIME type (`image/png`, …). */
  mimeType: string;
  /** Hints for the host. */
  annotations?: ContentAnnotations;
  /** Block metadata. */
  _meta?: Record<string, unknown>;
  /** Further members. */
  [key: string]: unknown;
}

/** An `audio` content block: base64 `data` of `mimeType`. */
export interface AudioContent {
  /** Always `"audio"`. */
  type: "audio";
  /** The audio, base64. */
  data: string;
  /** Its MIME type (`audio/wav`, …). */
  mimeType: string;
  /** Hints for the host. */
  annotations?: ContentAnnotations;
  /** Block metadata. */
  _meta?: Record<string, unknown>;
  /** Further members. */
  [key: string]: unknown;
}

/** A `resource_link` content block: a resource the client may read (`readResource(uri)`). */
export interface ResourceLinkContent {
  /** Always `"resource_link"`. */
  type: "resource_link";
  /** The resource's URI. */
  uri: string;
  /** Its name. */
  name: string;
  /** A name to show. */
  title?: string;
  /** What it is. */
  description?: string;
  /** Its MIME type, when known. */
  mimeType?: string;
  /** Its size in bytes, when known. */
  size?: number;
  /** Hints for the host. */
  annotations?: ContentAnnotations;
  /** Block metadata. */
  _meta?: Record<string, unknown>;
  /** Further members. */
  [key: string]: unknown;
}

/** A `resource` content block: a resource embedded whole, as text or as a base64 blob. */
export interface EmbeddedResourceContent {
  /** Always `"resource"`. */
  type: "resource";
  /** The resource: its `uri`, and `text` or `blob`. */
  resource: {
    uri: string;
    mimeType?: string;
    text?: string;
    blob?: string;
    [key: string]: unknown;
  };
  /** Hints for the host. */
  annotations?: ContentAnnotations;
  /** Block metadata. */
  _meta?: Record<string, unknown>;
  /** Further members. */
  [key: string]: unknown;
}

/** The content blocks this client knows, told apart by `type`. */
export type KnownContent =
  | TextContent
  | ImageContent
  | AudioContent
  | ResourceLinkContent
  | EmbeddedResourceContent;

/** The `type` of a block this client knows. */
export type KnownContentType = KnownContent["type"];

/**
 * A block of a type this client does not know (a newer protocol's, or a server's own):
 * handed over as the server sent it.
 */
export interface UnknownContent {
  /** The block's type. */
  type: string;
  /** Its members. */
  [key: string]: unknown;
}

/**
 * A content block: `text`, `image`, `audio`, `resource_link`, `resource`, or a type this
 * client does not know (`UnknownContent`, the open fallback). A known type's required
 * members are checked when the result arrives, so a `text` block's `text` is a string.
 * Since the fallback's `type` is any string, `block.type === "text"` alone does not narrow
 * away the fallback in TypeScript: use `isContent(block, "text")` (or `resultText`).
 */
export type ContentBlock = KnownContent | UnknownContent;

/** What a tool call returned. A tool that ran and failed has `isError: true`. */
export interface ToolResult {
  /** The content blocks. */
  content: ContentBlock[];
  /** The structured result, when the tool gives one. */
  structuredContent?: unknown;
  /** Whether the tool reported a failure. */
  isError: boolean;
  /** Result metadata. */
  _meta?: Record<string, unknown>;
}

/** A page of a spilled result, as `readResult` reads it. */
export interface ReadResultPage {
  /** The page. */
  text: string;
  /** Where it starts. */
  offset: number;
  /** The length of the whole text paged (the result, or what `grep`/`jsonPath` made). */
  total: number;
  /** Where the next page starts, or `null` after the last. */
  nextOffset: number | null;
}

/** The server's `GetPromptResult`. */
export interface GetPromptResult {
  /** The prompt's messages. */
  messages: { role: string; content: ContentBlock }[];
  /** A description. */
  description?: string;
  /** Further members. */
  [key: string]: unknown;
}

/** The server's `ReadResourceResult`. */
export interface ReadResourceResult {
  /** Text or blob contents. */
  contents: { uri: string; mimeType?: string; text?: string; blob?: string }[];
  /** Further members. */
  [key: string]: unknown;
}

/** The server's `CompleteResult`. */
export interface CompleteResult {
  /** The completions. */
  completion: { values: string[]; total?: number; hasMore?: boolean };
  /** Further members. */
  [key: string]: unknown;
}

/** What `complete` completes: a prompt, a resource template, or a wire reference. */
export type CompletionRef =
  | { prompt: string }
  | { resource: string }
  | { type: string; [key: string]: unknown };

/** The argument being completed: `[name, value]` or `{ name, value }`. */
export type CompletionArgument = [name: string, value: string] | { name: string; value: string };
