// Pure mapping of memlsp/related and memlsp/mentions answers into what the Related notes view and
// the two pickers show. No `vscode` import, so the node:test unit tests run without an editor.

import { snippet } from "./picker";
import { MentionAnswerJson, MentionsAnswerJson, RangeJson, RelatedAnswerJson, RelatedNoteAnswerJson } from "./wire";

/** A related note as a row: the Quick Pick's fields and the tree item's. */
export interface RelatedRow {
  label: string;
  /** Quick Pick: where it is, and whether the notes already link. */
  description: string;
  /** Quick Pick: why it is related, and how close. */
  detail: string;
  /** Tree item: how close, and whether the notes already link (the label names the note). */
  treeDescription: string;
  /** Tree item: why, and where. */
  tooltip: string;
  uri: string;
  /** What the Insert link button writes. */
  wikilink: string;
}

/** A score as the rows show it: two decimals. */
export function scoreText(score: number): string {
  return score.toFixed(2);
}

/** A wikilink to a note from the text that resolves to it (the server's shortest). */
export function wikilink(link: string): string {
  return `[[${link}]]`;
}

export function relatedRow(result: RelatedNoteAnswerJson): RelatedRow {
  const score = scoreText(result.score);
  const linked = result.linked ? "linked" : "";
  return {
    label: result.title || result.path,
    description: [result.path, linked].filter(Boolean).join(" · "),
    detail: [result.reason, score].filter(Boolean).join(" · "),
    treeDescription: [score, linked].filter(Boolean).join(" · "),
    tooltip: [result.reason, result.path].filter(Boolean).join("\n"),
    uri: result.uri,
    wikilink: wikilink(result.link),
  };
}

/** What to say instead of rows: undefined when there are rows to show. */
export function relatedMessage(answer: RelatedAnswerJson | null): string | undefined {
  if (answer === null) {
    return "This note is in no open vault.";
  }
  if (answer.results.length) {
    return undefined;
  }
  return answer.warning || "No notes are close to this one in meaning.";
}

// -- memlsp/mentions -----------------------------------------------------------------------------

/** The title of the Link all code action the server offers on a note's first line. */
export const LINK_ALL_PREFIX = "Link all";

/** A mention as a Quick Pick row, and where choosing it goes. */
export interface MentionRow {
  label: string;
  description: string;
  detail: string;
  uri: string;
  range: RangeJson;
}

/** `lineText`: the mentioning line as the file has it, when it was read. */
export function mentionRow(mention: MentionAnswerJson, lineText?: string): MentionRow {
  const shared = mention.targets.length > 1 ? `shared by ${mention.targets.join(", ")}` : "";
  const line = lineText === undefined ? "" : snippet(lineText);
  return {
    label: mention.text,
    description: `${mention.path}:${mention.range.start.line + 1}`,
    detail: [line, shared].filter(Boolean).join(" · ") || `→ ${mention.targets.join(", ")}`,
    uri: mention.uri,
    range: mention.range,
  };
}

export function linkAllLabel(count: number): string {
  return `${LINK_ALL_PREFIX} ${count} unlinked mention${count === 1 ? "" : "s"}`;
}

/** The picker's title: how many mentions, and how many the server left out of the list. */
export function mentionsTitle(answer: MentionsAnswerJson, name: string): string {
  const count = answer.mentions.length;
  const more = answer.left_out ? ` (${answer.left_out} more not listed)` : "";
  return `Unlinked mentions of ${name}: ${count}${more}`;
}

/** The server's Link all action among a note's code actions. */
export function findLinkAll<T extends { title: string }>(actions: readonly T[]): T | undefined {
  return actions.find((action) => action.title.startsWith(LINK_ALL_PREFIX));
}

/** The lines asked for (0-based) of a file's text; a line past the end is left out. */
export function linesOf(text: string, wanted: ReadonlySet<number>): Map<number, string> {
  const lines = text.split(/\r\n|\r|\n/);
  const found = new Map<number, string>();
  for (const number of wanted) {
    const line = lines[number];
    if (line !== undefined) {
      found.set(number, line);
    }
  }
  return found;
}

/** `fn` called once, `ms` after the last of a burst of calls (an editor switch, a notification). */
export function debounce(fn: () => void, ms: number): { (): void; cancel(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const call = (): void => {
    if (timer !== undefined) {
      clearTimeout(timer);
    }
    timer = setTimeout(() => {
      timer = undefined;
      fn();
    }, ms);
  };
  call.cancel = (): void => {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
  };
  return call;
}

/** A note's name as links write it: its file name without `.md`, from its URI. */
export function noteName(uri: string): string {
  const last = uri.replace(/[?#].*$/, "").split("/").filter(Boolean).pop() ?? uri;
  let name = last;
  try {
    name = decodeURIComponent(last);
  } catch {
    // a malformed escape: the name as written
  }
  return name.replace(/\.md$/i, "");
}
