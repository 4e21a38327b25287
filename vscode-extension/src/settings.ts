// The server's settings as VS Code holds them (`memlsp.<name>`) turned into the object the server
// reads from `initializationOptions` and `workspace/didChangeConfiguration`. The names are those
// the server declares in `memlsp.settings` (`SETTINGS`) that a user may give, all but the ones
// set by nobody. The list is a copy, checked twice: tests/settings/test_extension_settings.py checks
// package.json's settings against the declarations (name, type, default, bounds), and
// src/test/settings.test.ts checks this list against package.json. A setting added to the server
// fails the first until package.json contributes it, then the second until it is listed here.

export const SERVER_SETTINGS = [
  "max_chunk_tokens",
  "max_file_bytes",
  "exclude",
  "max_candidates",
  "expand_limit",
  "symbol_limit",
  "watch",
  "cache_dir",
  "embedder",
  "embedder_model_dir",
  "embedder_url",
  "embedder_model",
  "embedder_api_key_env",
  "chroma_url",
  "vector_weight",
  "fusion",
  "rrf_k",
  "rrf_keyword_weight",
  "rrf_vector_weight",
  "about_boost",
  "translated_share",
  "recall_weight",
  "min_strength",
  "vector_retry_seconds",
  "model_idle_seconds",
  "unresolved_links",
  "missing_anchors",
  "ambiguous_links",
  "links_outside",
  "unlinked_mentions",
  "mention_min_length",
  "new_note_folder",
  "code_lens",
] as const;

export type ServerSettingName = (typeof SERVER_SETTINGS)[number];

/** Settings that only the extension reads; changing one means starting a different process. */
export const CLIENT_SETTINGS = ["server.command", "server.args", "pythonPath"] as const;

export type SettingValue = string | number | boolean | string[];
export type ServerOptions = Partial<Record<ServerSettingName, SettingValue>>;

/**
 * `get(name)` reads `memlsp.<name>` (with VS Code's default filled in). Every setting is sent, so
 * that removing one from settings.json puts the server back on the default: the server applies
 * `didChangeConfiguration` over `initializationOptions`, not over its own defaults.
 * Bad values are sent as they are: the server names each one to the user and keeps its default.
 */
export function serverOptions(get: (name: ServerSettingName) => unknown): ServerOptions {
  const options: ServerOptions = {};
  for (const name of SERVER_SETTINGS) {
    const value = get(name);
    if (value === undefined || value === null) {
      continue;
    }
    // "" means "the per-user cache"; the server would read it as the current folder.
    if (name === "cache_dir" && value === "") {
      continue;
    }
    if (isSettingValue(value)) {
      options[name] = value;
    }
  }
  return options;
}

function isSettingValue(value: unknown): value is SettingValue {
  if (Array.isArray(value)) {
    return value.every((item) => typeof item === "string");
  }
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean";
}
