// Activation: what VS Code calls when a workspace holds Markdown. It makes the server's client
// (client/serverClient, which owns the server's state: the client, the output channel, the status
// bar, the last start error), the views that follow the vault (Related notes, the graph, the
// Markdown preview's wikilinks), registers the commands (commands/) and starts the server. The
// logic worth testing lives in the pure modules, tested under src/test/.

import type MarkdownIt from "markdown-it";
import * as vscode from "vscode";
import { ServerClient, ServerEvent } from "./client/serverClient";
import { registerCommands } from "./commands/register";
import { GraphPanel } from "./graph/panel";
import { PreviewAnswers, wikilinkPlugin } from "./preview";
import { RelatedView } from "./relatedView";

/** What VS Code's Markdown preview asks of an extension with `markdown.markdownItPlugins`. */
export interface MarkdownPreviewApi {
  extendMarkdownIt(md: MarkdownIt): MarkdownIt;
}

// deactivate must wait for the server to stop, and VS Code hands it nothing to find the client by.
let activeServer: ServerClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<MarkdownPreviewApi> {
  const server = new ServerClient();
  activeServer = server;
  const answers = new PreviewAnswers({
    fetch: (uri) => server.links(uri),
    version: (uri) => vscode.workspace.textDocuments.find((document) => document.uri.toString() === uri)?.version,
    refresh: () => void vscode.commands.executeCommand("markdown.preview.refresh"),
  });
  const related = new RelatedView(() => server.client);
  const graph = new GraphPanel(() => server.client, context.extensionUri, context.globalState, (line) => server.output.info(line));
  const follow = (event: ServerEvent): void => {
    switch (event.kind) {
      case "started":
        graph.setBounds(event.bounds);
        related.refresh();
        graph.refresh();
        break;
      case "changed":
        answers.reloadAll(); // links may lead elsewhere now
        related.refresh();
        graph.refresh();
        break;
      case "vectors":
        related.refreshIfWaiting(); // the vectors it waited for may be made now
        graph.refreshIfWaiting();
        break;
    }
  };
  // The Related notes view's `when`: shown once the extension runs (a Markdown workspace).
  void vscode.commands.executeCommand("setContext", "memlsp.active", true);
  context.subscriptions.push(
    related,
    graph,
    server,
    { dispose: () => answers.dispose() },
    vscode.workspace.onDidChangeTextDocument((event) => answers.documentChanged(event.document.uri.toString())),
    ...registerCommands(server, graph),
    vscode.workspace.onDidChangeConfiguration((event) => server.onConfigurationChanged(event)),
    server.onEvent(follow),
  );
  await server.start(false);
  return { extendMarkdownIt: (md) => wikilinkPlugin(md, (uri) => answers.get(uri)) };
}

export async function deactivate(): Promise<void> {
  await activeServer?.stop();
  activeServer = undefined;
}
