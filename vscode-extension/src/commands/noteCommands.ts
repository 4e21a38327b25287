// Show Related Notes and Show Unlinked Mentions: the pickers the code lenses "N related" and
// "N unlinked" open (with the note's URI), and the palette (for the active note).

import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import {
  MentionRow,
  RelatedRow,
  findLinkAll,
  linesOf,
  linkAllLabel,
  mentionRow,
  mentionsTitle,
  noteName,
  relatedMessage,
  relatedRow,
} from "../related";
import { RELATED_LIMIT, insertAtCursor, isNote } from "../relatedView";
import { MentionAnswerJson, Messages } from "../wire";

const INSERT_LINK: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon("link"), tooltip: "Insert link" };

/** The note a command is about: the lens's URI argument, else the active Markdown note. */
function noteOf(argument: unknown, what: string): vscode.Uri | undefined {
  if (typeof argument === "string") {
    return vscode.Uri.parse(argument);
  }
  if (argument instanceof vscode.Uri) {
    return argument;
  }
  const editor = vscode.window.activeTextEditor;
  if (editor && isNote(editor.document)) {
    return editor.document.uri;
  }
  void vscode.window.showInformationMessage(`memlsp: open a Markdown note to see ${what}.`);
  return undefined;
}

type RelatedItem = vscode.QuickPickItem & { row: RelatedRow };

/** The related notes in a picker: choosing one opens it, its button inserts a link to it at the
 * cursor of the editor the command was run from. */
export async function showRelated(client: () => LanguageClient | undefined, argument?: unknown): Promise<void> {
  const note = noteOf(argument, "its related notes");
  const lsp = note && client();
  if (!note || !lsp) {
    return;
  }
  const active = vscode.window.activeTextEditor;
  const from = active?.document.uri.toString() === note.toString() ? active : undefined;
  const answer = await lsp.sendRequest<Messages["memlsp/related"]>("memlsp/related", {
    uri: note.toString(),
    limit: RELATED_LIMIT,
  });
  const message = relatedMessage(answer);
  if (!answer || message) {
    void vscode.window.showInformationMessage(`memlsp: ${message}`);
    return;
  }
  const pick = vscode.window.createQuickPick<RelatedItem>();
  pick.title = `Related to ${vscode.workspace.asRelativePath(note, false)}` + (answer.warning ? ` (${answer.warning})` : "");
  pick.placeholder = "Enter opens the note; the link button inserts [[…]] at the cursor";
  pick.matchOnDescription = true;
  pick.items = answer.results.map(relatedRow).map((row) => ({
    label: row.label,
    description: row.description,
    detail: row.detail,
    buttons: [INSERT_LINK],
    row,
  }));
  pick.onDidAccept(() => {
    const row = pick.selectedItems[0]?.row;
    pick.hide();
    if (row) {
      void vscode.window.showTextDocument(vscode.Uri.parse(row.uri));
    }
  });
  pick.onDidTriggerItemButton((event) => {
    pick.hide();
    void insertAtCursor(note, event.item.row.wikilink, from);
  });
  pick.onDidHide(() => pick.dispose());
  pick.show();
}

type MentionItem = vscode.QuickPickItem & { mention?: MentionRow; linkAll?: true };

/** The places where the note's name is written as plain text; choosing one reveals it, the first
 * row links them all (the server's code action on the note's first line). */
export async function showUnlinked(client: () => LanguageClient | undefined, argument?: unknown): Promise<void> {
  const note = noteOf(argument, "where its name is written without a link");
  const lsp = note && client();
  if (!note || !lsp) {
    return;
  }
  const answer = await lsp.sendRequest<Messages["memlsp/mentions"]>("memlsp/mentions", { uri: note.toString() });
  if (!answer) {
    void vscode.window.showInformationMessage("memlsp: this note is in no open vault.");
    return;
  }
  const name = noteName(note.toString());
  if (!answer.mentions.length) {
    void vscode.window.showInformationMessage(`memlsp: ${answer.warning || `no unlinked mentions of ${name}`}.`);
    return;
  }
  const lines = await mentionLines(answer.mentions);
  const total = answer.mentions.length + answer.left_out;
  const items: MentionItem[] = [
    { label: `$(link) ${linkAllLabel(total)}`, alwaysShow: true, linkAll: true },
    { label: "", kind: vscode.QuickPickItemKind.Separator },
    ...answer.mentions.map((mention) => {
      const row = mentionRow(mention, lines.get(mention.uri)?.get(mention.range.start.line));
      return { label: row.label, description: row.description, detail: row.detail, mention: row };
    }),
  ];
  const chosen = await vscode.window.showQuickPick(items, {
    title: mentionsTitle(answer, name),
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (chosen?.linkAll) {
    await linkAll(note);
  } else if (chosen?.mention) {
    await revealRange(chosen.mention);
  }
}

/** Each mentioning line's text: from the open document when there is one (it may be unsaved),
 * else from the file. A file that cannot be read just shows no line. */
async function mentionLines(mentions: readonly MentionAnswerJson[]): Promise<Map<string, Map<number, string>>> {
  const wanted = new Map<string, Set<number>>();
  for (const mention of mentions) {
    const lines = wanted.get(mention.uri) ?? new Set<number>();
    lines.add(mention.range.start.line);
    wanted.set(mention.uri, lines);
  }
  const found = new Map<string, Map<number, string>>();
  await Promise.all(
    [...wanted].map(async ([uri, lines]) => {
      const open = vscode.workspace.textDocuments.find((document) => document.uri.toString() === uri);
      try {
        const text = open ? open.getText() : new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.parse(uri)));
        found.set(uri, linesOf(text, lines));
      } catch {
        // deleted since the server answered: the row shows its target instead
      }
    }),
  );
  return found;
}

async function revealRange(mention: MentionRow): Promise<void> {
  const { start, end } = mention.range;
  const range = new vscode.Range(start.line, start.character, end.line, end.character);
  await vscode.window.showTextDocument(vscode.Uri.parse(mention.uri), { selection: range });
}

/** Runs the server's "Link all N unlinked mentions of …" code action of the note's first line: one
 * edit over every mentioning note, applied as a refactoring (VS Code saves the files it changes
 * when `files.refactoring.autoSave` is on, its default). */
export async function linkAll(note: vscode.Uri): Promise<boolean> {
  const actions =
    (await vscode.commands.executeCommand<(vscode.CodeAction | vscode.Command)[]>(
      "vscode.executeCodeActionProvider",
      note,
      new vscode.Range(0, 0, 0, 0),
      vscode.CodeActionKind.RefactorRewrite.value,
    )) ?? [];
  const action = findLinkAll(actions);
  if (!action) {
    void vscode.window.showInformationMessage(`memlsp: no mentions of ${noteName(note.toString())} left to link.`);
    return false;
  }
  // A Command's `command` is its id; a CodeAction's, a Command to run after its edit.
  const command = typeof action.command === "string" ? (action as vscode.Command) : action.command;
  const edit = typeof action.command === "string" ? undefined : (action as vscode.CodeAction).edit;
  if (edit) {
    const applied = await vscode.workspace.applyEdit(edit, { isRefactoring: true });
    if (!applied) {
      void vscode.window.showWarningMessage("memlsp: the links could not be written (a note changed meanwhile?). Try again.");
      return false;
    }
  }
  if (command) {
    await vscode.commands.executeCommand(command.command, ...(command.arguments ?? []));
  }
  return true;
}
