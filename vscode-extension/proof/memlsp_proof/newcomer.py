"""The newcomer run: no memlsp setting at all, memlsp installed only into the vault's .venv as the
extension's How to Install says, not on PATH."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Page

from .main_outline import check_outline, check_references
from .main_settings import check_restart, close_settings, open_user_setting
from .setup import (
    REPO_DIR,
    Paths,
    code_server,
    free_port,
    install_vsix,
    log,
    node_env,
    prepare_vault,
    reset_code_server_data,
    run,
    write_user_settings,
)
from .workbench import (
    Results,
    browser_page,
    check_output_clean,
    focus_editor,
    memlsp_log,
    memlsp_status_text,
    open_index,
    poll,
    screenshot,
    wait_ready,
)

# --- The newcomer's run: no settings, memlsp only in the folder's .venv ---------------------

NEWCOMER = "newcomer-"
PACKAGE_FILES = ("pyproject.toml", "README.md", "memlsp")


def newcomer_paths(main: Paths) -> Paths:
    build = main.build / "newcomer"
    build.mkdir(parents=True, exist_ok=True)
    tools = build / "tools"
    if not tools.exists():
        tools.symlink_to(main.tools)
    return Paths(build, shots=main.screenshots)


def install_into_vault_venv(paths: Paths, python: str) -> Path:
    """`python3 -m venv .venv && .venv/bin/pip install <checkout>` in the vault, as docs/editors.md says.
    The checkout is a copy of the package's files: building in place would write to the repository."""
    checkout = paths.build / "memlsp-checkout"
    if checkout.exists():
        shutil.rmtree(checkout)
    checkout.mkdir()
    for name in PACKAGE_FILES:
        source = REPO_DIR / name
        if source.is_dir():
            shutil.copytree(source, checkout / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, checkout / name)
    venv = paths.vault / ".venv"
    run([python, "-m", "venv", str(venv)])
    bin_dir = venv / ("Scripts" if os.name == "nt" else "bin")
    run([str(bin_dir / "pip"), "install", "--disable-pip-version-check", "-q", str(checkout)])
    return bin_dir / "python"


def path_without_memlsp(path: str) -> str:
    """PATH without the folders that hold a `memlsp` (the shell running this may have one)."""
    kept = [d for d in path.split(os.pathsep) if d and not (Path(d) / "memlsp").exists()]
    return os.pathsep.join(kept)


def newcomer_env(paths: Paths) -> dict[str, str]:
    env = node_env(paths)
    env["PATH"] = path_without_memlsp(env["PATH"])
    env.pop("VIRTUAL_ENV", None)
    # No memlsp.cache_dir setting: the index goes to the per-user cache, a fresh one here.
    env["XDG_CACHE_HOME"] = str(paths.build / "cache")
    return env


def login_shell_memlsp() -> str:
    """`memlsp` on the login shell's PATH, which the extension host may take its PATH from."""
    with suppress(OSError, subprocess.SubprocessError):
        found = subprocess.run(
            ["bash", "-lc", "command -v memlsp"], capture_output=True, text=True, timeout=20
        )
        return found.stdout.strip()
    return ""


def write_note(paths: Paths, number: int) -> Path:
    note = paths.vault / "inbox" / f"newcomer-{number}.md"
    note.write_text(
        f"# Written outside the editor, number {number}\n\n"
        f"A note the file watcher finds and the server indexes and embeds (run {number}).\n",
        encoding="utf-8",
    )
    return note


def notes_in_status(text: str) -> int | None:
    found = re.search(r"Ready: ([\d,]+) notes", text)
    return int(found.group(1).replace(",", "")) if found else None


def check_embedding_run(page: Page, paths: Paths, results: Results, number: int) -> bool:
    before = notes_in_status(memlsp_status_text(page)[0])
    write_note(paths, number)
    expect = f"Ready: {before + 1:,} notes" if before is not None else "Ready"
    seen_busy = poll(lambda: "sync~spin" in memlsp_status_text(page)[1], timeout=10, interval=0.2)
    ready = wait_ready(page, timeout=120, expect=expect)
    screenshot(page, paths, f"{NEWCOMER}12-embedding-{number}")
    detail = f"note {number} written; busy seen: {bool(seen_busy)}; status {ready or memlsp_status_text(page)}"
    return results.record(f"{NEWCOMER}embedding-{number}", bool(ready), detail)


def check_server_from_venv(page: Page, paths: Paths, results: Results, python: Path) -> bool:
    ready = wait_ready(page, timeout=240)
    screenshot(page, paths, f"{NEWCOMER}02-server-ready")
    started = f"starting {python} -m memlsp --stdio (from .venv in the workspace folder {paths.vault.name})"
    logged = started in memlsp_log(paths)
    results.record(f"{NEWCOMER}ready", bool(ready), f"status {ready or memlsp_status_text(page)}")
    lines = [line for line in memlsp_log(paths).splitlines() if "starting " in line]
    return results.record(f"{NEWCOMER}server-from-venv", logged, f"output: {lines[:2]}")


def check_relative_python_path(page: Page, paths: Paths, results: Results, python: Path) -> bool:
    """`.venv/bin/python` typed into memlsp.pythonPath on the User tab: the server restarts from it."""
    relative = python.relative_to(paths.vault).as_posix()
    editor = open_user_setting(page, "memlsp.pythonPath")
    field = editor.locator(".setting-item", has_text="Python Path").locator("input").first
    field.wait_for(state="visible", timeout=15_000)
    field.fill(relative)
    page.keyboard.press("Tab")
    started = (
        f"starting {python} -m memlsp --stdio (from the setting memlsp.pythonPath ({relative}))"
    )
    logged = poll(lambda: started in memlsp_log(paths), timeout=60, interval=1)
    screenshot(page, paths, f"{NEWCOMER}13-relative-pythonPath")
    close_settings(page, editor)
    ready = wait_ready(page, timeout=120)
    user_file = paths.user_data / "User" / "settings.json"
    in_user = relative in user_file.read_text(encoding="utf-8")
    errors = [line for line in memlsp_log(paths).splitlines() if "cannot import" in line]
    detail = (
        f"User settings.json has it: {in_user}; output has {started!r}: {bool(logged)}; "
        f"status {ready}; errors {errors[:2] or 'none'}"
    )
    return results.record(
        f"{NEWCOMER}relative-pythonPath", bool(logged) and bool(ready) and in_user, detail
    )


def run_newcomer(main: Paths, vsix: Path, python: str, port: int, results: Results) -> None:
    paths = newcomer_paths(main)
    reset_code_server_data(paths)
    prepare_vault(paths)
    started = time.monotonic()
    venv_python = install_into_vault_venv(paths, python)
    results.record(
        f"{NEWCOMER}venv",
        venv_python.exists(),
        f"memlsp installed into {venv_python.parent.parent} in {time.monotonic() - started:.0f} s",
    )
    write_user_settings(paths, {})
    install_vsix(paths, vsix)
    env = newcomer_env(paths)
    on_login_path = login_shell_memlsp()
    log(f"memlsp on code-server's PATH: none; on the login shell's PATH: {on_login_path or 'none'}")
    with (
        code_server(paths, port or free_port(), env=env) as url,
        browser_page(paths, results, NEWCOMER) as page,
    ):
        if not open_index(page, url, paths, results, NEWCOMER):
            return
        check_server_from_venv(page, paths, results, venv_python)
        check_outline(page, paths, results, NEWCOMER)
        check_references(page, paths, results, NEWCOMER)
        focus_editor(page)
        check_embedding_run(page, paths, results, 1)
        check_embedding_run(page, paths, results, 2)
        check_relative_python_path(page, paths, results, venv_python)
        check_restart(page, paths, results, NEWCOMER)
    check_output_clean(paths, results, NEWCOMER)
