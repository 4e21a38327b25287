// Which process to start as the language server, and what to say when there is none. Pure: every
// probe of the machine (a file is executable, an interpreter can import memlsp, the Python
// extension's pick) is passed in, so the order is unit-testable without VS Code.

import * as nodePath from "node:path";

/** The settings that choose the process (`memlsp.*`); "" / [] when unset. */
export interface DiscoverySettings {
  command: string;
  args: readonly string[];
  pythonPath: string;
}

export interface DiscoveryEnvironment {
  /** File-system paths of the workspace folders, in VS Code's order. */
  workspaceFolders: readonly string[];
  home: string;
  pathEnv: string | undefined;
  platform: NodeJS.Platform;
  /** Whether the Python extension is installed (its interpreter is asked for only then). */
  hasPythonExtension: boolean;
}

export interface DiscoveryProbes {
  isExecutable(file: string): boolean;
  /** Runs `python` (an absolute path) outside the workspace and imports the server. */
  canImportMemlsp(python: string): Promise<boolean>;
  /** The Python extension's selected interpreter, or undefined when none is selected. */
  pythonExtensionInterpreter(): Promise<string | undefined>;
}

export type ServerSource = "memlsp.server.command" | "memlsp.pythonPath" | "Python extension" | "workspace venv" | "PATH";

export interface ServerCommand {
  kind: "command";
  command: string;
  args: string[];
  source: ServerSource;
  /** Where it came from in plain words, for the output channel and Restart Server's message. */
  origin: string;
}

export interface ServerNotFound {
  kind: "error";
  /** One entry per way tried, with why it did not work. */
  tried: string[];
  message: string;
  /** The folder the install instructions name (the first workspace folder), if any. */
  installFolder: string | undefined;
}

export const STDIO_ARGS: readonly string[] = ["--stdio"];
export const STDIO_MODULE_ARGS: readonly string[] = ["-m", "memlsp", ...STDIO_ARGS];
const VENV_NAMES = [".venv", "venv"] as const;

/**
 * The first way that works, in this order: memlsp.server.command; memlsp.pythonPath; the Python
 * extension's interpreter; a `.venv`/`venv` in a workspace folder; `memlsp` on PATH. An
 * interpreter counts only if it can import memlsp, checked by its absolute path (a relative one
 * would be resolved against wherever the check runs).
 */
export async function discoverServer(
  settings: DiscoverySettings,
  env: DiscoveryEnvironment,
  probes: DiscoveryProbes,
): Promise<ServerCommand | ServerNotFound> {
  const paths = platformPath(env.platform);
  const command = settings.command.trim();
  if (command) {
    // Taken as given (the user may wrap it: ssh, docker, a script); only ~ and a relative path
    // are made absolute, the same way as memlsp.pythonPath.
    const candidates = settingCandidates(command, env, probes);
    const chosen = candidates.find((file) => probes.isExecutable(file)) ?? candidates[0] ?? command;
    return {
      kind: "command",
      command: chosen,
      args: settings.args.length ? [...settings.args] : [...STDIO_ARGS],
      source: "memlsp.server.command",
      origin: "the setting memlsp.server.command",
    };
  }
  const tried = ["memlsp.server.command (not set)"];

  const pythonPath = settings.pythonPath.trim();
  if (pythonPath) {
    const candidates = settingCandidates(pythonPath, env, probes);
    const problems: string[] = [];
    for (const python of candidates) {
      const problem = await interpreterProblem(python, probes);
      if (!problem) {
        return pythonCommand(python, "memlsp.pythonPath", `the setting memlsp.pythonPath (${pythonPath})`);
      }
      problems.push(`${python}: ${problem}`);
    }
    // The user's explicit choice is wrong: say so rather than quietly starting something else.
    const why = problems.length ? problems.join("; ") : "no workspace folder to resolve it against";
    return notFound(
      [`memlsp.pythonPath (${pythonPath}: ${why})`],
      `memlsp: the setting memlsp.pythonPath (${pythonPath}) does not give a Python that can import memlsp (${why}). ` +
        "Point it at the python of the environment where memlsp is installed, or clear it to let the extension look for one.",
      env,
    );
  }
  tried.push("memlsp.pythonPath (not set)");

  if (env.hasPythonExtension) {
    const reported = (await probes.pythonExtensionInterpreter())?.trim();
    if (reported) {
      const python = absolute(reported, env.workspaceFolders[0], env);
      const problem = await interpreterProblem(python, probes);
      if (!problem) {
        return pythonCommand(python, "Python extension", `the Python extension's interpreter`);
      }
      tried.push(`the Python extension's interpreter (${python}: ${problem})`);
    } else {
      tried.push("the Python extension's interpreter (none selected)");
    }
  } else {
    tried.push("the Python extension's interpreter (the extension is not installed)");
  }

  for (const folder of env.workspaceFolders) {
    const found: string[] = [];
    for (const venv of VENV_NAMES) {
      const python = venvPython(folder, venv, env.platform);
      if (!probes.isExecutable(python)) {
        continue;
      }
      const problem = await interpreterProblem(python, probes);
      if (!problem) {
        return pythonCommand(python, "workspace venv", `${venv} in the workspace folder ${paths.basename(folder)}`);
      }
      found.push(`${venv}: ${problem}`);
    }
    const names = VENV_NAMES.join(" or ");
    tried.push(`${names} in ${folder} (${found.length ? found.join("; ") : "none there"})`);
  }
  if (!env.workspaceFolders.length) {
    tried.push(`${VENV_NAMES.join(" or ")} in a workspace folder (no folder is open)`);
  }

  const onPath = findOnPath("memlsp", env.pathEnv, probes.isExecutable, env.platform);
  if (onPath) {
    return { kind: "command", command: onPath, args: [...STDIO_ARGS], source: "PATH", origin: "memlsp on PATH" };
  }
  tried.push("memlsp on PATH (not found)");
  return notFound(
    tried,
    `memlsp: cannot find the memlsp language server. Tried: ${tried.join("; ")}. ` +
      "memlsp is installed from its source checkout into the workspace's .venv: see How to Install.",
    env,
  );
}

/** The steps "How to Install" shows: memlsp is not on PyPI, it is installed from a checkout. */
export function installSteps(folder: string | undefined, platform: NodeJS.Platform): string[] {
  const pip = platform === "win32" ? ".venv\\Scripts\\pip" : ".venv/bin/pip";
  const python = platform === "win32" ? "py" : "python3";
  const where = folder ? `In a terminal, in the workspace folder ${folder}:` : "In a terminal, in your notes folder:";
  return [
    "memlsp is not on PyPI: install it from a checkout of the memlsp repository.",
    where,
    `${python} -m venv .venv && ${pip} install <path of the memlsp checkout>`,
    "The extension finds that .venv with no settings. Then run memlsp: Restart Server.",
    "Or point memlsp.pythonPath at the python of any environment where memlsp is installed.",
  ];
}

// --- Paths ----------------------------------------------------------------------------------

function platformPath(platform: NodeJS.Platform): nodePath.PlatformPath {
  return platform === "win32" ? nodePath.win32 : nodePath.posix;
}

/** `~`, `${userHome}` and `${workspaceFolder}` expanded; a relative path joined to `folder`. */
export function absolute(value: string, folder: string | undefined, env: Pick<DiscoveryEnvironment, "home" | "platform">): string {
  const paths = platformPath(env.platform);
  let expanded = value.replace(/\$\{userHome\}/g, env.home);
  if (folder !== undefined) {
    expanded = expanded.replace(/\$\{workspaceFolder\}/g, folder);
  }
  if (expanded === "~" || expanded.startsWith("~/") || (env.platform === "win32" && expanded.startsWith("~\\"))) {
    expanded = env.home + expanded.slice(1);
  }
  if (paths.isAbsolute(expanded) || folder === undefined) {
    return paths.normalize(expanded);
  }
  return paths.join(folder, expanded);
}

/**
 * Where a path setting may point: itself when absolute; else relative to each workspace folder in
 * turn; a bare name (no folder part) is also looked up on PATH, as a shell would.
 */
function settingCandidates(value: string, env: DiscoveryEnvironment, probes: DiscoveryProbes): string[] {
  const paths = platformPath(env.platform);
  const folders = env.workspaceFolders.length ? env.workspaceFolders : [undefined];
  const candidates = folders.map((folder) => absolute(value, folder, env)).filter((file) => paths.isAbsolute(file));
  const bareName = !/[\\/]/.test(value) && !value.startsWith("~") && !value.includes("${");
  if (bareName) {
    const onPath = findOnPath(value, env.pathEnv, probes.isExecutable, env.platform);
    if (onPath) {
      candidates.push(onPath);
    }
  }
  return [...new Set(candidates)];
}

function venvPython(folder: string, venv: string, platform: NodeJS.Platform): string {
  const paths = platformPath(platform);
  return platform === "win32" ? paths.join(folder, venv, "Scripts", "python.exe") : paths.join(folder, venv, "bin", "python");
}

async function interpreterProblem(python: string, probes: DiscoveryProbes): Promise<string | undefined> {
  if (!probes.isExecutable(python)) {
    return "no such program";
  }
  return (await probes.canImportMemlsp(python)) ? undefined : "cannot import memlsp";
}

function pythonCommand(python: string, source: ServerSource, origin: string): ServerCommand {
  return { kind: "command", command: python, args: [...STDIO_MODULE_ARGS], source, origin };
}

function notFound(tried: string[], message: string, env: DiscoveryEnvironment): ServerNotFound {
  return { kind: "error", tried, message, installFolder: env.workspaceFolders[0] };
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

/**
 * What vscode-languageclient is given to start the process. No `transport`: with
 * `TransportKind.stdio` the client appends its own `--stdio` to the args (node/main.js), which
 * doubled ours; without one it talks stdio and passes the args exactly as they are.
 */
export interface ServerExecutable {
  command: string;
  args: string[];
}

export function serverExecutable(found: ServerCommand): ServerExecutable {
  return { command: found.command, args: [...found.args] };
}
