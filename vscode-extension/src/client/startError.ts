// The start error shown to the user: the status bar's error item and a notification whose buttons
// lead to a fix (choose an interpreter, open the setting, how to install, the output).

import * as vscode from "vscode";
import { startErrorView } from "../status";
import { hasPythonExtension } from "./pythonExtension";
import { ServerNotFound, installSteps } from "./serverCommand";
import { START_FAILED_BUTTONS, StartErrorMemory, notFoundButtons, venvCommand } from "./startErrorRules";
import type { StatusBar } from "./statusBar";

export class StartErrorNotice {
  private readonly memory = new StartErrorMemory();
  private installFolder: string | undefined; // what "How to Install" names, from the last search

  constructor(
    private readonly output: vscode.LogOutputChannel,
    private readonly status: StatusBar,
    private readonly restart: (why: string, explicit: boolean) => Promise<void>,
  ) {}

  /** The server started: a later error is shown even if it is the last one again. */
  started(): void {
    this.memory.forget();
  }

  /** The server was found but did not start; `explicit` (Restart Server) shows even a repeated error. */
  failed(message: string, explicit: boolean): void {
    this.show(message, explicit, START_FAILED_BUTTONS);
  }

  notFound(found: ServerNotFound, explicit: boolean): void {
    this.installFolder = found.installFolder;
    this.show(found.message, explicit, notFoundButtons(hasPythonExtension()));
  }

  private show(message: string, explicit: boolean, buttons: readonly string[]): void {
    this.status.show([startErrorView(message)]);
    if (this.memory.shouldShow(message, explicit)) {
      void vscode.window.showErrorMessage(message, ...buttons).then((choice) => this.onChoice(choice));
    }
  }

  private async onChoice(choice: string | undefined): Promise<void> {
    switch (choice) {
      case "Choose Interpreter":
        // The picker resolves when it closes; whatever was chosen is then tried.
        await vscode.commands.executeCommand("python.setInterpreter");
        await this.restart("interpreter chosen", true);
        break;
      case "Open Settings":
        await vscode.commands.executeCommand("workbench.action.openSettings", "memlsp.pythonPath");
        break;
      case "How to Install":
        await this.showInstallSteps();
        break;
      case "Show Output":
        this.output.show();
        break;
    }
  }

  private async showInstallSteps(): Promise<void> {
    const [headline, ...rest] = installSteps(this.installFolder, process.platform);
    const choice = await vscode.window.showInformationMessage(
      headline ?? "",
      { modal: true, detail: rest.join("\n") },
      "Copy Command",
      "Restart Server",
    );
    if (choice === "Copy Command") {
      await vscode.env.clipboard.writeText(venvCommand(rest));
    } else if (choice === "Restart Server") {
      await this.restart("Restart Server", true);
    }
  }
}
