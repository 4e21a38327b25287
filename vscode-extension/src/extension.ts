// Wiring: starts the memlsp language server over stdio and adds the vault commands
// (search, links, reindex, status, restart) and a status bar item. The logic worth testing lives
// in the pure modules (serverCommand, settings, picker, status); this file only talks to VS Code.

import { execFile } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import * as os from "node:os";
import * as vscode from "vscode";
import {
  DidChangeConfigurationNotification,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
  TransportKind,
} from "vscode-languageclient/node";
import { LinksResponse, PickItem, SearchResponse, Target, linkItems, searchItem } from "./picker";
import { findOnPath, resolveServerCommand } from "./serverCommand";
import { CLIENT_SETTINGS, ServerSettingName, serverOptions } from "./settings";
import { StatusResponse, statusBarText, statusLines } from "./status";

const SECTION = "memlsp";
const SEARCH_DEBOUNCE_MS = 150;
const SEARCH_LIMIT = 50;
const STATUS_POLL_MS = 2000;

let client: LanguageClient | undefined;
let output: vscode.LogOutputChannel;
let statusItem: vscode.StatusBarItem;
let pollTimer: NodeJS.Timeout | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  // A log channel: vscode-languageclient 11 writes its own trace there too.
  output = vscode.window.createOutputChannel("memlsp", { log: true });
  statusItem = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 10);
  statusItem.command = "memlsp.showStatus";
  statusItem.tooltip = "memlsp: show status";
  context.subscriptions.push(
    output,
    statusItem,
    vscode.commands.registerCommand("memlsp.searchVault", searchVault),
    vscode.commands.registerCommand("memlsp.showLinks", showLinks),
    vscode.commands.registerCommand("memlsp.reindex", reindex),
    vscode.commands.registerCommand("memlsp.showStatus", showStatus),
    vscode.commands.registerCommand("memlsp.restartServer", () => restart("restart")),
    vscode.workspace.onDidChangeConfiguration(onConfigurationChanged),
    { dispose: () => stopPolling() },
  );
  await start();
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

async function start(): Promise<void> {
  const settings = config();
  const found = resolveServerCommand({
    command: settings.get<string>("server.command", ""),
    args: settings.get<string[]>("server.args", []),
    pythonPath: settings.get<string>("pythonPath", ""),
    pythonPathHasMemlsp: await pythonPathHasMemlsp(settings.get<string>("pythonPath", "")),
    interpreter: await pythonWithMemlsp(),
    memlspOnPath: findOnPath("memlsp", process.env.PATH, isExecutableFile),
  });
  if (found.kind === "error") {
    output.appendLine(found.message);
    showStartError(found.message);
    return;
  }
  output.appendLine(`starting ${found.command} ${found.args.join(" ")} (from ${found.source})`);
  lastStartError = "";
  const server: ServerOptions = { command: found.command, args: found.args, transport: TransportKind.stdio };
  const options: LanguageClientOptions = {
    documentSelector: [{ scheme: "file", language: "markdown" }],
    outputChannel: output,
    initializationOptions: currentServerOptions(),
    // No `synchronize.configurationSection`: it would send the whole "memlsp" section, client-only
    // keys (server.command, pythonPath) included, which the server reports as unknown settings.
    // onConfigurationChanged sends the server's own settings instead.
  };
  const next = new LanguageClient("memlsp", "memlsp", server, options);
  client = next;
  next.onDidChangeState((event) => {
    if (event.newState === State.Stopped) {
      statusItem.text = "$(circle-slash) memlsp: stopped";
    }
  });
  try {
    // The default error handler restarts a crashed server at most 4 times in 3 minutes, then
    // stops: a broken install does not become a crash loop.
    await next.start();
  } catch (error) {
    const message = `memlsp: the server did not start (${found.command} ${found.args.join(" ")}): ${errorText(error)}`;
    output.appendLine(message);
    showStartError(message);
    client = undefined;
    return;
  }
  for (const method of ["memlsp/indexed", "memlsp/vectors", "memlsp/changed"]) {
    next.onNotification(method, () => void refreshStatus());
  }
  statusItem.show();
  void refreshStatus();
}

// The message last shown: a restart that fails the same way (a settings change, Restart Server)
// must not stack the same notification again.
let lastStartError = "";

function showStartError(message: string): void {
  statusItem.text = "$(error) memlsp";
  statusItem.show();
  if (message === lastStartError) {
    return;
  }
  lastStartError = message;
  void vscode.window.showErrorMessage(message, "Open Settings", "Show Output").then((choice) => {
    if (choice === "Open Settings") {
      void vscode.commands.executeCommand("workbench.action.openSettings", "memlsp.");
    } else if (choice === "Show Output") {
      output.show();
    }
  });
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

async function restart(why: string): Promise<void> {
  output.appendLine(`memlsp: ${why}: restarting the server`);
  stopPolling();
  await stop();
  await start();
}

function onConfigurationChanged(event: vscode.ConfigurationChangeEvent): void {
  if (!event.affectsConfiguration(SECTION)) {
    return;
  }
  if (CLIENT_SETTINGS.some((name) => event.affectsConfiguration(`${SECTION}.${name}`))) {
    void restart("server command changed");
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

/** Whether `python` can import memlsp: a wrong interpreter gets a clear message, not a crash loop. */
// It imports the server itself, so missing dependencies count too, and runs outside the workspace:
// a checkout of memlsp's sources there would otherwise be found without being installed.
function canImportMemlsp(python: string): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    execFile(python, ["-c", "import memlsp.lsp.main"], { timeout: 30_000, cwd: os.tmpdir() }, (error) =>
      resolve(error === null),
    );
  });
}

async function pythonPathHasMemlsp(pythonPath: string): Promise<boolean> {
  return pythonPath.trim() ? canImportMemlsp(pythonPath.trim()) : true;
}

/** The Python extension's interpreter, only if memlsp is importable there (else the next way). */
async function pythonWithMemlsp(): Promise<string | undefined> {
  const extension = vscode.extensions.getExtension<PythonExtensionApi>("ms-python.python");
  if (!extension) {
    return undefined;
  }
  let interpreter: string | undefined;
  try {
    const api = extension.isActive ? extension.exports : await extension.activate();
    const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
    interpreter =
      api.settings?.getExecutionDetails?.(resource).execCommand?.[0] ??
      api.environments?.getActiveEnvironmentPath?.(resource).path;
  } catch (error) {
    output.appendLine(`memlsp: asking the Python extension for its interpreter: ${errorText(error)}`);
    return undefined;
  }
  if (!interpreter) {
    return undefined;
  }
  const hasMemlsp = await canImportMemlsp(interpreter);
  if (!hasMemlsp) {
    output.appendLine(`memlsp: ${interpreter} (the Python extension's interpreter) has no memlsp installed`);
  }
  return hasMemlsp ? interpreter : undefined;
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
      const answer = await lsp.sendRequest<SearchResponse>(
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

async function showLinks(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== "markdown") {
    void vscode.window.showInformationMessage("memlsp: open a Markdown note to see its links.");
    return;
  }
  const lsp = runningClient();
  if (!lsp) {
    return;
  }
  const uri = editor.document.uri.toString();
  const answer = await lsp.sendRequest<LinksResponse | null>("memlsp/links", { uri });
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
    statusItem.text = "$(sync~spin) memlsp: reindexing";
  } catch (error) {
    output.appendLine(`memlsp: reindex: ${errorText(error)}`);
  }
}

async function fetchStatus(): Promise<StatusResponse | undefined> {
  if (!client?.isRunning()) {
    return undefined;
  }
  try {
    return await client.sendRequest<StatusResponse>("memlsp/status", {});
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
  statusItem.text = statusBarText(status);
  statusItem.tooltip = statusLines(status).join("\n");
  // Between the server's notifications, poll only while something is still under way.
  // An unavailable embedder keeps its pending count but will not move until retried.
  const busy = status.vaults.some(
    (v) =>
      v.state === "indexing" ||
      v.state === "opening" ||
      ((v.vectors?.pending ?? 0) > 0 && v.vectors?.state !== "unavailable"),
  );
  stopPolling();
  if (busy) {
    pollTimer = setTimeout(() => void refreshStatus(), STATUS_POLL_MS);
  }
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
