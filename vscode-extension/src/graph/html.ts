// The graph view's page: a fixed skeleton (toolbar, legend, the drawing's container) under a strict
// Content-Security-Policy. Nothing from the vault is written into this HTML: the page's script
// puts note text into the DOM with textContent only, from the messages it is sent.

import { randomBytes } from "node:crypto";
import { type DepthRange, depthChoices } from "./bounds";

export interface GraphPage {
  nonce: string; // fresh for each page: only scripts carrying it run
  cspSource: string; // the webview's own resource origin (webview.cspSource)
  library: string; // webview URIs (webview.asWebviewUri) of the extension's media files
  script: string;
  style: string;
  depths: DepthRange; // the toolbar's depth choices
}

export function newNonce(): string {
  return randomBytes(18).toString("base64url");
}

/** Only the extension's own files: scripts by nonce, styles from the webview's origin; no network,
 * no inline script or style, no eval, nothing framed, no form sent anywhere. */
export function contentSecurityPolicy(nonce: string, cspSource: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${cspSource}`,
    `img-src ${cspSource}`,
    `font-src ${cspSource}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
}

const ATTRIBUTE_ESCAPES: Record<string, string> = { "&": "&amp;", '"': "&quot;", "'": "&#39;", "<": "&lt;", ">": "&gt;" };

export function escapeAttribute(text: string): string {
  return text.replace(/[&"'<>]/g, (character) => ATTRIBUTE_ESCAPES[character] ?? character);
}

function depthOptions(depths: DepthRange): string {
  return depthChoices(depths)
    .map((depth) => `<option value="${depth}">${depth}</option>`)
    .join("");
}

export function graphHtml(page: GraphPage): string {
  const nonce = escapeAttribute(page.nonce);
  const csp = escapeAttribute(contentSecurityPolicy(page.nonce, page.cspSource));
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${escapeAttribute(page.style)}">
<title>memlsp graph</title>
</head>
<body>
<header id="toolbar">
<label>Depth <select id="depth" aria-label="Links away from the note">${depthOptions(page.depths)}</select></label>
<input id="filter" type="search" spellcheck="false" placeholder="Filter: folder/ #tag word" aria-label="Show only nodes in a folder, with a tag or a word">
<span id="summary" role="status"></span>
<span id="legend" aria-label="Legend">
<span class="key"><span class="swatch centre"></span>this note</span>
<span class="key"><span class="swatch note"></span>note</span>
<span class="key"><span class="swatch meaning"></span>by meaning</span>
<span class="key"><span class="swatch file"></span>file</span>
<span class="key"><span class="swatch unresolved"></span>not written</span>
<span class="key"><span class="line link"></span>link</span>
<span class="key"><span class="line meaning"></span>close in meaning</span>
</span>
</header>
<div id="notice" role="status"></div>
<main id="graph"></main>
<div id="message" role="status"></div>
<script nonce="${nonce}" src="${escapeAttribute(page.library)}"></script>
<script nonce="${nonce}" type="module" src="${escapeAttribute(page.script)}"></script>
</body>
</html>
`;
}
