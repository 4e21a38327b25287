// Wikilinks in VS Code's Markdown preview: `[[note]]`, `[[note#Heading|label]]` and `![[file]]`
// become links whose targets come from the server's `memlsp/links` answer, so the preview follows
// exactly the server's resolution rules; nothing here decides where a name leads. markdown-it
// renders synchronously, so the answers are kept per document (PreviewAnswers) and the preview is
// refreshed when a newer one arrives. No `vscode` import: the unit tests use all of this.

import type MarkdownIt from "markdown-it";
import type { LinksAnswerJson, VaultLinkJson } from "./wire";

/** A wikilink as written, split the way the server splits it (memlsp/parse/links.py). */
export interface Wikilink {
  /** The note or file part, trimmed; "" for a same-note link like `[[#Heading]]`. */
  target: string;
  /** As the server's `anchor`: the heading path "A#B", "^id" for a block, "" for none. */
  anchor: string;
  headings: string[];
  block: string | undefined;
  /** What the preview shows: the label after `|`, else the link as written (target and anchor). */
  text: string;
  embed: boolean;
}

// The server's pattern: no brackets and no line break inside.
const WIKILINK = /(!?)\[\[([^[\]\n]+)\]\]/y;

/** The wikilink starting at `pos` of `src` and ending by `max`, with where it ends. */
export function scanWikilink(src: string, pos: number, max = src.length): { link: Wikilink; end: number } | undefined {
  const first = src.charCodeAt(pos);
  if (first !== 0x21 /* ! */ && first !== 0x5b /* [ */) {
    return undefined;
  }
  WIKILINK.lastIndex = pos;
  const match = WIKILINK.exec(src);
  if (!match || pos + match[0].length > max) {
    return undefined;
  }
  return { link: parseWikilink(match[2] ?? "", match[1] === "!"), end: pos + match[0].length };
}

/** The parts of what is between `[[` and `]]`. */
export function parseWikilink(inner: string, embed: boolean): Wikilink {
  const text = inner.replace(/\\\|/g, "|"); // Obsidian escapes the pipe inside tables
  const bar = text.indexOf("|");
  const written = (bar < 0 ? text : text.slice(0, bar)).trim();
  const label = bar < 0 ? "" : text.slice(bar + 1).trim();
  const hash = written.indexOf("#");
  const target = (hash < 0 ? written : written.slice(0, hash)).trim();
  const rest = hash < 0 ? "" : written.slice(hash + 1);
  let headings: string[] = [];
  let block: string | undefined;
  if (rest.startsWith("^")) {
    block = rest.slice(1).trim() || undefined;
  } else {
    headings = rest
      .split("#")
      .map((part) => part.trim())
      .filter((part) => part !== "");
  }
  const anchor = block ? `^${block}` : headings.join("#");
  return { target, anchor, headings, block, text: label || written, embed };
}

// What VS Code's heading slugs keep (its github slugifier): letters, marks, decimal digits, letter
// numbers, `_`-like connectors, `-` and the space, which then becomes `-`.
const SLUG_DROPPED = /[^\p{L}\p{M}\p{Nd}\p{Nl}\p{Pc}\- ]/gu;

/** The id VS Code's preview gives a heading, and that its link resolution looks a `#fragment` up by. */
export function headingSlug(heading: string): string {
  return heading.trim().toLowerCase().replace(SLUG_DROPPED, "").replace(/\s/g, "-");
}

/** The vault-relative path `to` written relative to the folder of the note `from`. */
export function relativePath(from: string, to: string): string {
  const folder = from.split("/").slice(0, -1);
  const parts = to.split("/");
  let common = 0;
  while (common < folder.length && common < parts.length - 1 && folder[common] === parts[common]) {
    common += 1;
  }
  return [...folder.slice(common).map(() => ".."), ...parts.slice(common)].join("/");
}

/** A relative path as a URL path: each name percent-encoded (`#`, `?`, `%`, `:` and spaces too). */
export function encodePath(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/"); // `..` stays as it is
}

/** Where the preview sends a click: the target file relative to the note, and its heading's slug. */
export function linkHref(notePath: string, targetPath: string, link: Wikilink): string {
  const heading = link.headings[link.headings.length - 1];
  const slug = heading === undefined ? "" : headingSlug(heading);
  const fragment = slug ? `#${encodeURIComponent(slug)}` : "";
  if (targetPath === notePath && fragment) {
    return fragment; // the preview scrolls to it itself
  }
  return encodePath(relativePath(notePath, targetPath)) + fragment;
}

/** The server's outlink for a wikilink: the same target and anchor; else one with the same target
 * (its resolution is the same), while the server has not read the latest text yet. */
export function findOutlink(answer: LinksAnswerJson, link: Wikilink): VaultLinkJson | undefined {
  const wiki = answer.outlinks.filter((outlink) => outlink.kind === "wiki");
  return (
    wiki.find((outlink) => outlink.target === link.target && outlink.anchor === link.anchor) ??
    wiki.find((outlink) => outlink.target === link.target)
  );
}

export interface LinkView {
  /** Absent when there is nowhere to go (not found, not known yet): the preview shows no link. */
  href?: string;
  classes: string[];
  title: string;
}

/** What the written link means in the preview.
 *
 * `answer`: the server's answer for the note; undefined while it is being asked for, null when none
 * will come (the note is in no open vault, or is no file). An unresolved link gets no href: where a
 * new note would go is the server's choice (memlsp.new_note_folder), made by its Create note quick
 * fix in the editor, and a guessed path would open an empty editor somewhere else. */
export function linkView(link: Wikilink, answer: LinksAnswerJson | null | undefined): LinkView {
  const classes = ["memlsp-wikilink", ...(link.embed ? ["memlsp-embed"] : [])];
  const written = link.anchor ? `${link.target}#${link.anchor}` : link.target;
  if (answer === null) {
    return { classes, title: "memlsp: this note is in no open vault" };
  }
  if (answer === undefined) {
    return { classes: [...classes, "memlsp-pending"], title: `memlsp: looking up ${written}` };
  }
  const outlink = findOutlink(answer, link);
  if (!outlink) {
    // Typed since the server last read the note: a newer answer follows `memlsp/changed`.
    return { classes: [...classes, "memlsp-pending"], title: `memlsp: not among the note's indexed links yet: ${written}` };
  }
  const [first, ...rest] = outlink.targets;
  if ((outlink.status === "resolved" || outlink.status === "ambiguous") && first !== undefined) {
    const where = [first, ...link.headings, ...(link.block ? [`^${link.block}`] : [])].join(" › ");
    if (outlink.status === "ambiguous") {
      const others = outlink.candidates.filter((path) => path !== first);
      return {
        href: linkHref(answer.path, first, link),
        classes: [...classes, "memlsp-ambiguous"],
        title: `ambiguous: opens ${where}` + (others.length ? `; also ${others.join(", ")}` : ""),
      };
    }
    return {
      href: linkHref(answer.path, first, link),
      classes,
      title: where + (rest.length ? ` (also ${rest.join(", ")})` : ""),
    };
  }
  if (outlink.status === "outside") {
    return { classes: [...classes, "memlsp-outside"], title: `outside the vault: ${written}` };
  }
  return { classes: [...classes, "memlsp-unresolved"], title: `not found: ${written}` };
}

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text safe inside an element or a quoted attribute: the vault's notes are not trusted. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] ?? char);
}

/** The opening `<a>` of a wikilink; `data-href` is what VS Code's preview opens on a click. */
export function openingTag(view: LinkView): string {
  const attributes = [`class="${escapeHtml(view.classes.join(" "))}"`, `title="${escapeHtml(view.title)}"`];
  if (view.href !== undefined) {
    const href = escapeHtml(view.href);
    attributes.push(`href="${href}"`, `data-href="${href}"`);
  }
  return `<a ${attributes.join(" ")}>`;
}

/** The answer for a previewed document (its URI as a string); see linkView for undefined and null. */
export type AnswerLookup = (documentUri: string) => LinksAnswerJson | null | undefined;

const META_KEY = "memlspWikilink";

function wikilinkOf(token: MarkdownIt.Token): Wikilink | undefined {
  const meta: unknown = token.meta;
  if (typeof meta === "object" && meta !== null && META_KEY in meta) {
    return (meta as Record<typeof META_KEY, Wikilink>)[META_KEY];
  }
  return undefined;
}

/** The previewed document: VS Code passes its URI as `currentDocument` in the render env. */
export function documentUri(env: unknown): string | undefined {
  const current = (env as { currentDocument?: unknown } | null | undefined)?.currentDocument;
  return current === undefined || current === null ? undefined : String(current);
}

/**
 * Adds wikilinks to a markdown-it instance. They are parsed into `link_open`, `text`, `link_close`
 * (so other rules treat them as links: nothing is linkified inside one, and a heading's text is the
 * link's text); the href is decided when rendering, from the answer for the document being
 * rendered: VS Code keeps a document's tokens while its text is unchanged.
 */
export function wikilinkPlugin(md: MarkdownIt, lookup: AnswerLookup): MarkdownIt {
  md.inline.ruler.before("link", "memlsp_wikilink", (state, silent) => {
    const found = scanWikilink(state.src, state.pos, state.posMax);
    if (!found) {
      return false;
    }
    if (!silent) {
      // Inside a Markdown link's text a link cannot nest: only the text is shown.
      const inLink = ((state as { linkLevel?: number }).linkLevel ?? 0) > 0;
      if (!inLink) {
        const open = state.push("link_open", "a", 1);
        open.markup = "wikilink";
        open.meta = { [META_KEY]: found.link };
      }
      state.push("text", "", 0).content = found.link.text;
      if (!inLink) {
        state.push("link_close", "a", -1).markup = "wikilink";
      }
    }
    state.pos = found.end;
    return true;
  });

  const original = md.renderer.rules.link_open;
  md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
    const token = tokens[idx];
    const link = token && wikilinkOf(token);
    if (!link) {
      return original ? original(tokens, idx, options, env, self) : self.renderToken(tokens, idx, options);
    }
    const uri = documentUri(env);
    return openingTag(linkView(link, uri === undefined ? null : lookup(uri)));
  };
  return md;
}

// --- The answers, one per previewed document ------------------------------------------------

export interface AnswerSource {
  /** The server's answer; undefined when there is no server to ask now. */
  fetch(uri: string): Promise<LinksAnswerJson | null | undefined>;
  /** The version of the open document at `uri`, undefined when it is not open. */
  version(uri: string): number | undefined;
  /** Renders the previews again (`markdown.preview.refresh`). */
  refresh(): void;
}

interface Entry {
  answer: LinksAnswerJson | null | undefined;
  shown: string; // what of the answer the preview shows, to tell whether a newer one changes it
  version: number | undefined; // of the document when its answer was last asked for
  asked: boolean;
  loading: Promise<void> | undefined;
  again: boolean;
}

/** The part of an answer that the rendered wikilinks depend on (not ranges, not inlinks). */
export function shownPart(answer: LinksAnswerJson | null): string {
  if (answer === null) {
    return "null";
  }
  const wiki = answer.outlinks
    .filter((outlink) => outlink.kind === "wiki")
    .map((o) => [o.target, o.anchor, o.status, o.targets, o.candidates]);
  return JSON.stringify([answer.path, wiki]);
}

/**
 * The server's `memlsp/links` answers for the documents the preview renders, so that rendering
 * (synchronous) has one at hand. A missing or stale answer (the document's version changed) is
 * asked for and the previews are refreshed when it changes what they show. `reloadAll` after the
 * index changed (`memlsp/changed`, `memlsp/indexed`), `documentChanged` as a document is edited.
 */
export class PreviewAnswers {
  private readonly entries = new Map<string, Entry>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private refreshTimer: NodeJS.Timeout | undefined;
  private allTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly source: AnswerSource,
    private readonly limit = 8,
    private readonly debounceMs = 300,
  ) {}

  /** The answer known for `uri` now; asks for a newer one when there is none or it is stale. */
  get(uri: string): LinksAnswerJson | null | undefined {
    if (!uri.startsWith("file:")) {
      return null; // the server reads notes from files only
    }
    let entry = this.entries.get(uri);
    if (entry) {
      this.entries.delete(uri); // most recently used last
    } else {
      entry = { answer: undefined, shown: "", version: undefined, asked: false, loading: undefined, again: false };
    }
    this.entries.set(uri, entry);
    for (const old of this.entries.keys()) {
      if (this.entries.size <= this.limit) {
        break;
      }
      this.entries.delete(old);
    }
    if (!entry.asked || entry.version !== this.source.version(uri)) {
      void this.reload(uri);
    }
    return entry.answer;
  }

  /** Asks again for the answer of a document the preview has rendered. */
  reload(uri: string): Promise<void> {
    const entry = this.entries.get(uri);
    if (!entry) {
      return Promise.resolve();
    }
    entry.asked = true;
    if (entry.loading) {
      entry.again = true; // asked while a request is under way: once more when it returns
      return entry.loading;
    }
    entry.loading = this.load(uri, entry).finally(() => {
      entry.loading = undefined;
    });
    return entry.loading;
  }

  private async load(uri: string, entry: Entry): Promise<void> {
    do {
      entry.again = false;
      entry.version = this.source.version(uri); // the version asked about: a render asks no more
      let answer: LinksAnswerJson | null | undefined;
      try {
        answer = await this.source.fetch(uri);
      } catch {
        answer = undefined; // the server is stopping or restarting: `memlsp/indexed` follows
      }
      if (answer !== undefined) {
        entry.answer = answer;
        const shown = shownPart(answer);
        if (shown !== entry.shown) {
          entry.shown = shown;
          this.scheduleRefresh();
        }
      }
    } while (entry.again);
  }

  /** The index changed: every answer may have (a note was created, renamed, deleted). */
  reloadAll(): void {
    clearTimeout(this.allTimer);
    this.allTimer = setTimeout(() => {
      this.allTimer = undefined;
      for (const uri of [...this.entries.keys()]) {
        void this.reload(uri);
      }
    }, this.debounceMs);
  }

  /** A document was edited: its answer is asked for again once the typing pauses. */
  documentChanged(uri: string): void {
    if (!this.entries.has(uri)) {
      return;
    }
    clearTimeout(this.timers.get(uri));
    this.timers.set(
      uri,
      setTimeout(() => {
        this.timers.delete(uri);
        void this.reload(uri);
      }, this.debounceMs),
    );
  }

  private scheduleRefresh(): void {
    // Several answers arriving together refresh the previews once.
    if (this.refreshTimer === undefined) {
      this.refreshTimer = setTimeout(() => {
        this.refreshTimer = undefined;
        this.source.refresh();
      }, 0);
    }
  }

  dispose(): void {
    for (const timer of [...this.timers.values(), this.refreshTimer, this.allTimer]) {
      clearTimeout(timer);
    }
    this.timers.clear();
    this.entries.clear();
  }
}
