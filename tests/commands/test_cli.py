"""The command line, run in-process and once as a real `python -m memlsp` subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memlsp.cli import main
from memlsp.engine.backfill import Backfill
from memlsp.engine.engine import Engine
from memlsp.settings.table import Settings
from tests.helpers.fake_embedder import FakeEmbedder
from tests.helpers.vault import write

pytestmark = pytest.mark.e2e  # every test here starts a process


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    # Keyword-only, through the vault's own settings file, which the CLI must read.
    write(root, ".memlsp.toml", 'embedder = "none"\n')
    write(
        root,
        "a.md",
        "---\ndescription: About apples\n---\n# Apples\n\nApples grow on trees. [[b]] [[missing]]\n",
    )
    write(root, "b.md", "# Bananas\n\nBananas are yellow.\n")
    write(root, "d.md", "Dates, like [[a#Apples]].\n")
    write(root, "x/dup.md", "# Dup one\n")
    write(root, "y/dup.md", "# Dup two\n")
    write(root, "c.md", "Cherries, see [[dup]].\n")
    write(root, "daily/2024-05-01.md", "Ate apples and cherries.\n")
    return root


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([str(arg) for arg in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_index_prints_a_summary(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "index", vault, "--cache-dir", tmp_path / "c")
    assert code == 0
    assert "7 notes" in out and "4 links (1 unresolved, 1 ambiguous)" in out and "7 added" in out
    code, out, _ = run(capsys, "index", vault, "--cache-dir", tmp_path / "c", "--json")
    data = json.loads(out)
    assert (data["notes"], data["added"], data["skipped"]) == (7, 0, [])


def test_index_beside_the_writing_process_says_who_writes_and_what_is_embedded(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A language server or `memlsp serve` holds the index: `memlsp index` cannot write it, and
    says so instead of calling the vector side unavailable."""
    cache = tmp_path / "c"
    writer = Engine.open(vault, Settings(cache_dir=cache), FakeEmbedder())
    try:
        writer.refresh()
        Backfill(writer).run()
        code, out, _ = run(capsys, "index", vault, "--cache-dir", cache)
    finally:
        writer.close()
    assert code == 0
    assert "read-only: another memlsp process" in out
    assert "unavailable" not in out


def test_search_text_form(vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "search", vault, "trees", "--cache-dir", tmp_path / "c")
    assert code == 0
    first = out.splitlines()[0]
    assert first.startswith("========== a.md:4-6 [score=1.0000 keyword=")
    assert first.endswith("vector=-] ==========")
    assert "outlinks (1):\n  - Bananas (b.md) — Bananas are yellow." in out
    assert "inlinks (1):\n  - d (d.md#Apples)" in out


def test_search_json_carries_evidence(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "search", vault, "apples", "--json", "--cache-dir", tmp_path / "c")
    assert code == 0
    data = json.loads(out)
    assert data["counts"] == {"keyword": 3, "vector": 0, "hybrid": False}
    first = data["results"][0]
    assert first["path"] == "a.md" and first["keyword_rank"] == 1 and first["source"] == "hit"
    assert first["matched_terms"] == ["appl"]
    # d.md links to a.md but is itself a result: a note is listed once in the whole answer
    assert "d.md" in [r["path"] for r in data["results"]] and not first["inlinks"]
    code, out, _ = run(capsys, "search", vault, "trees", "--json", "--cache-dir", tmp_path / "c")
    first = json.loads(out)["results"][0]
    assert first["inlinks"][0]["path"] == "d.md" and first["inlinks"][0]["anchors"] == ["Apples"]
    assert first["inlinks"][0]["source"] == "link"


def test_search_filters(vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ("search", vault, "apples", "--json", "--cache-dir", tmp_path / "c", "--no-expand")
    dated = json.loads(
        run(capsys, *args, "--start-date", "2024-05-01", "--end-date", "2024-05-01")[1]
    )
    assert [r["path"] for r in dated["results"]] == ["daily/2024-05-01.md"]
    assert all(not r["outlinks"] and not r["inlinks"] for r in dated["results"])
    one = json.loads(run(capsys, *args, "--limit", "1")[1])
    assert len(one["results"]) == 1
    budget = json.loads(run(capsys, *args, "--budget-tokens", "1")[1])
    assert len(budget["results"]) == 1


def test_bad_arguments_give_one_clear_message(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(
        capsys, "search", vault, "x", "--start-date", "May 1", "--cache-dir", tmp_path / "c"
    )
    assert code == 2 and "--start-date must be a date" in err
    code, _, err = run(capsys, "search", tmp_path / "nowhere", "x")
    assert code == 2 and "vault folder not found" in err
    code, _, err = run(capsys, "links", vault, "no such note", "--cache-dir", tmp_path / "c")
    assert code == 2 and "no note" in err


def test_batch_queries_answer_one_line_each(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    queries = tmp_path / "q.jsonl"
    queries.write_text(
        '{"id": "q1", "query": "bananas"}\n'
        "\n"
        '{"id": 2, "query": "cherries"}\n'
        "not json\n"
        '{"id": "q4"}\n'
    )
    code, out, _ = run(
        capsys, "search", vault, "--queries", queries, "--json", "--cache-dir", tmp_path / "c"
    )
    assert code == 0
    answers = [json.loads(line) for line in out.splitlines()]
    assert [a["id"] for a in answers] == ["q1", 2, 4, "q4"]
    assert answers[0]["results"][0]["path"] == "b.md"
    assert {r["path"] for r in answers[1]["results"]} == {"c.md", "daily/2024-05-01.md"}
    assert "error" in answers[2] and "error" in answers[3]


def test_modes_and_the_embedder_flag(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "c"
    code, out, _ = run(capsys, "index", vault, "--cache-dir", cache)
    assert code == 0 and "vectors: off (embedder = none)" in out  # from the vault's .memlsp.toml
    # --no-recall: each answer would show one recall more than the one before.
    args = ("search", vault, "apples", "--json", "--cache-dir", cache, "--no-expand", "--no-recall")
    off = json.loads(run(capsys, *args, "--mode", "vector")[1])
    assert off["results"] == [] and off["mode"] == "vector"
    assert off["warnings"] == ["semantic search is off (embedder = none)"]
    keyword = json.loads(run(capsys, *args, "--mode", "keyword")[1])
    assert keyword["results"][0]["path"] == "a.md" and keyword["warnings"] == []
    # The flag wins over the vault's settings file; an embedder that cannot start leaves keywords.
    code, out, _ = run(capsys, *args, "--embedder", "onnx")
    broken = json.loads(out)
    assert code == 0 and broken["results"] == keyword["results"]
    assert "embedder 'onnx' needs embedder_model_dir" in broken["warnings"][0]
    with pytest.raises(SystemExit) as exited:
        run(capsys, *args, "--mode", "fuzzy")
    assert exited.value.code == 2 and "invalid choice: 'fuzzy'" in capsys.readouterr().err
    queries = tmp_path / "q.jsonl"
    queries.write_text(
        '{"id": 1, "query": "apples", "mode": "vector"}\n{"id": 2, "query": "apples"}\n'
    )
    code, out, _ = run(
        capsys, "search", vault, "--queries", queries, "--json", "--cache-dir", cache
    )
    first, second = (json.loads(line) for line in out.splitlines())
    assert (first["mode"], first["results"]) == ("vector", [])
    assert second["mode"] == "hybrid" and second["results"]


def test_the_fusion_flag_and_a_queries_line_choose_the_rule(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "c"
    args = ("search", vault, "apples", "--json", "--cache-dir", cache, "--no-expand")
    default = json.loads(run(capsys, *args)[1])
    assert default["fusion"] == "evidence"
    code, out, _ = run(capsys, *args, "--fusion", "rrf")
    rrf = json.loads(out)
    assert code == 0 and rrf["fusion"] == "rrf"
    # One side ran (keywords): the same order, each score 61 / (60 + rank) times the strength.
    assert [r["path"] for r in rrf["results"]] == [r["path"] for r in default["results"]]
    assert [r["score"] for r in rrf["results"]] == [
        round(61 / (60 + r["keyword_rank"]) * rrf["strength"], 12) for r in rrf["results"]
    ]
    assert rrf["results"][1]["score"] != default["results"][1]["score"]
    with pytest.raises(SystemExit) as exited:
        run(capsys, *args, "--fusion", "borda")
    assert exited.value.code == 2 and "invalid choice: 'borda'" in capsys.readouterr().err
    queries = tmp_path / "q.jsonl"
    queries.write_text(
        '{"id": 1, "query": "apples", "fusion": "evidence"}\n{"id": 2, "query": "apples"}\n'
        '{"id": 3, "query": "apples", "fusion": "borda"}\n'
    )
    code, out, _ = run(
        capsys, "search", vault, "--queries", queries, "--json", "--cache-dir", cache,
        "--fusion", "rrf",
    )  # fmt: skip
    first, second, third = (json.loads(line) for line in out.splitlines())
    assert code == 0 and (first["fusion"], second["fusion"]) == ("evidence", "rrf")
    assert third["error"] == "line 3: --fusion must be one of evidence, rrf, not 'borda'"


def test_links_lists_every_kind(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "links", vault, "a", "--json", "--cache-dir", tmp_path / "c")
    assert code == 0
    data = json.loads(out)
    assert data["path"] == "a.md"
    assert [(o["target"], o["status"]) for o in data["outlinks"]] == [
        ("b", "resolved"),
        ("missing", "unresolved"),
    ]
    assert [i["source"] for i in data["inlinks"]] == ["d.md"]
    assert [u["target"] for u in data["unresolved"]] == ["missing"]
    code, out, _ = run(capsys, "links", vault, "c.md", "--cache-dir", tmp_path / "c")
    assert "ambiguous (1):" in out and "candidates: x/dup.md, y/dup.md" in out


def test_python_dash_m_runs_the_same_cli(vault: Path, tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "memlsp",
            "search",
            str(vault),
            "bananas",
            "--json",
            "--cache-dir",
            str(tmp_path / "c"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert json.loads(result.stdout)["results"][0]["path"] == "b.md"


def test_text_output_never_drives_the_terminal(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A note's text and name may hold ESC and BEL: search and links show them escaped."""
    write(vault, "ctl/esc\x1b[2Jname.md", "# Esc\n\nterminaltoken \x1b]0;title\x07 and [[a]]\n")
    code, out, _ = run(capsys, "search", vault, "terminaltoken", "--mode", "keyword")
    assert code == 0 and "\x1b" not in out and "\x07" not in out
    assert "ctl/esc\\x1b[2Jname.md" in out and "\\x1b]0;title\\x07" in out
    code, out, _ = run(capsys, "links", vault, "a")
    assert code == 0 and "\x1b" not in out and "ctl/esc\\x1b[2Jname.md" in out


def test_help_names_every_mode_and_version_prints(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "--stdio" in out and "--tcp" in out
    assert all(command in out for command in ("index", "search", "links", "serve"))
    with pytest.raises(SystemExit) as stopped:
        main(["--version"])
    assert stopped.value.code == 0 and capsys.readouterr().out.startswith("memlsp 0.")


def test_serve_wants_a_vault_and_an_idle_time_above_zero(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["serve", str(vault), "--idle", "0"])
    assert stopped.value.code == 2 and "must be more than 0, not 0" in capsys.readouterr().err
    code, _, err = run(capsys, "serve", tmp_path / "nowhere")
    assert code == 2 and "vault folder not found" in err


def test_the_summary_time_is_the_whole_command(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "index", vault, "--json")
    data = json.loads(out)
    assert code == 0 and data["embedding"] == {"chunks": 0, "seconds": 0.0}
    assert data["seconds"] >= data["index_seconds"] > 0


def test_progress_shows_rate_and_time_left() -> None:
    from memlsp.cli import progress_line

    assert progress_line("embedding", 0, 300, 0.0).rstrip().endswith("0/300")
    line = progress_line("embedding", 120, 300, 5.0)
    assert "120/300" in line and "24/s" in line and "8 s left" in line
    assert "left" not in progress_line("embedding", 300, 300, 12.0)
    assert "6 min 15 s left" in progress_line("indexing", 100, 10_000, 3.79)


def test_the_progress_line_fits_the_terminal_so_that_it_is_rewritten_in_place() -> None:
    """A line as wide as the terminal wraps, and then each update stacks a new line."""
    from memlsp.cli import progress_line

    for columns in (20, 40, 60, 80, 120):
        for done in (0, 1_200, 30_071):
            line = progress_line("embedding", done, 30_071, 5.0, columns)
            assert len(line) == columns - 1, (columns, line)
    assert "1200/30071, 240/s, 2 min 00 s left" in progress_line("embedding", 1200, 30071, 5.0, 80)
