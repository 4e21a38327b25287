import assert from "node:assert/strict";
import { test } from "node:test";
import { DEFAULT_DEPTHS, DepthRange } from "../graph/bounds";
import { contentSecurityPolicy, escapeAttribute, graphHtml, newNonce } from "../graph/html";

const BASE = "https://file+.vscode-resource.vscode-cdn.net/ext/media";
const CSP_SOURCE = "https://*.vscode-cdn.net";

function page(nonce = "n0nce-Value_1", depths: DepthRange = DEFAULT_DEPTHS): string {
  return graphHtml({
    nonce,
    cspSource: CSP_SOURCE,
    library: `${BASE}/vendor/force-graph.min.js`,
    script: `${BASE}/graph/webview/graphView.js`,
    style: `${BASE}/graph.css`,
    depths,
  });
}

test("the policy allows nothing by default, scripts by nonce only, styles from the webview's origin", () => {
  const csp = contentSecurityPolicy("abc", CSP_SOURCE);
  const directives = new Map(csp.split("; ").map((d) => [d.split(" ")[0], d.split(" ").slice(1).join(" ")]));
  assert.equal(directives.get("default-src"), "'none'");
  assert.equal(directives.get("script-src"), "'nonce-abc'");
  assert.equal(directives.get("style-src"), CSP_SOURCE);
  assert.ok(!csp.includes("unsafe-inline") && !csp.includes("unsafe-eval"), csp);
  assert.ok(!/\bhttps?:\/\/(?!\*\.vscode-cdn\.net)/.test(csp), "no other origin");
});

test("the page: its policy first in <head>, every script with the nonce and from the extension's files", () => {
  const html = page();
  const head = html.slice(html.indexOf("<head>"), html.indexOf("</head>"));
  assert.match(head, /^<head>\s*<meta charset="UTF-8">\s*<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; script-src &#39;nonce-n0nce-Value_1&#39;;/);
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
  assert.equal(scripts.length, 2);
  for (const [, attributes, body] of scripts) {
    assert.match(attributes ?? "", / nonce="n0nce-Value_1"/);
    assert.match(attributes ?? "", new RegExp(` src="${BASE.replace(/[.+]/g, "\\$&")}/`));
    assert.equal(body, "", "no inline script");
  }
  const sources = [...html.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => m[1]);
  assert.equal(sources.length, 3);
  assert.ok(sources.every((source) => source?.startsWith(`${BASE}/`)), sources.join(", "));
});

test("no inline handlers, no inline styles, nothing from the network", () => {
  const html = page();
  assert.doesNotMatch(html, /\son[a-z]+\s*=/i);
  assert.doesNotMatch(html, /<style\b|\sstyle\s*=/i);
  assert.doesNotMatch(html.replaceAll(BASE, "").replaceAll(CSP_SOURCE, ""), /https?:|\/\//);
  assert.match(html, /<select id="depth"[^>]*><option value="1">1<\/option><option value="2">2<\/option><option value="3">3<\/option><\/select>/);
});

test("attribute values are escaped; nonces are fresh and unguessable", () => {
  assert.equal(escapeAttribute(`a"b'<c>&`), "a&quot;b&#39;&lt;c&gt;&amp;");
  const html = page(`x" onload="alert(1)`);
  assert.doesNotMatch(html, /nonce="x" onload=/);
  const nonces = new Set(Array.from({ length: 50 }, newNonce));
  assert.equal(nonces.size, 50);
  for (const nonce of nonces) {
    assert.match(nonce, /^[A-Za-z0-9_-]{24}$/);
  }
});

test("the toolbar offers the depths it is given, and 1..3 when the server announced none", () => {
  assert.match(page(undefined, { min: 2, max: 2 }), /<select id="depth"[^>]*><option value="2">2<\/option><\/select>/);
  assert.match(page(undefined, { min: 1, max: 2 }), /<select id="depth"[^>]*><option value="1">1<\/option><option value="2">2<\/option><\/select>/);
  assert.deepEqual(DEFAULT_DEPTHS, { min: 1, max: 3 });
});
