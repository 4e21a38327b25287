// The Explorer's "Related notes" view: the notes closest in meaning to the Markdown note last
// active in an editor (memlsp/related), and inserting a link to one of them into that note.
// The rows and messages come from the pure module related.ts.

import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import { RelatedRow, debounce, relatedMessage, relatedRow } from "./related";
import { Messages } from "./wire";

export const VIEW_ID = "memlsp.related";
export const RELATED_LIMIT = 20;
const FOLLOW_DEBOUNCE_MS = 300;
const ROW_CONTEXT = "memlsp.relatedNote";

/** A Markdown note on disk: what the server knows (other schemes, untitled files, are not in a vault). */
export function isNote(document: vscode.TextDocument): boolean {
  return document.languageId === "markdown" && document.uri.scheme === "file";
}

/** Inserts `text` at the cursor of the note's editor (the one given, else a visible one, else it
 * opens), leaves the cursor after it and the editor focused. */
export async function insertAtCursor(note: vscode.Uri, text: string, editor?: vscode.TextEditor): Promise<boolean> {
  const wanted = note.toString();
  const visible =
    editor && editor.document.uri.toString() === wanted && !editor.document.isClosed
      ? editor
      : vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === wanted);
  // showTextDocument focuses it and returns it with its own cursor (a document opened again gets
  // the cursor VS Code remembers for it).
  const target = await vscode.window.showTextDocument(visible?.document ?? (await vscode.workspace.openTextDocument(note)), {
    viewColumn: visible?.viewColumn,
    preserveFocus: false,
  });
  const at = target.selection.active;
  const done = await target.edit((builder) => builder.insert(at, text));
  if (done) {
    const after = target.document.positionAt(target.document.offsetAt(at) + text.length);
    target.selection = new vscode.Selection(after, after);
  }
  return done;
}

export class RelatedView implements vscode.TreeDataProvider<RelatedRow>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly view: vscode.TreeView<RelatedRow>;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly refreshSoon = debounce(() => this.changed.fire(), FOLLOW_DEBOUNCE_MS);
  /** The note the view is about: the Markdown note last active in an editor. */
  private note: vscode.Uri | undefined;
  /** The last answer came with a warning (vectors not made yet): worth asking again when they are. */
  private waiting = false;

  constructor(private readonly client: () => LanguageClient | undefined) {
    this.view = vscode.window.createTreeView(VIEW_ID, { treeDataProvider: this });
    const active = vscode.window.activeTextEditor;
    if (active && isNote(active.document)) {
      this.note = active.document.uri;
    }
    this.disposables.push(
      this.view,
      this.changed,
      { dispose: () => this.refreshSoon.cancel() },
      vscode.window.onDidChangeActiveTextEditor((editor) => this.follow(editor)),
      vscode.commands.registerCommand("memlsp.insertRelatedLink", (row?: RelatedRow) => this.insertLink(row)),
    );
  }

  dispose(): void {
    this.disposables.forEach((disposable) => disposable.dispose());
  }

  /** The vault changed (or the server restarted): ask again, once a burst of changes is over. */
  refresh(): void {
    this.refreshSoon();
  }

  refreshIfWaiting(): void {
    if (this.waiting) {
      this.refreshSoon();
    }
  }

  private follow(editor: vscode.TextEditor | undefined): void {
    // Another kind of editor (output, settings, an image) keeps the view on the last note.
    if (!editor || !isNote(editor.document) || editor.document.uri.toString() === this.note?.toString()) {
      return;
    }
    this.note = editor.document.uri;
    this.refreshSoon();
  }

  getTreeItem(row: RelatedRow): vscode.TreeItem {
    const item = new vscode.TreeItem(row.label, vscode.TreeItemCollapsibleState.None);
    item.description = row.treeDescription;
    item.tooltip = row.tooltip;
    item.contextValue = ROW_CONTEXT;
    item.resourceUri = vscode.Uri.parse(row.uri);
    item.iconPath = vscode.ThemeIcon.File;
    item.command = { command: "vscode.open", title: "Open", arguments: [vscode.Uri.parse(row.uri)] };
    return item;
  }

  async getChildren(row?: RelatedRow): Promise<RelatedRow[]> {
    if (row) {
      return [];
    }
    const note = this.note;
    if (!note) {
      this.show("Open a Markdown note to see the notes closest to it in meaning.");
      return [];
    }
    const lsp = this.client();
    if (!lsp?.isRunning()) {
      this.show(lsp ? "Waiting for the memlsp server…" : "The memlsp server is not running.", note);
      return [];
    }
    let answer: Messages["memlsp/related"];
    try {
      answer = await lsp.sendRequest<Messages["memlsp/related"]>("memlsp/related", {
        uri: note.toString(),
        limit: RELATED_LIMIT,
      });
    } catch (error) {
      this.show(`Could not ask for related notes: ${error instanceof Error ? error.message : String(error)}`, note);
      return [];
    }
    if (note !== this.note) {
      return []; // the view moved on to another note while this one was answered; its answer follows
    }
    this.waiting = Boolean(answer?.warning);
    this.show(relatedMessage(answer), note);
    return answer ? answer.results.map(relatedRow) : [];
  }

  private show(message: string | undefined, note?: vscode.Uri): void {
    this.view.message = message;
    this.view.description = note ? vscode.workspace.asRelativePath(note, false) : undefined;
  }

  /** The row's inline action: `[[link]]` at the cursor of the note the view is about. */
  private async insertLink(row: RelatedRow | undefined): Promise<void> {
    if (!row || !this.note) {
      return;
    }
    const editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === this.note?.toString());
    await insertAtCursor(this.note, row.wikilink, editor);
  }
}
