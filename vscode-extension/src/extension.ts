// Wiring: starts the memlsp language server over stdio and adds the vault commands
// (search, links, related notes, unlinked mentions, graph, reindex, status, restart), the status
// bar, the Related notes view and the Markdown preview's wikilinks. The logic worth testing lives
// in the pure modules (serverCommand, settings, picker, related, status, overlap, preview,
// graphModel, graphMessages, graphHtml); this file and relatedView, noteCommands, graphPanel only
// talk to VS Code and probe the machine.

import { execFile } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import * as os from "node:os";
import type MarkdownIt from "markdown-it";
import * as vscode from "vscode";
import { DidChangeConfigurationNotification, LanguageClient, LanguageClientOptions, State } from "vscode-languageclient/node";
import { NoWorkDoneProgress, middleware } from "./builtinMarkdown";
import { GraphPanel } from "./graphPanel";
import { PickItem, Target, linkItems, searchItem } from "./picker";
import { showRelated, showUnlinked } from "./noteCommands";
import { PreviewAnswers, wikilinkPlugin } from "./preview";
import { RelatedView } from "./relatedView";
import { ServerNotFound, discoverServer, installSteps, serverExecutable } from "./serverCommand";
import { CLIENT_SETTINGS, ServerSettingName, serverOptions } from "./settings";
import { StatusItemView, anyBusy, statusItems, statusLines } from "./status";
import { Messages } from "./wire";

const SECTION = "memlsp";
const SEARCH_DEBOUNCE_MS = 150;
const SEARCH_LIMIT = 50;
const STATUS_POLL_MS = 2000;
const PYTHON_EXTENSION = "ms-python.python";

let client: LanguageClient | undefined;
let output: vscode.LogOutputChannel;
// The first item is always there (starting, errors, the only vault); one more per further vault.
let statusBar: vscode.StatusBarItem[] = [];
let pollTimer: NodeJS.Timeout | undefined;
let previewAnswers: PreviewAnswers | undefined;
let relatedView: RelatedView | undefined;
let graphPanel: GraphPanel | undefined;

/** What VS Code's Markdown preview asks of an extension with `markdown.markdownItPlugins`. */
export interface MarkdownPreviewApi {
  extendMarkdownIt(md: MarkdownIt): MarkdownIt;
}

export async function activate(context: vscode.ExtensionContext): Promise<MarkdownPreviewApi> {
  // A log channel: vscode-languageclient 11 writes its own trace there too.
  output = vscode.window.createOutputChannel("memlsp", { log: true });
  statusBar = [newStatusItem(0)];
  const answers = new PreviewAnswers({
    fetch: fetchLinks,
    version: (uri) => vscode.workspace.textDocuments.find((document) => document.uri.toString() === uri)?.version,
    refresh: () => void vscode.commands.executeCommand("markdown.preview.refresh"),
  });
  previewAnswers = answers;
  const related = new RelatedView(() => client);
  relatedView = related;
  const graph = new GraphPanel(() => client, context.extensionUri, context.globalState, (line) => output.info(line));
  graphPanel = graph;
  // The Related notes view's `when`: shown once the extension runs (a Markdown workspace).
  void vscode.commands.executeCommand("setContext", "memlsp.active", true);
  context.subscriptions.push(
    related,
    graph,
    output,
    { dispose: () => answers.dispose() },
    vscode.workspace.onDidChangeTextDocument((event) => answers.documentChanged(event.document.uri.toString())),
    vscode.commands.registerCommand("memlsp.searchVault", searchVault),
    vscode.commands.registerCommand("memlsp.showLinks", showLinks),
    vscode.commands.registerCommand("memlsp.showRelated", (uri?: unknown) => showRelated(runningClient, uri)),
    vscode.commands.registerCommand("memlsp.showUnlinked", (uri?: unknown) => showUnlinked(runningClient, uri)),
    vscode.commands.registerCommand("memlsp.showGraph", (uri?: unknown) => graph.show(uri)),
    vscode.commands.registerCommand("memlsp.reindex", reindex),
    vscode.commands.registerCommand("memlsp.showStatus", showStatus),
    vscode.commands.registerCommand("memlsp.restartServer", () => restart("Restart Server", true)),
    vscode.workspace.onDidChangeConfiguration(onConfigurationChanged),
    { dispose: () => stopPolling() },
    { dispose: () => statusBar.forEach((item) => item.dispose()) },
  );
  await start(false);
  return { extendMarkdownIt: (md) => wikilinkPlugin(md, (uri) => answers.get(uri)) };
}

export async function deactivate(): Promise<void> {
  stopPolling();
  await stop();
}

function config(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration(SECTION);
}

function currentServerOptions(): ReturnType<typeof serverOptions> {
  const settings = config();
  return serverOptions((name: ServerSettingName) => settings.get<unknown>(name));
}

function workspaceFolderPaths(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file").map((f) => f.uri.fsPath);
}

/** Starts the server; `explicit` (Restart Server) always says what happened, even a repeated error. */
async function start(explicit: boolean): Promise<void> {
  const settings = config();
  const found = await discoverServer(
    {
      command: settings.get<string>("server.command", ""),
      args: settings.get<string[]>("server.args", []),
      pythonPath: settings.get<string>("pythonPath", ""),
    },
    {
      workspaceFolders: workspaceFolderPaths(),
      home: os.homedir(),
      pathEnv: process.env.PATH,
      platform: process.platform,
      hasPythonExtension: vscode.extensions.getExtension(PYTHON_EXTENSION) !== undefined,
    },
    { isExecutable: isExecutableFile, canImportMemlsp, pythonExtensionInterpreter },
  );
  if (found.kind === "error") {
    output.appendLine(found.message);
    showNotFound(found, explicit);
    return;
  }
  const commandLine = `${found.command} ${found.args.join(" ")}`;
  output.appendLine(`starting ${commandLine} (from ${found.origin})`);
  const options: LanguageClientOptions = {
    documentSelector: [{ scheme: "file", language: "markdown" }],
    outputChannel: output,
    initializationOptions: currentServerOptions(),
    middleware,
    // No `synchronize.configurationSection`: it would send the whole "memlsp" section, client-only
    // keys (server.command, pythonPath) included, which the server reports as unknown settings.
    // onConfigurationChanged sends the server's own settings instead.
  };
  const next = new LanguageClient("memlsp", "memlsp", serverExecutable(found), options);
  next.registerFeature(new NoWorkDoneProgress());
  client = next;
  next.onDidChangeState((event) => {
    if (event.newState === State.Stopped && client === next) {
      showStatusViews([{ key: "", kind: "failed", text: "$(circle-slash) memlsp: stopped", tooltip: "memlsp: the server stopped. Click for details." }]);
    }
  });
  setStarting(commandLine);
  try {
    // The default error handler restarts a crashed server at most 4 times in 3 minutes, then
    // stops: a broken install does not become a crash loop.
    await next.start();
  } catch (error) {
    const message = `memlsp: the server did not start (${commandLine}): ${errorText(error)}`;
    output.appendLine(message);
    showStartError(message, explicit, ["Open Settings", "Show Output"]);
    client = undefined;
    return;
  }
  lastStartError = "";
  for (const method of ["memlsp/indexed", "memlsp/vectors", "memlsp/changed"]) {
    next.onNotification(method, () => {
      void refreshStatus();
      if (method !== "memlsp/vectors") {
        previewAnswers?.reloadAll(); // links may lead elsewhere now
        relatedView?.refresh();
        graphPanel?.refresh();
      } else {
        relatedView?.refreshIfWaiting(); // the vectors it waited for may be made now
        graphPanel?.refreshIfWaiting();
      }
    });
  }
  relatedView?.refresh();
  graphPanel?.refresh();
  if (explicit) {
    void vscode.window.showInformationMessage(`memlsp: the server is running: ${commandLine} (from ${found.origin}).`);
  }
  void refreshStatus();
}

// The message last shown: a restart caused by a settings change that fails the same way must not
// stack the same notification again. Restart Server always shows it.
let lastStartError = "";

function showStartError(message: string, explicit: boolean, buttons: string[]): void {
  showStatusViews([{ key: "", kind: "failed", text: "$(error) memlsp", tooltip: message }]);
  if (message === lastStartError && !explicit) {
    return;
  }
  lastStartError = message;
  void vscode.window.showErrorMessage(message, ...buttons).then(onStartErrorChoice);
}

function showNotFound(found: ServerNotFound, explicit: boolean): void {
  const buttons = ["Open Settings", "How to Install"];
  if (vscode.extensions.getExtension(PYTHON_EXTENSION)) {
    buttons.unshift("Choose Interpreter");
  }
  installFolder = found.installFolder;
  showStartError(found.message, explicit, buttons);
}

let installFolder: string | undefined;

async function onStartErrorChoice(choice: string | undefined): Promise<void> {
  switch (choice) {
    case "Choose Interpreter":
      // The picker resolves when it closes; whatever was chosen is then tried.
      await vscode.commands.executeCommand("python.setInterpreter");
      await restart("interpreter chosen", true);
      break;
    case "Open Settings":
      await vscode.commands.executeCommand("workbench.action.openSettings", "memlsp.pythonPath");
      break;
    case "How to Install":
      await showInstallSteps();
      break;
    case "Show Output":
      output.show();
      break;
  }
}

async function showInstallSteps(): Promise<void> {
  const [headline, ...rest] = installSteps(installFolder, process.platform);
  const command = rest.find((line) => line.includes(" -m venv ")) ?? "";
  const choice = await vscode.window.showInformationMessage(
    headline ?? "",
    { modal: true, detail: rest.join("\n") },
    "Copy Command",
    "Restart Server",
  );
  if (choice === "Copy Command") {
    await vscode.env.clipboard.writeText(command);
  } else if (choice === "Restart Server") {
    await restart("Restart Server", true);
  }
}

async function stop(): Promise<void> {
  const old = client;
  client = undefined;
  if (old) {
    try {
      await old.stop();
    } catch (error) {
      output.appendLine(`memlsp: stopping the server: ${errorText(error)}`);
    }
  }
}

async function restart(why: string, explicit: boolean): Promise<void> {
  output.appendLine(`memlsp: ${why}: restarting the server`);
  stopPolling();
  await stop();
  await start(explicit);
}

function onConfigurationChanged(event: vscode.ConfigurationChangeEvent): void {
  if (!event.affectsConfiguration(SECTION)) {
    return;
  }
  if (CLIENT_SETTINGS.some((name) => event.affectsConfiguration(`${SECTION}.${name}`))) {
    void restart("server command changed", false);
    return;
  }
  if (client?.isRunning()) {
    // Nested under "memlsp", as the server expects from workspace/didChangeConfiguration.
    void client.sendNotification(DidChangeConfigurationNotification.type, {
      settings: { [SECTION]: currentServerOptions() },
    });
  }
}

// --- Probes for the server command -------------------------------------------------------

function isExecutableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) {
      return false;
    }
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

interface PythonExtensionApi {
  settings?: { getExecutionDetails?(resource?: vscode.Uri): { execCommand: string[] | undefined } };
  environments?: { getActiveEnvironmentPath?(resource?: vscode.Uri): { path: string } };
}

/** Whether `python` (an absolute path) can import memlsp: a wrong interpreter gets a clear message, not a crash loop. */
// It imports the server itself, so missing dependencies count too, and runs outside the workspace:
// a checkout of memlsp's sources there would otherwise be found without being installed.
function canImportMemlsp(python: string): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    execFile(python, ["-c", "import memlsp.lsp.main"], { timeout: 30_000, cwd: os.tmpdir() }, (error) => {
      if (error) {
        output.appendLine(`memlsp: ${python} cannot import memlsp`);
      }
      resolve(error === null);
    });
  });
}

/** The Python extension's selected interpreter (discoverServer checks it can import memlsp). */
async function pythonExtensionInterpreter(): Promise<string | undefined> {
  const extension = vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION);
  if (!extension) {
    return undefined;
  }
  try {
    const api = extension.isActive ? extension.exports : await extension.activate();
    const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
    return (
      api.settings?.getExecutionDetails?.(resource).execCommand?.[0] ??
      api.environments?.getActiveEnvironmentPath?.(resource).path
    );
  } catch (error) {
    output.appendLine(`memlsp: asking the Python extension for its interpreter: ${errorText(error)}`);
    return undefined;
  }
}

// --- Commands ------------------------------------------------------------------------------

function runningClient(): LanguageClient | undefined {
  if (client?.isRunning()) {
    return client;
  }
  void vscode.window.showWarningMessage("memlsp: the server is not running.", "Restart Server").then(
    (choice) => choice && vscode.commands.executeCommand("memlsp.restartServer"),
  );
  return undefined;
}

type TargetItem = vscode.QuickPickItem & { target?: Target };

async function reveal(target: Target): Promise<void> {
  const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(target.uri));
  const editor = await vscode.window.showTextDocument(document);
  const end = document.lineAt(Math.min(target.endLine, document.lineCount - 1)).range.end;
  const range = new vscode.Range(new vscode.Position(Math.min(target.startLine, end.line), 0), end);
  editor.selection = new vscode.Selection(range.start, range.start);
  editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}

function toQuickPickItem(item: PickItem): TargetItem {
  return { ...item };
}

async function searchVault(): Promise<void> {
  const lsp = runningClient();
  if (!lsp) {
    return;
  }
  const pick = vscode.window.createQuickPick<TargetItem>();
  pick.placeholder = "Search the vault (keyword + semantic)";
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
    if (!query.trim()) {
      pick.items = [];
      pick.busy = false;
      return;
    }
    pick.busy = true;
    try {
      const answer = await lsp.sendRequest<Messages["memlsp/search"]>(
        "memlsp/search",
        { query, limit: SEARCH_LIMIT },
        source.token,
      );
      if (source.token.isCancellationRequested) {
        return; // a newer query is on its way
      }
      pick.items = answer.results.map((result) => toQuickPickItem(searchItem(result, vaultName(result.uri))));
      pick.title = answer.warnings.length ? answer.warnings.join("; ") : undefined;
      if (!answer.results.length) {
        pick.items = [{ label: `No results for "${query}"`, alwaysShow: true }];
      }
    } catch (error) {
      if (!source.token.isCancellationRequested) {
        pick.items = [{ label: `memlsp: search failed: ${errorText(error)}`, alwaysShow: true }];
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
}

/** The links of a note for the preview; undefined while no server runs (nothing is shown then). */
async function fetchLinks(uri: string): Promise<Messages["memlsp/links"] | undefined> {
  if (!client?.isRunning()) {
    return undefined;
  }
  return client.sendRequest<Messages["memlsp/links"]>("memlsp/links", { uri });
}

// From the palette: the active note's links; from the code lens on a note's first line: that note's.
async function showLinks(noteUri?: unknown): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  const given = typeof noteUri === "string" ? noteUri : undefined;
  if (!given && (!editor || editor.document.languageId !== "markdown")) {
    void vscode.window.showInformationMessage("memlsp: open a Markdown note to see its links.");
    return;
  }
  const lsp = runningClient();
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

// Scans every vault again for changes the file watcher missed; `memlsp/indexed` follows.
async function reindex(): Promise<void> {
  const lsp = runningClient();
  if (!lsp) {
    return;
  }
  try {
    await lsp.sendRequest("memlsp/reindex", null);
    void refreshStatus();
  } catch (error) {
    output.appendLine(`memlsp: reindex: ${errorText(error)}`);
  }
}

async function fetchStatus(): Promise<Messages["memlsp/status"] | undefined> {
  if (!client?.isRunning()) {
    return undefined;
  }
  try {
    return await client.sendRequest<Messages["memlsp/status"]>("memlsp/status", {});
  } catch (error) {
    output.appendLine(`memlsp: status: ${errorText(error)}`);
    return undefined;
  }
}

async function showStatus(): Promise<void> {
  if (!runningClient()) {
    return;
  }
  const status = await fetchStatus();
  if (!status) {
    return;
  }
  const lines = statusLines(status);
  lines.forEach((line) => output.appendLine(line));
  void vscode.window.showInformationMessage(lines.join(" · "), "Show Output").then((choice) => {
    if (choice) {
      output.show();
    }
  });
}

async function refreshStatus(): Promise<void> {
  const status = await fetchStatus();
  if (!status) {
    return;
  }
  showStatusViews(statusItems(status));
  // Between the server's notifications, poll only while something is moving.
  stopPolling();
  if (anyBusy(status)) {
    pollTimer = setTimeout(() => void refreshStatus(), STATUS_POLL_MS);
  }
}

function newStatusItem(index: number): vscode.StatusBarItem {
  // Left of the other items in the order of the vaults.
  const item = vscode.window.createStatusBarItem(`memlsp.status.${index}`, vscode.StatusBarAlignment.Left, 10 - index / 100);
  item.name = "memlsp";
  item.command = "memlsp.showStatus";
  return item;
}

/** One status bar item per view: the first item is reused, further ones made or disposed. */
function showStatusViews(views: readonly StatusItemView[]): void {
  while (statusBar.length < views.length) {
    statusBar.push(newStatusItem(statusBar.length));
  }
  for (const extra of statusBar.splice(Math.max(views.length, 1))) {
    extra.dispose();
  }
  views.forEach((view, index) => {
    const item = statusBar[index];
    if (item) {
      item.text = view.text;
      item.tooltip = view.tooltip;
      item.show();
    }
  });
}

function setStarting(commandLine: string): void {
  showStatusViews([{ key: "", kind: "busy", text: "$(sync~spin) memlsp · Starting", tooltip: `memlsp: starting ${commandLine}` }]);
}

function stopPolling(): void {
  if (pollTimer) {
    clearTimeout(pollTimer);
    pollTimer = undefined;
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The workspace folder of a result, named only when there are several (a multi-root workspace). */
function vaultName(uri: string): string | undefined {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.length < 2) {
    return undefined;
  }
  return vscode.workspace.getWorkspaceFolder(vscode.Uri.parse(uri))?.name;
}
