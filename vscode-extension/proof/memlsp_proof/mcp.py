"""The MCP run: the .vscode/mcp.json of docs/agents.md for VS Code's own MCP client, no memlsp extension;
VS Code starts the server and discovers its tools."""

from __future__ import annotations

import json
import os
import re
import time
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Page

from .setup import (
    REPO_DIR,
    Paths,
    ProofError,
    code_server,
    free_port,
    log,
    node_env,
    prepare_vault,
    reset_code_server_data,
    write_user_settings,
)
from .workbench import (
    Results,
    browser_page,
    open_workbench,
    poll,
    quick_pick_rows,
    run_command,
    screenshot,
)

# --- The agents' set-up: VS Code's own MCP client starts `memlsp mcp` -----------------------

MCP = "mcp-"
MCP_TOOLS = ("search", "read", "links", "related", "recent")  # no `write` without --allow-writes
README_VSCODE_MCP = "**VS Code**: `.vscode/mcp.json`"  # the line of docs/agents.md above its JSON


def readme_vscode_mcp_json() -> str:
    """The `.vscode/mcp.json` docs/agents.md gives for VS Code, as it is written there."""
    readme = (REPO_DIR / "docs" / "agents.md").read_text(encoding="utf-8")
    at = readme.find(README_VSCODE_MCP)
    found = re.compile(r"```json\n(.*?)\n```", re.DOTALL).search(readme, at) if at >= 0 else None
    if found is None:
        raise ProofError(f"docs/agents.md has no JSON block after {README_VSCODE_MCP!r}")
    return found.group(1) + "\n"


def mcp_paths(main: Paths) -> Paths:
    build = main.build / "mcp"
    build.mkdir(parents=True, exist_ok=True)
    tools = build / "tools"
    if not tools.exists():
        tools.symlink_to(main.tools)
    return Paths(build, shots=main.screenshots)


def mcp_env(paths: Paths, python: str) -> dict[str, str]:
    """code-server's environment with the Python's bin folder (its `memlsp`) first on PATH.

    VS Code normally replaces the PATH it was started with by a login shell's (on Debian
    /etc/profile resets PATH), so `memlsp` would be found only where the user's shell profile puts
    it; VSCODE_CLI=1 makes it keep code-server's PATH, as when it is started from a shell."""
    bin_dir = Path(os.path.abspath(python)).parent  # not resolved: a venv's python is a symlink
    if not (bin_dir / "memlsp").exists():
        raise ProofError(f"no memlsp in {bin_dir}: install memlsp into {python}")
    env = node_env(paths)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    env["VSCODE_CLI"] = "1"
    env.pop("VIRTUAL_ENV", None)
    # memlsp mcp indexes the vault into the per-user cache: a fresh one in the build folder.
    env["XDG_CACHE_HOME"] = str(paths.build / "cache")
    return env


def pick_row(page: Page, text: str) -> None:
    """Clicks the quick pick's first row holding `text`."""
    row = page.locator(".quick-input-list .monaco-list-row", has_text=text).first
    row.wait_for(timeout=15_000)
    row.click()


def mcp_server_row(page: Page) -> str:
    """The memlsp row of MCP: List Servers ("memlsp<state> <config file>"); the list stays open."""
    run_command(page, "MCP: List Servers")
    page.locator(".quick-input-list .monaco-list-row", has_text="memlsp").first.wait_for(
        timeout=15_000
    )
    time.sleep(0.5)
    rows = quick_pick_rows(page)
    return next((row for row in rows.values() if row.startswith("memlsp")), "")


def output_panel_text(page: Page) -> str:
    """The text of the output channel the panel shows, as rendered (the lines in view)."""
    text = page.evaluate(
        """() => {
            const editor = document.querySelector('.part.panel .monaco-editor');
            return editor ? editor.innerText.replace(/\u00a0/g, ' ') : '';
        }"""
    )
    return str(text)


def copy_output_channel(page: Page, url: str) -> str:
    """The whole output channel the panel shows: Select All and Copy in it, read from the
    clipboard (its long lines are wrapped and only the lines in view are rendered)."""
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=url)
    page.evaluate("() => navigator.clipboard.writeText('')")
    box = page.locator(".part.panel .monaco-editor").first.bounding_box()
    if box is None:
        return ""
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.keyboard.press("Control+A")
    page.keyboard.press("Control+C")
    text = poll(lambda: page.evaluate("() => navigator.clipboard.readText()"), 5, 0.3)
    return str(text or "")


def listed_tools(channel: str) -> list[str] | None:
    """The tool names in the server's answer to `tools/list`, as VS Code logs it at debug level
    ("[server -> editor] {...}"); None when it logged none."""
    for line in channel.splitlines():
        _, found, message = line.partition("[server -> editor] ")
        if not found:
            continue
        with suppress(ValueError):
            answer = json.loads(message)
            result = answer.get("result") if isinstance(answer, dict) else None
            tools = result.get("tools") if isinstance(result, dict) else None
            if isinstance(tools, list):
                return [str(tool.get("name")) for tool in tools if isinstance(tool, dict)]
    return None


def check_mcp(page: Page, url: str, paths: Paths, results: Results) -> bool:
    """The .vscode/mcp.json of docs/agents.md: VS Code lists the server, starts it from its own UI and
    reports its tools."""
    row = mcp_server_row(page)
    screenshot(page, paths, f"{MCP}01-servers")
    listed = "Stopped" in row and ".vscode/mcp.json" in row
    results.record(f"{MCP}listed", listed, f"MCP: List Servers shows {row or 'no memlsp row'!r}")
    if not row:
        page.keyboard.press("Escape")
        return results.record(f"{MCP}server", False, "no memlsp server to start")
    pick_row(page, "memlsp")
    pick_row(page, "Start Server")
    time.sleep(1)
    mcp_server_row(page)
    pick_row(page, "memlsp")
    pick_row(page, "Show Output")
    poll(lambda: re.search(r"Discovered \d+ tools", output_panel_text(page)), 120, 1)
    screenshot(page, paths, f"{MCP}02-output")
    channel = copy_output_channel(page, url)
    discovered = re.search(r"\[info\] Discovered (\d+) tools", channel)
    tools = listed_tools(channel)
    started = re.search(r"Server command line: (.*)", channel)
    row = mcp_server_row(page)
    screenshot(page, paths, f"{MCP}03-running")
    page.keyboard.press("Escape")
    count = int(discovered.group(1)) if discovered else None
    ok = (
        "Running" in row
        and count == len(MCP_TOOLS)
        and tools is not None
        and sorted(tools) == sorted(MCP_TOOLS)
    )
    detail = (
        f"server row {row!r}; output 'MCP: memlsp': command line "
        f"{started.group(1) if started else None!r}, 'Discovered {count} tools', tools/list "
        f"answered {tools}"
    )
    if not ok and not discovered:
        detail += f"; output ends {output_panel_text(page)[-400:]!r}"
    return results.record(f"{MCP}server", ok, detail)


def run_mcp(main: Paths, vsix: Path, python: str, port: int, results: Results) -> None:
    """No extension: only the .vscode/mcp.json of docs/agents.md in the vault copy."""
    paths = mcp_paths(main)
    reset_code_server_data(paths)
    prepare_vault(paths)
    config = paths.vault / ".vscode" / "mcp.json"
    config.parent.mkdir()
    config.write_text(readme_vscode_mcp_json(), encoding="utf-8")
    # VS Code shows no MCP command or server while AI features are off (the other runs' setting).
    write_user_settings(paths, {"chat.disableAIFeatures": False})
    env = mcp_env(paths, python)
    log(f".vscode/mcp.json: {config.read_text(encoding='utf-8').strip()}")
    # At debug level VS Code writes each MCP message to the server's output channel.
    options = ("--log", "debug")
    with (
        code_server(paths, port or free_port(), env=env, options=options) as url,
        browser_page(paths, results, MCP) as page,
    ):
        open_workbench(page, url, paths)
        screenshot(page, paths, f"{MCP}00-workbench")
        check_mcp(page, url, paths, results)
