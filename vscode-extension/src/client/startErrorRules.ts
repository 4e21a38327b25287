// The rules of the start error the user is shown, apart from VS Code so the unit tests can check
// them: which buttons it has, when the same error is not shown again, which line of the install
// steps "Copy Command" copies.

export const START_FAILED_BUTTONS: readonly string[] = ["Open Settings", "Show Output"];

/** memlsp found nowhere: the ways to give it one ("Choose Interpreter" only with the Python extension). */
export function notFoundButtons(hasPythonExtension: boolean): string[] {
  const buttons = ["Open Settings", "How to Install"];
  return hasPythonExtension ? ["Choose Interpreter", ...buttons] : buttons;
}

/** The command that makes the venv, from the install steps (the line "Copy Command" copies). */
export function venvCommand(steps: readonly string[]): string {
  return steps.find((line) => line.includes(" -m venv ")) ?? "";
}

/** The message last shown: a restart caused by a settings change that fails the same way must not
 * stack the same notification again. Restart Server (explicit) always shows it. */
export class StartErrorMemory {
  private last = "";

  /** Whether to show `message` now; it is remembered when shown. */
  shouldShow(message: string, explicit: boolean): boolean {
    if (message === this.last && !explicit) {
      return false;
    }
    this.last = message;
    return true;
  }

  /** The server started: the next error is news, whatever it says. */
  forget(): void {
    this.last = "";
  }
}
