import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { CLIENT_SETTINGS, SERVER_SETTINGS, ServerSettingName, serverOptions } from "../settings";

interface Property {
  type: string;
  default: unknown;
}

// out/test/ -> the extension folder.
const manifest = JSON.parse(readFileSync(join(__dirname, "..", "..", "package.json"), "utf8")) as {
  contributes: { configuration: { properties: Record<string, Property> } };
};
const properties = manifest.contributes.configuration.properties;

function defaults(name: ServerSettingName): unknown {
  return properties[`memlsp.${name}`]?.default;
}

test("SERVER_SETTINGS and CLIENT_SETTINGS are exactly package.json's memlsp.* settings", () => {
  const declared = Object.keys(properties).sort();
  const known = [...SERVER_SETTINGS, ...CLIENT_SETTINGS].map((name) => `memlsp.${name}`).sort();
  assert.deepEqual(declared, known);
});

test("defaults become initializationOptions with the server's names; empty cache_dir is left out", () => {
  const options = serverOptions(defaults);
  assert.equal(options.cache_dir, undefined);
  assert.equal(options.max_chunk_tokens, 512);
  assert.equal(options.embedder, "bilingual");
  assert.equal(options.watch, true);
  assert.deepEqual(options.exclude, []);
  assert.equal(options.vector_weight, 0.5);
  assert.deepEqual(Object.keys(options).sort(), SERVER_SETTINGS.filter((n) => n !== "cache_dir").sort());
  for (const name of CLIENT_SETTINGS) {
    assert.ok(!(name in options));
  }
});

test("user values pass through; unset values and non-JSON values are dropped", () => {
  const values: Partial<Record<ServerSettingName, unknown>> = {
    cache_dir: "~/idx",
    exclude: ["archive", "templates"],
    symbol_limit: 25,
    watch: false,
    embedder: "none",
    max_candidates: null,
    chroma_url: { not: "a string" },
  };
  const options = serverOptions((name) => values[name]);
  assert.deepEqual(options, {
    cache_dir: "~/idx",
    exclude: ["archive", "templates"],
    symbol_limit: 25,
    watch: false,
    embedder: "none",
  });
});
