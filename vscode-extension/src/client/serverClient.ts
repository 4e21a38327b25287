// The language client's life: finds the server (serverCommand's discoverServer with this
// machine's probes), starts it over stdio, restarts it when a client-only setting changes or the
// user asks, and forwards the server's own settings. A ServerClient holds all that lives as long as
// the extension: the client, the output channel, the status bar, the last start error. Commands and
// views are handed it (or a getter of its client) and keep none of that state themselves; they
// hear of the server's news through `onEvent`.

import * as os from "node:os";
import * as vscode from "vscode";
import { DidChangeConfigurationNotification, LanguageClient, LanguageClientOptions, State } from "vscode-languageclient/node";
import { errorText } from "../errors";
import { announcedBounds } from "../graph/bounds";
import { CLIENT_SETTINGS, ServerSettingName, serverOptions } from "../settings";
import { StatusReports } from "../reportSchedule";
import { anyBusy, startingView, statusItems, stoppedView } from "../status";
import type { GraphBoundsJson, Messages } from "../wire";
import { NoWorkDoneProgress, middleware } from "./builtinMarkdown";
import { canImportMemlsp, isExecutableFile } from "./probes";
import { hasPythonExtension, pythonExtensionInterpreter } from "./pythonExtension";
import { ServerCommand, ServerNotFound, discoverServer, serverExecutable } from "./serverCommand";
import { StartErrorNotice } from "./startError";
import { StatusBar } from "./statusBar";

const SECTION = "memlsp";
// The server's notifications: the vault was indexed or changed (links may lead elsewhere now),
// or vectors were made (what waited for meaning may have it now).
const INDEXED = "memlsp/indexed";
const CHANGED = [INDEXED, "memlsp/changed"] as const;
const VECTORS = "memlsp/vectors";

export type ServerEvent =
  | { kind: "started"; bounds: GraphBoundsJson | undefined } // bounds: the graph's, if announced
  | { kind: "changed" }
  | { kind: "vectors" };

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

export class ServerClient implements vscode.Disposable {
  // A log channel: vscode-languageclient 11 writes its own trace there too.
  readonly output = vscode.window.createOutputChannel("memlsp", { log: true });
  readonly status = new StatusBar();
  private readonly reports = new StatusReports();
  private current: LanguageClient | undefined;
  private readonly startError = new StartErrorNotice(this.output, this.status, (why, explicit) => this.restart(why, explicit));
  private readonly events = new vscode.EventEmitter<ServerEvent>();
  readonly onEvent = this.events.event;

  /** The client, running or not (the views say "waiting" or "not running" from it). */
  get client(): LanguageClient | undefined {
    return this.current;
  }

  /** The running client for a command; else undefined, and the user is told, with a way to restart. */
  running(): LanguageClient | undefined {
    if (this.current?.isRunning()) {
      return this.current;
    }
    void vscode.window.showWarningMessage("memlsp: the server is not running.", "Restart Server").then(
      (choice) => choice && vscode.commands.executeCommand("memlsp.restartServer"),
    );
    return undefined;
  }

  dispose(): void {
    this.status.dispose();
    this.events.dispose();
    this.output.dispose();
  }

  /** Starts the server; `explicit` (Restart Server) always says what happened, even a repeated error. */
  async start(explicit: boolean): Promise<void> {
    const found = await this.find();
    if (found.kind === "error") {
      this.output.appendLine(found.message);
      this.startError.notFound(found, explicit);
      return;
    }
    const commandLine = `${found.command} ${found.args.join(" ")}`;
    this.output.appendLine(`starting ${commandLine} (from ${found.origin})`);
    const options: LanguageClientOptions = {
      documentSelector: [{ scheme: "file", language: "markdown" }],
      outputChannel: this.output,
      initializationOptions: currentServerOptions(),
      middleware,
      // No `synchronize.configurationSection`: it would send the whole "memlsp" section, client-only
      // keys (server.command, pythonPath) included, which the server reports as unknown settings.
      // onConfigurationChanged sends the server's own settings instead.
    };
    const next = new LanguageClient("memlsp", "memlsp", serverExecutable(found), options);
    next.registerFeature(new NoWorkDoneProgress());
    this.current = next;
    next.onDidChangeState((event) => {
      if (event.newState === State.Stopped && this.current === next) {
        this.status.show([stoppedView()]);
      }
    });
    this.status.show([startingView(commandLine)]);
    try {
      // The default error handler restarts a crashed server at most 4 times in 3 minutes, then
      // stops: a broken install does not become a crash loop.
      await next.start();
    } catch (error) {
      const message = `memlsp: the server did not start (${commandLine}): ${errorText(error)}`;
      this.output.appendLine(message);
      this.startError.failed(message, explicit);
      this.current = undefined;
      return;
    }
    this.startError.started();
    for (const method of [...CHANGED, VECTORS]) {
      next.onNotification(method, () => {
        if (method === INDEXED) {
          this.reports.force();
        }
        void this.refreshStatus();
        this.events.fire({ kind: method === VECTORS ? "vectors" : "changed" });
      });
    }
    this.events.fire({ kind: "started", bounds: announcedBounds(next.initializeResult) });
    this.reports.force(); // a new server: its first answer brings the report
    if (explicit) {
      void vscode.window.showInformationMessage(`memlsp: the server is running: ${commandLine} (from ${found.origin}).`);
    }
    void this.refreshStatus();
  }

  /** Stops the server (and the status polling that asks it). */
  async stop(): Promise<void> {
    this.status.stopPolling();
    const old = this.current;
    this.current = undefined;
    if (old) {
      try {
        await old.stop();
      } catch (error) {
        this.output.appendLine(`memlsp: stopping the server: ${errorText(error)}`);
      }
    }
  }

  async restart(why: string, explicit: boolean): Promise<void> {
    this.output.appendLine(`memlsp: ${why}: restarting the server`);
    await this.stop();
    await this.start(explicit);
  }

  onConfigurationChanged(event: vscode.ConfigurationChangeEvent): void {
    if (!event.affectsConfiguration(SECTION)) {
      return;
    }
    if (CLIENT_SETTINGS.some((name) => event.affectsConfiguration(`${SECTION}.${name}`))) {
      void this.restart("server command changed", false);
      return;
    }
    if (this.current?.isRunning()) {
      // Nested under "memlsp", as the server expects from workspace/didChangeConfiguration.
      void this.current.sendNotification(DidChangeConfigurationNotification.type, {
        settings: { [SECTION]: currentServerOptions() },
      });
    }
  }

  /** The links of a note for the preview; undefined while no server runs (nothing is shown then). */
  async links(uri: string): Promise<Messages["memlsp/links"] | undefined> {
    if (!this.current?.isRunning()) {
      return undefined;
    }
    return this.current.sendRequest<Messages["memlsp/links"]>("memlsp/links", { uri });
  }

  /** `report`: with each vault's status report (a server that does not know it answers without). */
  async fetchStatus(report = false): Promise<Messages["memlsp/status"] | undefined> {
    if (!this.current?.isRunning()) {
      return undefined;
    }
    try {
      return await this.current.sendRequest<Messages["memlsp/status"]>("memlsp/status", report ? { report: true } : {});
    } catch (error) {
      this.output.appendLine(`memlsp: status: ${errorText(error)}`);
      // A server that cannot make the report still says how the vault is.
      return report ? this.fetchStatus(false) : undefined;
    }
  }

  async refreshStatus(): Promise<void> {
    const report = this.reports.due(Date.now());
    const status = await this.fetchStatus(report);
    if (!status) {
      return;
    }
    const again = this.reports.take(status, report, Date.now());
    this.status.show(statusItems(status, (root) => this.reports.get(root)));
    // Between the server's notifications, poll only while something is moving.
    this.status.stopPolling();
    if (again) {
      void this.refreshStatus(); // a vault became ready: its tooltip says so in full at once
    } else if (anyBusy(status)) {
      this.status.pollSoon(() => void this.refreshStatus());
    }
  }

  private find(): Promise<ServerCommand | ServerNotFound> {
    const settings = config();
    const log = (line: string): void => this.output.appendLine(line);
    return discoverServer(
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
        hasPythonExtension: hasPythonExtension(),
      },
      {
        isExecutable: isExecutableFile,
        canImportMemlsp: (python) => canImportMemlsp(python, log),
        pythonExtensionInterpreter: () => pythonExtensionInterpreter(log),
      },
    );
  }
}
