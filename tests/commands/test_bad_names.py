"""Bad names, symlink loops and other encodings through the real CLI: each bad file is one line.

A name that is not valid UTF-8 cannot be stored in tantivy or sent in a URI faithfully, so it is
skipped with one line; a symlink loop is one line; control characters in names are escaped so a
problem stays on one line and nothing reaches the terminal; UTF-16 and UTF-32 notes with a byte
order mark are read as text.
"""

from __future__ import annotations

import codecs
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memlsp.model import printable, quoted
from memlsp.settings.table import Settings
from memlsp.sync.scan import FileStat, read_text, scan_vault, stat_path
from tests.helpers.engine import open_engine, paths_found
from tests.helpers.vault import write

NOT_UTF8 = os.fsdecode(b"caf\xe9.md")  # 'caf\udce9.md'
NOT_UTF8_FOLDER = os.fsdecode(b"d\xffr")
NEWLINE = "ctl/new\nline.md"
ESCAPES = "ctl/esc\x1b[2J\x07bell.md"
BAD_YAML = "---\ntitle: [unclosed\n---\n# Odd name\n\nstrangelynamed words\n"


def _make_vault(root: Path) -> Path:
    vault = root / "vault"
    write(vault, "ok.md", "# Ok\n\nfinetoken [[sixteen-le]]\n")
    write(vault, NOT_UTF8, "# Cafe\n\nlatinnametoken\n")
    write(vault, f"{NOT_UTF8_FOLDER}/inside.md", "# Inside\n\nbadfoldertoken\n")
    os.symlink("b.md", vault / "a.md")  # a.md -> b.md -> a.md
    os.symlink("a.md", vault / "b.md")
    os.symlink("self.md", vault / "self.md")
    write(vault, NEWLINE, BAD_YAML)
    write(vault, ESCAPES, BAD_YAML)
    (vault / "sixteen-le.md").write_bytes(
        codecs.BOM_UTF16_LE + "# Sixteen LE\n\nlittleendianword\n".encode("utf-16-le")
    )
    (vault / "sixteen-be.md").write_bytes(
        codecs.BOM_UTF16_BE + "# Sixteen BE\n\nbigendianword 中文\n".encode("utf-16-be")
    )
    return vault


def _memlsp(*args: str | Path) -> subprocess.CompletedProcess[bytes]:
    """The real CLI; bytes, because its output must be checked for raw control characters."""
    return subprocess.run(
        [sys.executable, "-m", "memlsp", *map(str, args), "--embedder", "none"],
        capture_output=True,
        timeout=120,
        check=False,
    )


@pytest.fixture(scope="module")
def vault_and_cache(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("bad-names")
    return _make_vault(root), root / "cache"


def _summary_lines(out: bytes) -> list[str]:
    return out.decode("utf-8").splitlines()


@pytest.mark.e2e  # the CLI
def test_index_reports_each_bad_file_on_one_line(vault_and_cache: tuple[Path, Path]) -> None:
    vault, cache = vault_and_cache
    result = _memlsp("index", vault, "--cache-dir", cache)
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    lines = _summary_lines(result.stdout)
    assert "5 notes" in lines[0]  # ok, two odd names, two UTF-16 notes
    entries = [line.strip() for line in lines if line.startswith("  ")]
    expected = {
        "caf\\xe9.md": "name is not valid UTF-8",
        "d\\xffr": "name is not valid UTF-8",
        "a.md": "symlink loop",
        "b.md": "symlink loop",
        "self.md": "symlink loop",
        "ctl/new\\nline.md": "invalid YAML",
        "ctl/esc\\x1b[2J\\x07bell.md": "invalid YAML",
    }
    assert len(entries) == len(expected)
    for path, reason in expected.items():
        [line] = [e for e in entries if e.startswith(path + ": ")]
        assert reason in line
    for control in (b"\x1b", b"\x07", b"\r"):
        assert control not in result.stdout


def _found(vault: Path, cache: Path, word: str) -> list[str]:
    result = _memlsp("search", vault, word, "--cache-dir", cache, "--mode", "keyword", "--json")
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    return [hit["path"] for hit in json.loads(result.stdout)["results"]]


@pytest.mark.e2e  # the CLI
def test_the_rest_is_found_by_the_cli(vault_and_cache: tuple[Path, Path]) -> None:
    vault, cache = vault_and_cache
    assert _found(vault, cache, "finetoken") == ["ok.md"]
    assert _found(vault, cache, "littleendianword") == ["sixteen-le.md"]
    assert _found(vault, cache, "bigendianword") == ["sixteen-be.md"]
    assert _found(vault, cache, "中文") == ["sixteen-be.md"]
    assert sorted(_found(vault, cache, "strangelynamed")) == sorted([ESCAPES, NEWLINE])
    assert _found(vault, cache, "latinnametoken") == []
    assert _found(vault, cache, "badfoldertoken") == []
    result = _memlsp("links", vault, "ok", "--cache-dir", cache, "--json")
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    [link] = json.loads(result.stdout)["outlinks"]
    assert link["targets"] == ["sixteen-le.md"]


@pytest.mark.e2e  # the CLI
def test_json_summary_keeps_raw_names_escaped(vault_and_cache: tuple[Path, Path]) -> None:
    vault, cache = vault_and_cache
    result = _memlsp("index", vault, "--cache-dir", cache, "--json")
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    text = result.stdout.decode("utf-8")  # valid UTF-8 even with an undecodable name
    assert "\x1b" not in text and "\x07" not in text
    data = json.loads(text)
    paths = {item["path"] for item in data["skipped"] + data["problems"]}
    assert {NOT_UTF8, NOT_UTF8_FOLDER, NEWLINE, ESCAPES, "a.md", "b.md", "self.md"} == paths


def test_engine_skips_bad_names_and_loops(tmp_path: Path) -> None:
    vault = _make_vault(tmp_path)
    engine = open_engine(vault, tmp_path / "cache")
    try:
        summary = engine.refresh()
        assert summary.notes == 5
        assert paths_found(engine, "finetoken") == ["ok.md"]
        # Paths reported by an editor or the watcher go through the same rule.
        engine.refresh_paths([NOT_UTF8, "a.md", "self.md", f"{NOT_UTF8_FOLDER}/inside.md"])
        assert paths_found(engine, "latinnametoken") == []
        assert engine.read().view.read(NOT_UTF8) is None and engine.read().view.read("a.md") is None
    finally:
        engine.close()


def test_stat_path_accepts_only_indexable_files_inside_the_vault(tmp_path: Path) -> None:
    vault = _make_vault(tmp_path)
    write(tmp_path, "outside.md", "# Outside\n")
    os.symlink(tmp_path / "outside.md", vault / "leak.md")
    os.symlink("ok.md", vault / "alias.md")
    write(vault, "picture.png", "not a note")
    (vault / "folder.md").mkdir()
    settings = Settings()
    stat = stat_path(vault, "alias.md", settings)
    assert stat is not None and stat.path == "alias.md"
    assert stat_path(vault, "ok.md", settings) is not None
    for path in (
        NOT_UTF8,
        "a.md",
        "self.md",
        "leak.md",
        "picture.png",
        "folder.md",
        "missing.md",
        "nul\0byte.md",
        "../outside.md",
    ):
        assert stat_path(vault, path, settings) is None, path


def test_scan_reports_each_bad_entry_once(tmp_path: Path) -> None:
    vault = _make_vault(tmp_path)
    scan = scan_vault(vault, Settings())
    reasons = {item.path: item.reason for item in scan.skipped}
    assert set(reasons) == {NOT_UTF8, NOT_UTF8_FOLDER, "a.md", "b.md", "self.md"}
    assert reasons[NOT_UTF8] == reasons[NOT_UTF8_FOLDER]
    assert "rename it" in reasons[NOT_UTF8]
    assert NOT_UTF8 not in scan.indexable and NOT_UTF8_FOLDER + "/inside.md" not in scan.indexable


@pytest.mark.parametrize(
    ("bom", "codec"),
    [
        (codecs.BOM_UTF16_LE, "utf-16-le"),
        (codecs.BOM_UTF16_BE, "utf-16-be"),
        (codecs.BOM_UTF32_LE, "utf-32-le"),
        (codecs.BOM_UTF32_BE, "utf-32-be"),
        (codecs.BOM_UTF8, "utf-8"),
    ],
)
def test_a_byte_order_mark_chooses_the_encoding(tmp_path: Path, bom: bytes, codec: str) -> None:
    text = "# Título\n\nwords 中文 ✓\n"
    (tmp_path / "n.md").write_bytes(bom + text.encode(codec))
    content = read_text(tmp_path, FileStat("n.md", 0, len(bom) + 100), Settings())
    assert (content.text, content.problem) == (text, None)


def test_broken_utf16_is_decoded_with_replacement_and_nul_text_is_binary(tmp_path: Path) -> None:
    settings = Settings()
    broken = codecs.BOM_UTF16_LE + "# Ok\n".encode("utf-16-le") + b"\x00\xd8" + b"x"
    (tmp_path / "broken.md").write_bytes(broken)
    content = read_text(tmp_path, FileStat("broken.md", 0, len(broken)), settings)
    assert content.text is not None and content.text.startswith("# Ok\n")
    assert content.problem is not None and "UTF-16" in content.problem
    nuls = codecs.BOM_UTF16_LE + "a\0b".encode("utf-16-le")
    (tmp_path / "nuls.md").write_bytes(nuls)
    content = read_text(tmp_path, FileStat("nuls.md", 0, len(nuls)), settings)
    assert content.text is None and content.problem is not None and "binary" in content.problem
    (tmp_path / "raw.md").write_bytes("a\0b".encode("utf-16-le"))  # no BOM: binary as before
    assert read_text(tmp_path, FileStat("raw.md", 0, 6), settings).text is None


def test_printable_escapes_what_would_break_a_line_or_drive_a_terminal() -> None:
    assert printable("plain/名前 é.md") == "plain/名前 é.md"
    assert printable("a\nb\rc\td") == "a\\nb\\rc\\td"
    assert printable("e\x1b[2J\x07\x7f\x9b") == "e\\x1b[2J\\x07\\x7f\\x9b"
    assert printable(NOT_UTF8) == "caf\\xe9.md"
    assert printable("lone \ud800 \u2028 \u202eevil") == "lone \\ud800 \\u2028 \\u202eevil"


def test_quoted_keeps_a_sentence_short_whatever_it_quotes() -> None:
    assert quoted("notes/a.md") == "'notes/a.md'"
    assert quoted("a\nb\x00") == "'a\\nb\\x00'"
    assert quoted("y" * 200_000) == repr("y" * 100) + "… (200,000 characters)"
    assert quoted(["y" * 200]) == repr(["y" * 200])[:100] + "…"
    assert quoted(None) == "None"
