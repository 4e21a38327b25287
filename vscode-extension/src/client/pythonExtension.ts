// The Python extension, one of the places discoverServer looks for an interpreter with memlsp:
// whether it is installed, and the interpreter selected in it.

import * as vscode from "vscode";
import { errorText } from "../errors";

const PYTHON_EXTENSION = "ms-python.python";

interface PythonExtensionApi {
  settings?: { getExecutionDetails?(resource?: vscode.Uri): { execCommand: string[] | undefined } };
  environments?: { getActiveEnvironmentPath?(resource?: vscode.Uri): { path: string } };
}

export function hasPythonExtension(): boolean {
  return vscode.extensions.getExtension(PYTHON_EXTENSION) !== undefined;
}

/** The Python extension's selected interpreter (discoverServer checks it can import memlsp). */
export async function pythonExtensionInterpreter(log: (line: string) => void): Promise<string | undefined> {
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
    log(`memlsp: asking the Python extension for its interpreter: ${errorText(error)}`);
    return undefined;
  }
}
