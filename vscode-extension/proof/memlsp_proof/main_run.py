"""The main run: memlsp.pythonPath in User settings only, every check in order in one browser."""

from __future__ import annotations

from pathlib import Path

from .graph import check_graph
from .main_code_lens import check_code_lens
from .main_navigation import check_definition, check_hover, check_search, check_server
from .main_outline import (
    check_outline,
    check_quick_outline,
    check_references,
    check_workspace_symbols,
)
from .main_preview import check_completion, check_preview_wikilinks
from .main_related import MENTION_NOTES, check_insert_link, check_link_all, check_related_view
from .main_renames import check_explorer_rename, check_rename_symbol
from .main_settings import check_fusion_setting, check_restart, check_settings_ui
from .main_why import check_why_not_found
from .setup import (
    Paths,
    code_server,
    free_port,
    install_vsix,
    main_settings,
    prepare_vault,
    reset_code_server_data,
    write_user_settings,
)
from .workbench import Results, browser_page, check_output_clean, open_index, open_note


def run_checks(url: str, paths: Paths, results: Results) -> None:
    with browser_page(paths, results) as page:
        if not open_index(page, url, paths, results):
            return
        check_server(page, paths, results)
        check_settings_ui(page, paths, results)
        check_fusion_setting(page, paths, results)
        check_outline(page, paths, results)
        check_quick_outline(page, paths, results)
        check_references(page, paths, results)
        check_workspace_symbols(page, paths, results)
        open_note(page, "index.md")
        check_hover(page, paths, results)
        check_definition(page, paths, results)
        check_preview_wikilinks(page, paths, results)
        check_completion(page, paths, results)
        check_search(page, paths, results)
        page.keyboard.press("Escape")
        check_why_not_found(page, paths, results)
        check_restart(page, paths, results)
        # Last: the renames change the vault copy.
        check_code_lens(page, paths, results)
        check_explorer_rename(page, paths, results)
        check_rename_symbol(page, paths, results)
        check_related_view(page, paths, results)
        check_insert_link(page, paths, results)
        check_link_all(page, paths, results)
        check_graph(page, paths, results)
    check_output_clean(paths, results)


def run_main(paths: Paths, vsix: Path, python: str, port: int, results: Results) -> None:
    reset_code_server_data(paths)
    prepare_vault(paths, MENTION_NOTES)
    write_user_settings(paths, main_settings(paths, python))
    install_vsix(paths, vsix)
    with code_server(paths, port or free_port()) as url:
        run_checks(url, paths, results)
