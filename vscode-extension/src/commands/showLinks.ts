// memlsp: Show Links: a picker of a note's outlinks and inlinks (memlsp/links). From the palette:
// the active note's; from the code lens on a note's first line: that note's.

import * as vscode from "vscode";
import type { ServerClient } from "../client/serverClient";
import { linkItems } from "../picker";
import type { Messages } from "../wire";
import { TargetItem, reveal, toQuickPickItem } from "./quickPick";

export async function showLinks(server: ServerClient, noteUri?: unknown): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  const given = typeof noteUri === "string" ? noteUri : undefined;
  if (!given && (!editor || editor.document.languageId !== "markdown")) {
    void vscode.window.showInformationMessage("memlsp: open a Markdown note to see its links.");
    return;
  }
  const lsp = server.running();
  if (!lsp) {
    return;
  }
  const uri = given ?? editor?.document.uri.toString();
  if (!uri) {
    return;
  }
  const answer = await lsp.sendRequest<Messages["memlsp/links"]>("memlsp/links", { uri });
  if (!answer) {
    void vscode.window.showInformationMessage("memlsp: this note is not in an open vault.");
    return;
  }
  const sections = linkItems(answer);
  const separator = (label: string): TargetItem => ({ label, kind: vscode.QuickPickItemKind.Separator });
  const items: TargetItem[] = [
    separator(`outlinks (${sections.outlinks.length})`),
    ...sections.outlinks.map(toQuickPickItem),
    separator(`inlinks (${sections.inlinks.length})`),
    ...sections.inlinks.map(toQuickPickItem),
  ];
  const chosen = await vscode.window.showQuickPick(items, {
    title: `Links of ${answer.path}` + (answer.unresolved.length ? ` (${answer.unresolved.length} unresolved)` : ""),
    matchOnDescription: true,
  });
  if (chosen?.target) {
    await reveal(chosen.target);
  }
}
