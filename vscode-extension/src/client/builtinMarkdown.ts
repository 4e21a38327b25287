// How memlsp's answers sit next to VS Code's built-in Markdown Language Features (which answer
// for every Markdown file): see overlap.ts for what the built-in answers and the choice made per
// feature. This file asks the built-in through VS Code's own commands and filters memlsp's answer.

import * as vscode from "vscode";
import { ClientCapabilities, FeatureState, Middleware, StaticFeature } from "vscode-languageclient/node";
import { NamedPlace, Place, inMarkdownDestination, withoutOverlaps, withoutSameSymbols } from "../overlap";

// VS Code's `vscode.execute…Provider` commands ask every provider, this extension's too: while
// one is under way for a key, this extension answers nothing for that key, so the command gets
// the built-in's answer alone.
const asking = new Set<string>();

async function othersAnswer<T>(key: string, command: string, ...args: unknown[]): Promise<T[]> {
  asking.add(key);
  try {
    return (await vscode.commands.executeCommand<T[] | undefined>(command, ...args)) ?? [];
  } catch {
    return [];
  } finally {
    asking.delete(key);
  }
}

function locationPlace(location: vscode.Location): Place {
  return { uri: location.uri.toString(), range: location.range };
}

function symbolPlace(symbol: vscode.SymbolInformation): NamedPlace {
  const range = symbol.location.range ?? new vscode.Range(0, 0, 0, 0);
  return { name: symbol.name, uri: symbol.location.uri.toString(), range };
}

export const middleware: Middleware = {
  // The built-in lists the same headings at the same ranges: one provider, one Outline group.
  provideDocumentSymbols: () => [],

  provideReferences: async (document, position, options, token, next) => {
    const key = `references ${document.uri.toString()} ${position.line}:${position.character}`;
    if (asking.has(key)) {
      return [];
    }
    const [ours, theirs] = await Promise.all([
      next(document, position, options, token),
      othersAnswer<vscode.Location>(key, "vscode.executeReferenceProvider", document.uri, position),
    ]);
    return withoutOverlaps(ours ?? [], locationPlace, theirs.map(locationPlace));
  },

  provideWorkspaceSymbols: async (query, token, next) => {
    const key = `symbols ${query}`;
    if (asking.has(key)) {
      return [];
    }
    const [ours, theirs] = await Promise.all([
      next(query, token),
      othersAnswer<vscode.SymbolInformation>(key, "vscode.executeWorkspaceSymbolProvider", query),
    ]);
    return withoutSameSymbols(ours ?? [], symbolPlace, theirs.map(symbolPlace));
  },

  provideCompletionItem: (document, position, context, token, next) => {
    const before = document.lineAt(position.line).text.slice(0, position.character);
    return inMarkdownDestination(before) ? [] : next(document, position, context, token);
  },

  provideDocumentLinks: async (document, token, next) => {
    const key = `links ${document.uri.toString()}`;
    if (asking.has(key)) {
      return [];
    }
    const [ours, theirs] = await Promise.all([
      next(document, token),
      othersAnswer<vscode.DocumentLink>(key, "vscode.executeLinkProvider", document.uri),
    ]);
    const uri = document.uri.toString();
    const place = (link: vscode.DocumentLink): Place => ({ uri, range: link.range });
    return withoutOverlaps(ours ?? [], place, theirs.map(place));
  },
};

/**
 * The extension shows indexing and embedding in its own status bar item: the client does not
 * announce `window.workDoneProgress`, so the server sends no `$/progress` and VS Code shows no
 * second progress item for the same work. Registered after the client's own progress feature,
 * whose `true` it overrides.
 */
export class NoWorkDoneProgress implements StaticFeature {
  fillClientCapabilities(capabilities: ClientCapabilities): void {
    capabilities.window = { ...capabilities.window, workDoneProgress: false };
  }

  initialize(): void {}

  getState(): FeatureState {
    return { kind: "static" };
  }

  clear(): void {}
}
