// The commands of package.json's `contributes.commands`, each bound to its handler with what the
// handler needs; but memlsp.insertRelatedLink, a row's button that the Related notes view registers.

import * as vscode from "vscode";
import type { ServerClient } from "../client/serverClient";
import type { GraphPanel } from "../graph/panel";
import { showRelated, showUnlinked } from "./noteCommands";
import { searchVault } from "./searchVault";
import { showLinks } from "./showLinks";
import { reindex, showStatus } from "./vaultStatus";
import { whyNotFound } from "./whyNotFound";

export function registerCommands(server: ServerClient, graph: GraphPanel): vscode.Disposable[] {
  const running = (): ReturnType<ServerClient["running"]> => server.running();
  return [
    vscode.commands.registerCommand("memlsp.searchVault", () => searchVault(server)),
    vscode.commands.registerCommand("memlsp.whyNotFound", (uri?: unknown) => whyNotFound(server, uri)),
    vscode.commands.registerCommand("memlsp.showLinks", (uri?: unknown) => showLinks(server, uri)),
    vscode.commands.registerCommand("memlsp.showRelated", (uri?: unknown) => showRelated(running, uri)),
    vscode.commands.registerCommand("memlsp.showUnlinked", (uri?: unknown) => showUnlinked(running, uri)),
    vscode.commands.registerCommand("memlsp.showGraph", (uri?: unknown) => graph.show(uri)),
    vscode.commands.registerCommand("memlsp.reindex", () => reindex(server)),
    vscode.commands.registerCommand("memlsp.showStatus", () => showStatus(server)),
    vscode.commands.registerCommand("memlsp.restartServer", () => server.restart("Restart Server", true)),
  ];
}
