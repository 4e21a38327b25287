// Pure mapping of the server's JSON answers (memlsp/search, memlsp/links) into what the UI
// shows. No `vscode` import, so the node:test unit tests run without an editor.

import { encodePath } from "./preview";
import { LinksAnswerJson, VaultLinkJson, VaultSearchResultJson } from "./wire";

/** Where opening an item goes: a note and 0-based lines to reveal and select. */
export interface Target {
  uri: string;
  startLine: number;
  endLine: number;
}

/** The fields of a vscode.QuickPickItem we fill, plus where the item leads. */
export interface PickItem {
  label: string;
  description: string;
  detail: string;
  alwaysShow: true;
  target: Target;
}

export const SNIPPET_LENGTH = 120;

/** One line of text: whitespace collapsed, cut at `max` characters with an ellipsis. */
export function snippet(text: string, max: number = SNIPPET_LENGTH): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= max ? line : line.slice(0, max - 1).trimEnd() + "…";
}

/** A chunk starts with its own heading line, which the label already shows. */
export function withoutHeadingLine(text: string): string {
  return text.replace(/^\s*#{1,6}\s[^\n]*\n?/, "");
}

/** `vault` names the result's workspace folder, given when there are several (multi-root). */
export function searchItem(result: VaultSearchResultJson, vault?: string): PickItem {
  const heading = result.heading && result.heading !== result.title ? result.heading : "";
  const label = heading ? `${result.title} › ${heading}` : result.title || result.path;
  // Which side found it: the user can tell a keyword match from a semantic neighbour.
  const badges: string[] = [];
  if (result.keyword_rank !== null) {
    badges.push("$(search) keyword");
  }
  if (result.vector_rank !== null) {
    badges.push("$(sparkle) semantic");
  }
  const where = `${vault ? `${vault}/` : ""}${result.path}:${result.start_line}-${result.end_line}`;
  return {
    label,
    description: [where, ...badges].join("  "),
    detail: snippet(withoutHeadingLine(result.text)),
    // VS Code's QuickPick filters items by its own fuzzy match on the label; semantic results
    // rarely contain the typed letters, so every item must be shown as the server ranked it.
    alwaysShow: true,
    target: {
      uri: result.uri,
      startLine: Math.max(result.start_line - 1, 0),
      endLine: Math.max(result.end_line - 1, 0),
    },
  };
}

/** The vault root's URI from a note's URI and its vault-relative path ("a/b.md"). */
export function rootUri(noteUri: string, notePath: string): string {
  const depth = notePath.split("/").filter((part) => part !== "").length;
  const parts = noteUri.split("/");
  return parts.slice(0, Math.max(parts.length - depth, 0)).join("/");
}

/** The link as written, near enough: a wikilink `[[target#anchor]]`, a Markdown link `](target#anchor)`. */
export function linkText(link: VaultLinkJson): string {
  const anchor = link.anchor ? `#${link.anchor}` : "";
  if (link.kind === "markdown") {
    return `${link.embed ? "!" : ""}](${link.target}${anchor})`;
  }
  return `${link.embed ? "!" : ""}[[${link.target}${anchor}]]`;
}

/** An outlink opens the note it points to (its first target); the server gives no line there. */
export function outlinkItem(link: VaultLinkJson, root: string): PickItem | undefined {
  const target = link.targets[0];
  if (target === undefined) {
    return undefined;
  }
  return {
    label: `$(arrow-right) ${target}`,
    description: link.targets.length > 1 ? `${linkText(link)} (${link.targets.length} targets)` : linkText(link),
    detail: `line ${link.range.start.line + 1} of ${link.source}`,
    alwaysShow: true,
    target: { uri: `${root}/${encodePath(target)}`, startLine: 0, endLine: 0 },
  };
}

/** An inlink opens the linking note at the link itself. */
export function inlinkItem(link: VaultLinkJson): PickItem {
  const line = link.range.start.line;
  return {
    label: `$(arrow-left) ${link.source}`,
    description: linkText(link),
    detail: `line ${line + 1}`,
    alwaysShow: true,
    target: { uri: link.uri, startLine: line, endLine: link.range.end.line },
  };
}

export interface LinkSections {
  outlinks: PickItem[];
  inlinks: PickItem[];
}

export function linkItems(response: LinksAnswerJson): LinkSections {
  const root = rootUri(response.uri, response.path);
  const outlinks: PickItem[] = [];
  // Ambiguous links point to several notes: each candidate is offered, like a resolved target.
  for (const link of [...response.outlinks, ...response.ambiguous]) {
    const item = outlinkItem(link.targets.length ? link : { ...link, targets: link.candidates }, root);
    if (item) {
      outlinks.push(item);
    }
  }
  return { outlinks, inlinks: response.inlinks.map(inlinkItem) };
}
