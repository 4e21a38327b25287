// Which process to start as the language server. Pure: every probe of the machine (the Python
// extension's interpreter, PATH lookup) is passed in, so the order is unit-testable without VS Code.

export interface ServerCommandInputs {
  /** `memlsp.server.command`; "" when unset. */
  command: string;
  /** `memlsp.server.args`. */
  args: readonly string[];
  /** `memlsp.pythonPath`; "" when unset. */
  pythonPath: string;
  /** Whether `pythonPath` can import memlsp (true when it is unset). */
  pythonPathHasMemlsp: boolean;
  /** The Python extension's selected interpreter, or undefined (extension absent or none chosen). */
  interpreter: string | undefined;
  /** Full path of `memlsp` found on PATH, or undefined. */
  memlspOnPath: string | undefined;
}

export interface ServerCommand {
  kind: "command";
  command: string;
  args: string[];
  /** Which setting or probe chose it, for the output channel. */
  source: "memlsp.server.command" | "memlsp.pythonPath" | "python interpreter" | "PATH";
}

export interface ServerNotFound {
  kind: "error";
  tried: string[];
  message: string;
}

export const STDIO_MODULE_ARGS: readonly string[] = ["-m", "memlsp", "--stdio"];

export function resolveServerCommand(inputs: ServerCommandInputs): ServerCommand | ServerNotFound {
  const command = inputs.command.trim();
  if (command) {
    // An explicit command is taken as given: the user may wrap it (ssh, docker, a script).
    return { kind: "command", command, args: [...inputs.args], source: "memlsp.server.command" };
  }
  // memlsp.pythonPath is the user's explicit choice, so it wins over the Python extension's pick.
  const pythonPath = inputs.pythonPath.trim();
  if (pythonPath && !inputs.pythonPathHasMemlsp) {
    // The user's explicit choice is wrong: say so rather than quietly trying something else.
    const tried = [`memlsp.pythonPath (${pythonPath}: cannot import memlsp)`];
    const message =
      `memlsp: ${pythonPath} (memlsp.pythonPath) cannot import memlsp. Install it there ` +
      `(\`${pythonPath} -m pip install memlsp\`), or point memlsp.pythonPath at the Python ` +
      "environment that has it.";
    return { kind: "error", tried, message };
  }
  if (pythonPath) {
    return { kind: "command", command: pythonPath, args: [...STDIO_MODULE_ARGS], source: "memlsp.pythonPath" };
  }
  const interpreter = inputs.interpreter?.trim();
  if (interpreter) {
    return { kind: "command", command: interpreter, args: [...STDIO_MODULE_ARGS], source: "python interpreter" };
  }
  if (inputs.memlspOnPath) {
    return { kind: "command", command: inputs.memlspOnPath, args: ["--stdio"], source: "PATH" };
  }
  const tried = [
    "memlsp.server.command (not set)",
    "memlsp.pythonPath (not set)",
    "the Python extension's interpreter (none selected, or memlsp not installed in it)",
    "`memlsp` on PATH (not found)",
  ];
  const message =
    "memlsp: cannot find the memlsp language server. Tried " +
    tried.join(", ") +
    ". Install it with `pip install memlsp`, then set memlsp.pythonPath to that environment's " +
    "python (or memlsp.server.command to its memlsp executable).";
  return { kind: "error", tried, message };
}

/** `which`: the first executable named `name` on `pathEnv`. Probes injected to stay testable. */
export function findOnPath(
  name: string,
  pathEnv: string | undefined,
  isExecutable: (file: string) => boolean,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  if (!pathEnv) {
    return undefined;
  }
  const separator = platform === "win32" ? ";" : ":";
  const slash = platform === "win32" ? "\\" : "/";
  // On Windows pip installs console scripts as memlsp.exe.
  const names = platform === "win32" ? [`${name}.exe`, `${name}.cmd`, name] : [name];
  for (const dir of pathEnv.split(separator)) {
    if (!dir) {
      continue;
    }
    for (const candidate of names) {
      const file = dir.endsWith(slash) ? dir + candidate : dir + slash + candidate;
      if (isExecutable(file)) {
        return file;
      }
    }
  }
  return undefined;
}
