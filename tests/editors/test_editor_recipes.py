"""The editor recipes of docs/editors.md, run as written in the real clients, on real vault layouts.

Each snippet is read from docs/editors.md (the fenced block under its bold editor heading), so a broken
or missing recipe fails here. Only the command that starts memlsp is swapped for this Python's
`-m memlsp`; the rest runs verbatim: the Neovim recipe as `init.lua` of a headless Neovim 0.11, the
Emacs ones in `emacs --batch` with eglot. Helix does not run here: its TOML is checked against
Helix's documented schema. The vaults are copies of fixtures/vault: one with only `.obsidian/` (a
real Obsidian vault) and one with no marker at all.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pytest

from tests.helpers.editors import (
    EDITORS_PAGE,
    find_nvim,
    headless_neovim,
    isolated_env,
    recipe_snippet,
    run_bounded,
)
from tests.helpers.paths import REPO
from tests.helpers.vault import FIXTURE_VAULT

EDITORS = REPO / "tests" / "editors"
TIMEOUT_SECONDS = 120
EMACS_HINT = "apt-get install emacs-nox elpa-eglot elpa-markdown-mode"

# A note in a subfolder linking to a note in another folder, and one linking within its folder.
CROSS_NOTE, CROSS_LINK, CROSS_TARGET = (
    "daily/2024-03-15.md",
    "[[hybrid-search]]",
    "search/hybrid-search.md",
)

pytestmark = pytest.mark.e2e  # every test here starts a process
LOCAL_NOTE, LOCAL_LINK, LOCAL_TARGET = "search/hybrid-search.md", "[[bm25]]", "search/bm25.md"


# -- the recipes' snippets -------------------------------------------------------------------------


def with_command(snippet: str, pattern: str, replacement: str) -> str:
    """The snippet with its one memlsp command line replaced (the recipes name `memlsp` on PATH)."""
    changed, count = re.subn(pattern, replacement, snippet, flags=re.MULTILINE)
    assert count == 1, f"the recipe should start memlsp once with {pattern!r}:\n{snippet}"
    return changed


def lua_string(text: str) -> str:
    return json.dumps(text)  # a JSON string of a path is a valid Lua string


def neovim_init() -> str:
    command = ", ".join(lua_string(part) for part in (sys.executable, "-m", "memlsp", "--stdio"))
    snippet = recipe_snippet("Neovim 0.11", "lua")
    started = with_command(
        snippet, r'^(\s*)cmd = \{ "memlsp", "--stdio" \},$', rf"\1cmd = {{ {command} }},"
    )
    return started + recipe_snippet("Neovim: why isn't a note found", "lua")


def emacs_recipe(heading: str) -> str:
    command = " ".join(json.dumps(part) for part in (sys.executable, "-m", "memlsp", "--stdio"))
    snippet = recipe_snippet(heading, "elisp")
    return with_command(snippet, r'\("memlsp" "--stdio"\)', f"({command})".replace("\\", "\\\\"))


# -- vaults and processes --------------------------------------------------------------------------


@pytest.fixture
def obsidian_vault(tmp_path: Path) -> Path:
    vault = tmp_path / "obsidian-vault"
    shutil.copytree(FIXTURE_VAULT, vault)
    (vault / ".obsidian").mkdir()
    (vault / ".obsidian" / "app.json").write_text("{}\n", encoding="utf-8")
    return vault


@pytest.fixture
def bare_vault(tmp_path: Path) -> Path:
    vault = tmp_path / "bare-vault"
    shutil.copytree(FIXTURE_VAULT, vault)
    return vault


@pytest.fixture
def elsewhere(tmp_path: Path) -> Path:
    folder = tmp_path / "elsewhere"  # a working folder that holds no note
    folder.mkdir()
    return folder


def client_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """Config, cache and state of the editor and of memlsp all in tmp; memlsp without embeddings
    (definitions and the vault root do not need them, and the model would cost seconds)."""
    env = isolated_env(tmp_path / "xdg")
    memlsp_config = tmp_path / "xdg" / "xdg_config_home" / "memlsp" / "config.toml"
    memlsp_config.parent.mkdir(parents=True, exist_ok=True)
    memlsp_config.write_text('embedder = "none"\n', encoding="utf-8")
    env.update(extra)
    return env


def run_client(args: Sequence[str], cwd: Path, env: dict[str, str]) -> dict[str, Any]:
    """Run a client driver; its one JSON line, with the whole output kept for messages."""
    process = run_bounded(args, cwd, env, TIMEOUT_SECONDS)
    output = (
        f"exit {process.returncode}\nstdout:\n{process.stdout}\nstderr:\n{process.stderr[-4000:]}"
    )
    reports = [line for line in process.stdout.splitlines() if line.startswith("{")]
    assert reports, output
    report: dict[str, Any] = json.loads(reports[-1])
    report["output"] = output
    return report


def path_of(uri: str) -> Path:
    return Path(unquote(urlparse(uri).path)).resolve()


def assert_served(report: dict[str, Any], vault_root: Path, target: Path) -> None:
    """The server opened exactly `vault_root` and the definition landed on `target`."""
    output = report["output"]
    assert report.get("error") is None, output
    roots = [path_of(vault["root"]) for vault in report["status"]["vaults"]]
    assert roots == [vault_root.resolve()], output
    assert [Path(hit["path"]).resolve() for hit in report["definition"]] == [target.resolve()], (
        output
    )


# -- Neovim 0.11 -----------------------------------------------------------------------------------


def run_neovim(
    tmp_path: Path, note: Path, link: str, cwd: Path, *query: str, **env: str
) -> dict[str, Any]:
    nvim = find_nvim()
    init = tmp_path / "xdg" / "xdg_config_home" / "nvim" / "init.lua"
    init.parent.mkdir(parents=True, exist_ok=True)
    init.write_text(neovim_init(), encoding="utf-8")
    driver = EDITORS / "nvim_recipe.lua"
    args = headless_neovim(nvim, driver, note, link, *query, init=init)
    return run_client(args, cwd, client_env(tmp_path, **env))


def test_neovim_recipe_obsidian_vault(
    tmp_path: Path, obsidian_vault: Path, elsewhere: Path
) -> None:
    report = run_neovim(tmp_path, obsidian_vault / CROSS_NOTE, CROSS_LINK, cwd=elsewhere)
    assert report["attached"], report["output"]
    assert Path(report["root_dir"]).resolve() == obsidian_vault.resolve(), report["output"]
    assert_served(report, obsidian_vault, obsidian_vault / CROSS_TARGET)


def test_neovim_recipe_says_why_a_note_is_not_found(
    tmp_path: Path, obsidian_vault: Path, elsewhere: Path
) -> None:
    """`:MemlspWhy QUERY` of the docs, on the note in the buffer: one line, its path and why."""
    query = "visiting shrines of former imperial capitals"
    report = run_neovim(tmp_path, obsidian_vault / CROSS_NOTE, CROSS_LINK, elsewhere, query)
    assert report["attached"] and report.get("error") is None, report["output"]
    (line,) = report["why"]
    assert line.startswith(f"{CROSS_NOTE}: “{CROSS_NOTE}”"), report["output"]
    assert "limit" in line or "none of the query's words" in line, line


def test_neovim_recipe_unmarked_vault_from_its_folder(tmp_path: Path, bare_vault: Path) -> None:
    """No marker: Neovim started in the vault's folder makes that folder the vault."""
    report = run_neovim(tmp_path, bare_vault / CROSS_NOTE, CROSS_LINK, cwd=bare_vault)
    assert report["attached"], report["output"]
    assert Path(report["root_dir"]).resolve() == bare_vault.resolve(), report["output"]
    assert_served(report, bare_vault, bare_vault / CROSS_TARGET)


def test_neovim_recipe_unmarked_vault_from_elsewhere(
    tmp_path: Path, bare_vault: Path, elsewhere: Path
) -> None:
    """No marker and started outside the vault: the note's own folder still gets a server."""
    folder = (bare_vault / LOCAL_NOTE).parent
    report = run_neovim(tmp_path, bare_vault / LOCAL_NOTE, LOCAL_LINK, cwd=elsewhere)
    assert report["attached"], report["output"]
    assert Path(report["root_dir"]).resolve() == folder.resolve(), report["output"]
    assert_served(report, folder, bare_vault / LOCAL_TARGET)


def test_neovim_recipe_never_takes_the_home_folder(tmp_path: Path, bare_vault: Path) -> None:
    """Started in the home folder (here the vault plays it), the note's folder is taken, not home."""
    folder = (bare_vault / LOCAL_NOTE).parent
    report = run_neovim(
        tmp_path, bare_vault / LOCAL_NOTE, LOCAL_LINK, cwd=bare_vault, HOME=str(bare_vault)
    )
    assert report["attached"], report["output"]
    assert Path(report["root_dir"]).resolve() == folder.resolve(), report["output"]
    assert_served(report, folder, bare_vault / LOCAL_TARGET)


# -- Emacs with eglot ------------------------------------------------------------------------------


def emacs_version() -> int:
    """The installed Emacs's major version; skips when Emacs, eglot or markdown-mode is missing."""
    emacs = shutil.which("emacs")
    if emacs is None:
        pytest.skip(f"no emacs on PATH: {EMACS_HINT}")
    probe = (
        '(princ (format "%d %s %s" emacs-major-version'
        ' (if (locate-library "eglot") "eglot" "-") (if (locate-library "markdown-mode") "markdown" "-")))'
    )
    out = subprocess.run(
        [emacs, "--batch", "-q", "--eval", probe],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    ).stdout.split()
    if len(out) != 3:
        pytest.skip(f"emacs --batch did not answer its version: {EMACS_HINT}")
    if out[1] != "eglot" or out[2] != "markdown":
        pytest.skip(f"emacs has no eglot or no markdown-mode: {EMACS_HINT}")
    return int(out[0])


def run_emacs(tmp_path: Path, heading: str, note: Path, link: str, cwd: Path) -> dict[str, Any]:
    if emacs_version() < 28:
        pytest.skip("the Emacs recipes need Emacs 28 or later (project-root)")
    recipe = tmp_path / "recipe.el"
    recipe.write_text(emacs_recipe(heading), encoding="utf-8")
    home = tmp_path / "home"  # ~/.emacs.d stays in tmp
    home.mkdir(exist_ok=True)
    driver = EDITORS / "eglot_recipe.el"
    # An interactive Emacs activates installed packages (their autoloads) before init.el; batch
    # mode does not, so that step comes first, then the recipe as init.el would load it.
    args = ["emacs", "--batch", "-q", "--eval", "(package-activate-all)", "-l", str(recipe)]
    args += ["-l", str(driver), str(note), link]
    return run_client(args, cwd, client_env(tmp_path, HOME=str(home)))


def test_emacs28_recipe_obsidian_vault(
    tmp_path: Path, obsidian_vault: Path, elsewhere: Path
) -> None:
    report = run_emacs(tmp_path, "Emacs 28", obsidian_vault / CROSS_NOTE, CROSS_LINK, cwd=elsewhere)
    assert report["attached"], report["output"]
    assert Path(report["project_root"]).resolve() == obsidian_vault.resolve(), report["output"]
    assert_served(report, obsidian_vault, obsidian_vault / CROSS_TARGET)
    # eglot 1.9 (Debian 12's) announces text edits only: renaming a note, a file, is refused with
    # the reason; an eglot that announces file renames gets the edit
    rename = report["rename"]
    assert rename == "an edit" or "cannot rename files" in rename, report["output"]


def test_emacs29_recipe_obsidian_vault(
    tmp_path: Path, obsidian_vault: Path, elsewhere: Path
) -> None:
    """On Emacs 29 the project is the vault; on Emacs 28 (no extra root markers) eglot's project is
    the note's folder, and the server still opens the vault above it."""
    version = emacs_version()
    report = run_emacs(tmp_path, "Emacs 29", obsidian_vault / CROSS_NOTE, CROSS_LINK, cwd=elsewhere)
    assert report["attached"], report["output"]
    if version >= 29:
        assert Path(report["project_root"]).resolve() == obsidian_vault.resolve(), report["output"]
    assert_served(report, obsidian_vault, obsidian_vault / CROSS_TARGET)


@pytest.mark.parametrize("heading", ["Emacs 28", "Emacs 29"])
def test_emacs_recipe_unmarked_vault(tmp_path: Path, bare_vault: Path, heading: str) -> None:
    """No marker: as docs/editors.md says, eglot serves the note's own folder (and links there work)."""
    folder = (bare_vault / LOCAL_NOTE).parent
    report = run_emacs(tmp_path, heading, bare_vault / LOCAL_NOTE, LOCAL_LINK, cwd=bare_vault)
    assert report["attached"], report["output"]
    assert Path(report["project_root"]).resolve() == folder.resolve(), report["output"]
    assert_served(report, folder, bare_vault / LOCAL_TARGET)


# -- Helix (does not run here) ---------------------------------------------------------------------


def test_helix_recipe_matches_helix_schema() -> None:
    """Helix's languages.toml: `[language-server.<name>]` with command/args, and a `[[language]]`
    entry merged with the built-in markdown one by name. Helix replaces arrays when merging, so
    `language-servers` and `roots` replace the built-in lists (marksman, `.marksman.toml`)."""
    config = tomllib.loads(recipe_snippet("Helix", "toml"))
    assert config["language-server"]["memlsp"] == {"command": "memlsp", "args": ["--stdio"]}
    (markdown,) = config["language"]
    assert markdown["name"] == "markdown"
    assert markdown["language-servers"][0] == "memlsp"
    # the LSP root: Helix takes the topmost folder holding one of `roots` between the note and the
    # workspace (the VCS root or the working folder), so a vault inside a git repository is found
    assert {".obsidian", ".memlsp.toml"} <= set(markdown["roots"])
    assert set(markdown) <= {"name", "roots", "language-servers"}
    helix_text = (
        EDITORS_PAGE.read_text(encoding="utf-8").split("**Helix**", 1)[1].split("\n**", 1)[0]
    )
    assert "marksman" in helix_text, "say that the list replaces Helix's default Markdown servers"
