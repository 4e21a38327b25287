// The machine probes discoverServer (serverCommand) runs: whether a file is an executable, and
// whether an interpreter can import memlsp. Node only, no `vscode`: the unit tests run them.

import { execFile } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import * as os from "node:os";

export function isExecutableFile(file: string): boolean {
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

/** Whether `python` (an absolute path) can import memlsp: a wrong interpreter gets a clear message, not a crash loop. */
// It imports the server itself, so missing dependencies count too, and runs outside the workspace:
// a checkout of memlsp's sources there would otherwise be found without being installed.
export function canImportMemlsp(python: string, log: (line: string) => void): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    execFile(python, ["-c", "import memlsp.lsp.main"], { timeout: 30_000, cwd: os.tmpdir() }, (error) => {
      if (error) {
        log(`memlsp: ${python} cannot import memlsp`);
      }
      resolve(error === null);
    });
  });
}
