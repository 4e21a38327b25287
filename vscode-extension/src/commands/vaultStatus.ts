// memlsp: Reindex Vault and memlsp: Show Status (the status bar item's click).

import * as vscode from "vscode";
import type { ServerClient } from "../client/serverClient";
import { errorText } from "../errors";
import { statusLines } from "../status";

// Scans every vault again for changes the file watcher missed; `memlsp/indexed` follows.
export async function reindex(server: ServerClient): Promise<void> {
  const lsp = server.running();
  if (!lsp) {
    return;
  }
  try {
    await lsp.sendRequest("memlsp/reindex", null);
    void server.refreshStatus();
  } catch (error) {
    server.output.appendLine(`memlsp: reindex: ${errorText(error)}`);
  }
}

export async function showStatus(server: ServerClient): Promise<void> {
  if (!server.running()) {
    return;
  }
  const status = await server.fetchStatus();
  if (!status) {
    return;
  }
  const lines = statusLines(status);
  lines.forEach((line) => server.output.appendLine(line));
  void vscode.window.showInformationMessage(lines.join(" · "), "Show Output").then((choice) => {
    if (choice) {
      server.output.show();
    }
  });
}
