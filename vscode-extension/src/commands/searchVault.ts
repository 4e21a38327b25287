// memlsp: Search Vault: a picker that asks memlsp/search as the user types (debounced, the older
// question cancelled) and opens the chosen section. It remembers the last query, which "Why isn't
// this note found?" explains.

import * as vscode from "vscode";
import type { ServerClient } from "../client/serverClient";
import { errorText } from "../errors";
import { searchItem } from "../picker";
import { filtersTitle, searchParams, splitFilters } from "../queryFilters";
import type { Messages } from "../wire";
import { TargetItem, reveal, toQuickPickItem } from "./quickPick";

const SEARCH_DEBOUNCE_MS = 150;
/** How many results the picker asks for; a note past them is "not found" there. */
export const SEARCH_LIMIT = 50;

// The last query searched, in this window: one place, read and written by both commands.
let lastQuery = "";

export function lastSearchQuery(): string {
  return lastQuery;
}

export function rememberQuery(query: string): void {
  if (query.trim()) {
    lastQuery = query;
  }
}

/** The workspace folder of a result, named only when there are several (a multi-root workspace). */
function vaultName(uri: string): string | undefined {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.length < 2) {
    return undefined;
  }
  return vscode.workspace.getWorkspaceFolder(vscode.Uri.parse(uri))?.name;
}

/** `initial`: a query to search at once (Search again, from "Why isn't this note found?"). */
export async function searchVault(server: ServerClient, initial?: string): Promise<void> {
  const lsp = server.running();
  if (!lsp) {
    return;
  }
  const pick = vscode.window.createQuickPick<TargetItem>();
  pick.placeholder = "Search the vault (keyword + semantic); type:Movie or state:想看 filters by property";
  // The server ranks; VS Code must not re-filter by the typed letters.
  pick.matchOnDescription = false;
  pick.matchOnDetail = false;
  let pending: vscode.CancellationTokenSource | undefined;
  let timer: NodeJS.Timeout | undefined;

  const run = async (query: string): Promise<void> => {
    pending?.cancel();
    pending?.dispose();
    const source = new vscode.CancellationTokenSource();
    pending = source;
    // `type:Movie` in the text is a property filter; with filters alone the matching notes are
    // listed, newest first.
    const typed = splitFilters(query);
    if (!typed.query && !typed.where.length) {
      pick.items = [];
      pick.busy = false;
      pick.title = undefined;
      return;
    }
    pick.busy = true;
    rememberQuery(query);
    try {
      const answer = await lsp.sendRequest<Messages["memlsp/search"]>(
        "memlsp/search",
        searchParams(typed, SEARCH_LIMIT),
        source.token,
      );
      if (source.token.isCancellationRequested) {
        return; // a newer query is on its way
      }
      pick.items = answer.results.map((result) => toQuickPickItem(searchItem(result, vaultName(result.uri))));
      const said = [filtersTitle(typed.where), ...answer.warnings].filter(Boolean);
      pick.title = said.length ? said.join("; ") : undefined;
      if (!answer.results.length) {
        pick.items = [{ label: `No results for "${query}"`, alwaysShow: true }];
      }
    } catch (error) {
      if (!source.token.isCancellationRequested) {
        pick.items = [{ label: `memlsp: search failed: ${errorText(error)}`, alwaysShow: true }];
        pick.title = filtersTitle(typed.where);
      }
    } finally {
      if (pending === source) {
        pick.busy = false;
      }
    }
  };

  pick.onDidChangeValue((value) => {
    if (timer) {
      clearTimeout(timer);
    }
    timer = setTimeout(() => void run(value), SEARCH_DEBOUNCE_MS);
  });
  pick.onDidAccept(() => {
    const target = pick.selectedItems[0]?.target;
    if (target) {
      pick.hide();
      void reveal(target);
    }
  });
  pick.onDidHide(() => {
    if (timer) {
      clearTimeout(timer);
    }
    pending?.cancel();
    pending?.dispose();
    pick.dispose();
  });
  pick.show();
  if (initial?.trim()) {
    pick.value = initial;
    void run(initial);
  }
}
