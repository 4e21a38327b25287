// memlsp: Why isn't this note found?: asks memlsp/search the last query again, with `explain`
// naming a note (the active one, or one picked), and shows the server's verdict in plain words.

import * as vscode from "vscode";
import type { ServerClient } from "../client/serverClient";
import { errorText } from "../errors";
import { explainOutcome, explainTarget, notePlace, noteToOpen } from "../explain";
import { searchParams, splitFilters } from "../queryFilters";
import { isNote } from "../relatedView";
import type { Messages } from "../wire";
import { SEARCH_LIMIT, lastSearchQuery, rememberQuery, searchVault } from "./searchVault";

const OPEN_NOTE = "Open note";
const SEARCH_AGAIN = "Search again";

/** The note asked about: what `explain` names, and where it is when known. */
interface AskedNote {
  explain: string;
  uri?: string;
  root?: string;
}

function asked(uri: string, roots: readonly string[]): AskedNote {
  return { explain: explainTarget(uri, roots), uri, root: notePlace(uri, roots)?.root };
}

type NoteItem = vscode.QuickPickItem & { uri: string };

/** A note of the open vaults, picked from the workspace's Markdown files; a name or path typed
 * that matches none is asked about as typed (the server says what it makes of it). */
async function pickNote(roots: readonly string[]): Promise<AskedNote | undefined> {
  const files = await vscode.workspace.findFiles("**/*.md", "**/node_modules/**", 20_000);
  const several = roots.length > 1;
  const items: NoteItem[] = [];
  for (const file of files) {
    const place = notePlace(file.toString(), roots);
    if (place) {
      const vault = several ? vscode.workspace.getWorkspaceFolder(vscode.Uri.parse(place.root))?.name : undefined;
      items.push({ label: place.path, description: vault, uri: file.toString() });
    }
  }
  items.sort((a, b) => a.label.localeCompare(b.label));
  const pick = vscode.window.createQuickPick<NoteItem>();
  pick.title = "Why isn't this note found?";
  pick.placeholder = "The note you expected among the results (a name or path)";
  pick.items = items;
  pick.matchOnDescription = true;
  return new Promise((resolve) => {
    let chosen: AskedNote | undefined;
    pick.onDidAccept(() => {
      const item = pick.selectedItems[0];
      const typed = pick.value.trim();
      chosen = item ? asked(item.uri, roots) : typed ? { explain: typed } : undefined;
      pick.hide();
    });
    pick.onDidHide(() => {
      pick.dispose();
      resolve(chosen);
    });
    pick.show();
  });
}

/** The note the command is about: its argument (a URI), else the active note when it is in a
 * vault, else one picked. */
async function chooseNote(argument: unknown, roots: readonly string[]): Promise<AskedNote | undefined> {
  if (typeof argument === "string" || argument instanceof vscode.Uri) {
    return asked(argument.toString(), roots);
  }
  const editor = vscode.window.activeTextEditor;
  if (editor && isNote(editor.document)) {
    const uri = editor.document.uri.toString();
    if (notePlace(uri, roots)) {
      return asked(uri, roots);
    }
  }
  return pickNote(roots);
}

export async function whyNotFound(server: ServerClient, argument?: unknown): Promise<void> {
  const lsp = server.running();
  if (!lsp) {
    return;
  }
  const query = await vscode.window.showInputBox({
    title: "Why isn't this note found?",
    prompt: "The search that did not find the note",
    placeHolder: "What you searched for",
    value: lastSearchQuery(),
    ignoreFocusOut: true,
  });
  if (!query?.trim()) {
    return;
  }
  rememberQuery(query);
  const status = await server.fetchStatus();
  const roots = status?.vaults.map((vault) => vault.root) ?? [];
  const note = await chooseNote(argument, roots);
  if (!note) {
    return;
  }
  let answer: Messages["memlsp/search"];
  try {
    answer = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: "memlsp: asking why" },
      () =>
        lsp.sendRequest<Messages["memlsp/search"]>("memlsp/search", {
          ...searchParams(splitFilters(query), SEARCH_LIMIT),
          explain: [note.explain],
        }),
    );
  } catch (error) {
    const text = `memlsp: could not ask why ${note.explain} is not found: ${errorText(error)}`;
    server.output.appendLine(text);
    void vscode.window.showWarningMessage(text);
    return;
  }
  const outcome = explainOutcome(answer, note.explain, SEARCH_LIMIT);
  server.output.appendLine(`why not found: "${query}": ${outcome.text}`);
  if (outcome.kind === "unanswered") {
    void vscode.window.showWarningMessage(outcome.text, SEARCH_AGAIN).then((choice) => {
      if (choice === SEARCH_AGAIN) {
        void searchVault(server, query);
      }
    });
    return;
  }
  const target = noteToOpen(outcome.entry, note);
  const buttons = target ? [OPEN_NOTE, SEARCH_AGAIN] : [SEARCH_AGAIN];
  const choice = await vscode.window.showInformationMessage(outcome.text, ...buttons);
  if (choice === OPEN_NOTE && target) {
    await vscode.window.showTextDocument(vscode.Uri.parse(target));
  } else if (choice === SEARCH_AGAIN) {
    await searchVault(server, query);
  }
}
