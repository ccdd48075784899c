/**
 * Private: the token store names, exported by both the `./oauth` entry and the shared
 * entry exports (`_shared_exports.ts`), so the list lives in one place.
 *
 * @module
 */

export {
  type ClientRegistration,
  type MaybePromise,
  memoryTokenStore,
  type MemoryTokenStoreOptions,
  type PendingAuthorization,
  type TokenKey,
  type TokenSet,
  type TokenStore,
} from "./store.ts";
