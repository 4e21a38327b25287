"""The graph runs: the graph view in the main run's setup (graph), and its speed on a 10,000-note
synthetic vault (graph10k)."""

from __future__ import annotations

import re
import shutil
import time
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from playwright.sync_api import Frame, Page, Position

from .main_navigation import check_server
from .setup import (
    REPO_DIR,
    Paths,
    code_server,
    free_port,
    install_vsix,
    main_settings,
    prepare_vault,
    reset_code_server_data,
    run,
    write_user_settings,
)
from .workbench import (
    Results,
    active_tab_title,
    browser_page,
    check_output_clean,
    memlsp_log,
    memlsp_status_text,
    open_index,
    open_note,
    open_workbench,
    poll,
    run_command,
    screenshot,
    wait_active_tab,
    wait_ready,
)

# --- The graph view ----------------------------------------------------------------------------

GRAPH_NOTE = "search/bm25.md"
GRAPH_CLICK = "search/inverted-index.md"  # bm25.md links to it and it links back
# What the extension logs when the page has drawn a graph's first frame (src/graph/frames.ts).
GRAPH_FRAME = re.compile(
    r"graph of (?P<note>.+?) at depth (?P<depth>\d): (?P<nodes>\d+) nodes, (?P<edges>\d+) edges; "
    r"answered in (?P<answer>\d+) ms, first frame drawn (?P<draw>\d+) ms after the answer reached "
    r"the page \((?P<total>\d+) ms after the question\)"
)
GRAPH_SETTLED = re.compile(
    r"graph of (?P<note>.+?): layout settled after (?P<ticks>\d+) ticks, (?P<ms>\d+) ms; "
    r"slowest frame (?P<slowest>\d+) ms"
)


def graph_frames(paths: Paths) -> list[dict[str, str]]:
    """Each first frame drawn so far, as the memlsp output channel tells it."""
    return [found.groupdict() for found in GRAPH_FRAME.finditer(memlsp_log(paths))]


def graph_settled(paths: Paths) -> list[dict[str, str]]:
    return [found.groupdict() for found in GRAPH_SETTLED.finditer(memlsp_log(paths))]


def graph_webview(page: Page) -> Frame | None:
    """The graph view's page (an iframe in an iframe, as every webview)."""
    for frame in page.frames:
        with suppress(Exception):  # a frame may go away while it is asked
            if frame.evaluate("() => typeof window.memlspGraphNodes === 'function'"):
                return frame
    return None


GraphNode = dict[str, Any]


def graph_nodes(frame: Frame) -> list[GraphNode]:
    """The nodes drawn: id, look, x, y (CSS pixels from the canvas's corner), radius."""
    return cast("list[GraphNode]", frame.evaluate("() => window.memlspGraphNodes()"))


def graph_tooltip(frame: Frame) -> str:
    return str(
        frame.evaluate(
            """() => [...document.querySelectorAll('.float-tooltip-kap')]
                .filter((tip) => tip.style.display !== 'none')
                .map((tip) => tip.innerText).join('\\n')"""
        )
    )


def frame_after(
    paths: Paths, seen: int, note: str, depth: int | None = None
) -> dict[str, str] | None:
    """The first frame logged after the first `seen` ones, of a graph of `note` (at `depth`)."""
    for frame in graph_frames(paths)[seen:]:
        if frame["note"] == note and (depth is None or int(frame["depth"]) == depth):
            return frame
    return None


def check_graph(page: Page, paths: Paths, results: Results) -> bool:
    """memlsp: Show Graph on bm25.md: its graph is drawn beside the editor, the note in the middle;
    hovering a neighbour names it, a click opens it in the editor and the graph follows it."""
    seen = len(graph_frames(paths))
    open_note(page, GRAPH_NOTE.rsplit("/", 1)[-1])
    run_command(page, "memlsp: Show Graph")
    drawn = poll(lambda: frame_after(paths, seen, GRAPH_NOTE), timeout=60, interval=0.5)
    frame = cast("Frame | None", poll(lambda: graph_webview(page), timeout=30, interval=0.5))
    settled = frame is not None and poll(
        lambda: frame.evaluate("() => document.body.dataset.settled === 'true'"), 30, 0.5
    )
    time.sleep(0.8)  # the view's last fit is animated
    screenshot(page, paths, "23-graph")
    nodes = graph_nodes(frame) if frame is not None else []
    centre = [node["id"] for node in nodes if node["look"] == "centre"]
    target = next((node for node in nodes if node["id"] == GRAPH_CLICK), None) or next(
        (node for node in nodes if node["look"] == "note"), None
    )
    tip, opened, followed = "", False, None
    if frame is not None and target is not None:
        canvas = frame.locator("#graph canvas").first
        at: Position = {"x": float(target["x"]), "y": float(target["y"])}
        # force-graph finds the node under the pointer on its next frame: hover, then click.
        canvas.hover(position=at)
        tip = str(poll(lambda: graph_tooltip(frame), timeout=5, interval=0.25) or "")
        screenshot(page, paths, "23-graph-hover")
        seen = len(graph_frames(paths))
        canvas.click(position=at)
        opened = wait_active_tab(page, str(target["id"]).rsplit("/", 1)[-1], timeout=15)
        followed = poll(
            lambda: frame_after(paths, seen, str(target["id"])), timeout=30, interval=0.5
        )
        time.sleep(1)
        screenshot(page, paths, "23-graph-click")
        # The page takes the theme's colours: the same graph in the dark theme, then back.
        run_command(page, "Preferences: Toggle between Light/Dark Themes")
        time.sleep(2)
        screenshot(page, paths, "23-graph-dark")
        run_command(page, "Preferences: Toggle between Light/Dark Themes")
    ok = bool(drawn) and centre == [GRAPH_NOTE] and target is not None and opened and bool(followed)
    ok = ok and str(target["id"] if target else "") in tip
    detail = (
        f"{GRAPH_NOTE}: {drawn or 'no first frame logged'}; settled: {bool(settled)}; "
        f"{len(nodes)} nodes drawn, centre {centre}; hover on {target['id'] if target else None}: "
        f"{tip.splitlines()[:3]}; after the click the active tab is {active_tab_title(page)!r}, "
        f"the graph followed: {followed or 'no'}"
    )
    return results.record("graph", ok, detail)


def run_graph(paths: Paths, vsix: Path, python: str, port: int, results: Results) -> None:
    """The main run's setup with the graph check alone (quicker, while working on the view)."""
    reset_code_server_data(paths)
    prepare_vault(paths)
    write_user_settings(paths, main_settings(paths, python))
    install_vsix(paths, vsix)
    with code_server(paths, port or free_port()) as url, browser_page(paths, results) as page:
        if not open_index(page, url, paths, results):
            return
        check_server(page, paths, results)
        check_graph(page, paths, results)
    check_output_clean(paths, results)


# The speed check: the graph around the hub of a 10,000-note synthetic vault.
SPEED_NOTES = 10_000
SPEED_HUB = "Hub.md"  # linked from 5,000 notes
SPEED_DEPTH = 2
SPEED_DRAW_MS = 1000


def speed_paths(main: Paths) -> Paths:
    build = main.build / "graph10k"
    build.mkdir(parents=True, exist_ok=True)
    tools = build / "tools"
    if not tools.exists():
        tools.symlink_to(main.tools)
    return Paths(build, shots=main.screenshots)


def prepare_speed_vault(paths: Paths, python: str) -> None:
    """The synthetic vault, written once (the same files every time: it is deterministic)."""
    if (paths.vault / SPEED_HUB).exists():
        return
    if paths.vault.exists():
        shutil.rmtree(paths.vault)
    generator = REPO_DIR / "benchmarks" / "synthetic_vault.py"
    run([python, str(generator), str(paths.vault), "--notes", str(SPEED_NOTES), "--seed", "1"])


def run_graph10k(main: Paths, vsix: Path, python: str, port: int, results: Results) -> None:
    paths = speed_paths(main)
    prepare_speed_vault(paths, python)
    if paths.data.exists():
        shutil.rmtree(paths.data)  # a fresh profile; the index in build/graph10k/cache is kept
    settings = {
        "memlsp.pythonPath": python,
        "memlsp.cache_dir": str(paths.build / "cache"),
        "memlsp.embedder": "none",  # the drawing is measured: no 10,000 notes to embed first
        "memlsp.code_lens": False,
    }
    write_user_settings(paths, settings)
    install_vsix(paths, vsix)
    with code_server(paths, port or free_port()) as url, browser_page(paths, results) as page:
        open_workbench(page, url, paths)
        if not results.record("graph10k-open", open_note(page, SPEED_HUB), active_tab_title(page)):
            return
        ready = wait_ready(page, timeout=600)
        results.record(
            "graph10k-server", bool(ready), f"status {ready or memlsp_status_text(page)}"
        )
        check_graph10k(page, paths, results)


def check_graph10k(page: Page, paths: Paths, results: Results) -> bool:
    seen = len(graph_frames(paths))
    run_command(page, "memlsp: Show Graph")
    first = poll(lambda: frame_after(paths, seen, SPEED_HUB), timeout=120, interval=0.5)
    frame = cast("Frame | None", poll(lambda: graph_webview(page), timeout=30, interval=0.5))
    deeper = None
    if frame is not None and first is not None:
        seen = len(graph_frames(paths))
        frame.select_option("#depth", str(SPEED_DEPTH))
        deeper = poll(
            lambda: frame_after(paths, seen, SPEED_HUB, SPEED_DEPTH), timeout=120, interval=0.5
        )
    if deeper is not None:
        poll(lambda: len(graph_settled(paths)) >= 2, timeout=30, interval=0.5)
    time.sleep(1)
    screenshot(page, paths, "24-graph10k")
    settled = graph_settled(paths)[-1:] if deeper else []
    ok = deeper is not None and int(deeper["draw"]) <= SPEED_DRAW_MS
    if deeper is None:
        detail = f"no graph at depth {SPEED_DEPTH} of {SPEED_HUB} drawn; first: {first}"
    else:
        detail = (
            f"{SPEED_HUB} at depth {SPEED_DEPTH}: {deeper['nodes']} nodes, {deeper['edges']} edges; "
            f"server answered in {deeper['answer']} ms; first frame drawn {deeper['draw']} ms after "
            f"the answer reached the page (limit {SPEED_DRAW_MS} ms), {deeper['total']} ms after the "
            f"question; layout: {settled[0] if settled else 'not settled'}"
        )
    return results.record("graph10k", ok, detail)
