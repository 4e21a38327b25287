// VS Code's built-in "Markdown Language Features" answers some of the same requests as memlsp for
// every Markdown file, and VS Code shows both answers side by side. What the built-in answers
// (measured in VS Code 1.139 on fixtures/vault) and what the extension does about it:
//
// - Document symbols (Outline, breadcrumbs, Ctrl+Shift+O): the built-in lists every heading,
//   nested, at the same ranges as memlsp. memlsp does not offer them in VS Code: two providers
//   make Outline list each heading twice under two group levels ("memlsp", "Markdown Language
//   Features"), and the built-in's are as good.
// - References (Shift+F12): the built-in reads `[[note]]` as the reference link `[note]` and
//   returns that occurrence (a narrower range), and returns a heading itself for a heading.
//   VS Code drops a duplicate only when uri and range are equal, so the line was listed twice.
//   memlsp's answer (every link to the note or heading, vault-wide) is kept, minus the places the
//   built-in already lists.
// - Workspace symbols (Ctrl+T): the built-in lists every heading of the workspace as "# Title".
//   memlsp's note and section symbols that are the same place (same file and line) or the same
//   heading by name are left out; the rest (notes without a heading, say) stay.
// - Document links: the built-in links Markdown `[text](path)` links, memlsp every link
//   (wikilinks, embeds too). memlsp's links that overlap a built-in one are left out.
// - Definition, hover, call hierarchy: the built-in gives no definition for a wikilink (only a
//   heading to itself, which memlsp does not) and has no hover or call hierarchy: no overlap.
// - Completion: the built-in completes a Markdown link's destination (`[text](` paths, then `#`
//   heading slugs) as memlsp does, so both lists would show each file. There the built-in's
//   alone (`inMarkdownDestination`); `[[` wikilinks and `#tags`, which it does not complete, are
//   memlsp's.
// - Rename: memlsp renames notes, headings, tags and block ids with every link to them, and moves
//   in the explorer keep links (`workspace/willRenameFiles`). VS Code asks memlsp first; on plain
//   text memlsp declines and the built-in may answer. The built-in's own link updates on a move
//   (`markdown.updateLinksOnFileMove.enabled`) are off by default: leave them off, or both edit.
// - Folding, selection ranges: the built-in's alone.
// Pure, for the unit tests: positions and places as plain values.

export interface Position {
  line: number;
  character: number;
}

export interface Span {
  start: Position;
  end: Position;
}

export interface Place {
  uri: string;
  range: Span;
}

export interface NamedPlace extends Place {
  name: string;
}

function before(a: Position, b: Position): boolean {
  return a.line < b.line || (a.line === b.line && a.character <= b.character);
}

/** Whether two spans share a position; an empty span at the start of the other counts. */
export function overlaps(a: Span, b: Span): boolean {
  return before(a.start, b.end) && before(b.start, a.end);
}

/** `ours` without the items at a place that overlaps one of `theirs` (the built-in shows those). */
export function withoutOverlaps<T>(ours: readonly T[], place: (item: T) => Place, theirs: readonly Place[]): T[] {
  return ours.filter((item) => {
    const mine = place(item);
    return !theirs.some((other) => other.uri === mine.uri && overlaps(other.range, mine.range));
  });
}

/** Whether the text before the cursor ends inside a Markdown link's destination: `[text](pa`. */
export function inMarkdownDestination(before: string): boolean {
  return /\]\([^()\s]*$/.test(before);
}

/** A heading's text, as either side names it ("## Fusion", "Hybrid search › Fusion"). */
export function headingText(name: string): string {
  const last = name.split(" › ").pop() ?? name;
  return last.replace(/^#+\s*/, "").trim();
}

/** `ours` without the symbols that start on the line of one of `theirs`, or name the same heading in the same file. */
export function withoutSameSymbols<T>(ours: readonly T[], place: (item: T) => NamedPlace, theirs: readonly NamedPlace[]): T[] {
  return ours.filter((item) => {
    const mine = place(item);
    return !theirs.some(
      (other) =>
        other.uri === mine.uri &&
        (other.range.start.line === mine.range.start.line || headingText(other.name) === headingText(mine.name)),
    );
  });
}
