// What the search and links pickers share: a row that leads to a place in a note, and going there.

import * as vscode from "vscode";
import type { PickItem, Target } from "../picker";

export type TargetItem = vscode.QuickPickItem & { target?: Target };

export function toQuickPickItem(item: PickItem): TargetItem {
  return { ...item };
}

/** Opens the note and puts the cursor at the start of the target's lines, in view. */
export async function reveal(target: Target): Promise<void> {
  const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(target.uri));
  const editor = await vscode.window.showTextDocument(document);
  const end = document.lineAt(Math.min(target.endLine, document.lineCount - 1)).range.end;
  const range = new vscode.Range(new vscode.Position(Math.min(target.startLine, end.line), 0), end);
  editor.selection = new vscode.Selection(range.start, range.start);
  editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}
