"""Index one pathological note at a time and report the wall time and peak RSS of `memlsp index`.

Each case is written alone into a vault of its own, then indexed by a fresh
`python -m memlsp index VAULT --embedder none --cache-dir CACHE` subprocess. The peak RSS is the
`ru_maxrss` that `os.wait4()` returns for that child. A case that runs past `--timeout` is killed
and shown as such. The bars: every case <= 2 s and <= 300 MB; a 64 KB note <= 10 s at worst.

`python benchmarks/bench_bad_input.py [--only NAME,...] [--timeout 60]`
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from common import child_env

_SECONDS_BAR = 2.0
_RSS_BAR_MB = 300.0
_RUN = 64_000
# Runs of every character that means something to a Markdown, link, tag or math parser.
_SPECIAL = "#[]()!|^`~*_<>-=:$%"


def _yaml_bomb(key: str) -> str:
    lines = ["---", 'l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"l{i}: &l{i} [" + ",".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, 7)]
    return "\n".join([*lines, f"{key}: *l6", "---", "# Bomb", ""])


def _long_line(size: int) -> str:
    """Ordinary prose with a link and a tag now and then, all on one line."""
    words = []
    length = 0
    index = 0
    while length < size:
        word = f"[[note{index % 97}]]" if index % 50 == 0 else f"word{index % 1000}"
        if index % 77 == 0:
            word = f"#tag{index % 13}"
        words.append(word)
        length += len(word) + 1
        index += 1
    return " ".join(words) + "\n"


def _many_lines(size: int) -> str:
    """Short lines under headings every 40 lines: an ordinary note, only very long."""
    lines = []
    length = 0
    index = 0
    while length < size:
        if index % 40 == 0:
            line = f"## Section {index // 40}"
        else:
            line = f"line {index} with [[note{index % 97}]] and #tag{index % 13} words"
        lines.append(line)
        length += len(line) + 1
        index += 1
    return "\n".join(lines) + "\n"


def _run_of(text: str) -> Callable[[], str]:
    return lambda: f"word {text * _RUN} word\n"


def _chinese(size: int) -> str:
    """Chinese prose from a fixed list of words, in sentences: jieba's ordinary work."""
    words = [
        "向量",
        "检索",
        "混合",
        "搜索",
        "笔记",
        "知识",
        "管理",
        "系统",
        "模型",
        "语言",
        "中文",
        "分词",
    ]
    sentences = []
    length = 0
    index = 0
    while length * 3 < size:
        sentence = "".join(words[(index * 7 + k) % len(words)] for k in range(index % 9 + 3))
        sentences.append(sentence + "。")
        length += len(sentence) + 1
        index += 1
    return "".join(sentences) + "\n"


def _records(empty: int) -> str:
    """A long record, many records without a word, a short one and a long one (JSONL)."""

    def record(words: int) -> str:
        return '{"t": "' + " ".join(f"w{i}" for i in range(words)) + '"}\n'

    return record(499) + "{}\n" * empty + record(9) + record(509)


CASES: dict[str, Callable[[], str]] = {
    "yaml bomb under tags": lambda: _yaml_bomb("tags"),
    "yaml bomb under title": lambda: _yaml_bomb("title"),
    "heading with 64k spaces": lambda: "# a" + " " * _RUN + "b\n",
    "paragraph of 21k #tags": lambda: "x" + " #a" * 21333 + " !\n",
    "64k [": lambda: "[" * _RUN,
    "100k wikilinks on a line": lambda: " ".join(f"[[t{i}]]" for i in range(100_000)),
    "9.5 MB single line": lambda: _long_line(9_500_000),
    "9.5 MB heading line": lambda: "## " + _long_line(9_500_000),
    "9.9 MB of short lines": lambda: _many_lines(9_900_000),
    "1 MB of Chinese": lambda: _chinese(1_000_000),
    "9.9 MB of Chinese": lambda: _chinese(9_900_000),
    "jsonl of empty records": lambda: _records(100_000),
    **{f"64k {char!r}": _run_of(char) for char in _SPECIAL},
    "64k spaces": _run_of(" "),
    "64k tabs": _run_of("\t"),
    "64k newlines": _run_of("\n"),
    "64k CRs": _run_of("\r"),
    "64k CJK": _run_of("中"),
    "64k emoji": _run_of("\N{GRINNING FACE}"),
    "64k '[[' then ']]'": lambda: "[[" * 32_000 + "]]" * 32_000,
    "64k '[a](' runs": lambda: "[a](" * 16_000,
    "64k '# ' heading of #": lambda: "# " + "#" * _RUN + " x\n",
}
_FILE_NAMES = {"jsonl of empty records": "records.jsonl"}  # the rest are `note.md`


@dataclass(frozen=True, slots=True)
class Result:
    seconds: float
    rss_mb: float
    outcome: str  # "ok", "exit N" or "killed"


def write_case(name: str, path: Path) -> None:
    path.write_bytes(CASES[name]().encode())


def run_case(name: str, timeout: float) -> tuple[int, Result]:
    with tempfile.TemporaryDirectory(prefix="memlsp-bad-") as base:
        vault = Path(base) / "vault"
        vault.mkdir()
        note = vault / _FILE_NAMES.get(name, "note.md")
        # A child writes the note: a child's ru_maxrss starts at its parent's RSS when forked, so
        # this process never holds a big text.
        writer = [sys.executable, __file__, "--write", name, str(note)]
        subprocess.run(writer, check=True, env=child_env())
        size = note.stat().st_size
        command = [sys.executable, "-m", "memlsp", "index", str(vault)]
        command += ["--embedder", "none", "--cache-dir", str(Path(base) / "cache")]
        started = time.perf_counter()
        process = subprocess.Popen(
            command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=child_env(),
            start_new_session=True,
        )
        killed = False
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - started > timeout and not killed:
                os.killpg(process.pid, signal.SIGKILL)
                killed = True
            time.sleep(0.01)
        seconds = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        rss_mb = usage.ru_maxrss * 1024 / 1e6  # ru_maxrss is KiB on Linux
        if killed:
            outcome = "killed"
        else:
            outcome = "ok" if process.returncode == 0 else f"exit {process.returncode}"
        return size, Result(seconds, rss_mb, outcome)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated case names (default: all)")
    parser.add_argument("--timeout", type=float, default=60.0, help="kill a case after this")
    parser.add_argument("--write", nargs=2, metavar=("NAME", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.write:
        write_case(args.write[0], Path(args.write[1]))
        return
    names = list(CASES) if not args.only else [n.strip() for n in args.only.split(",")]
    print(f"bars: <= {_SECONDS_BAR:g} s and <= {_RSS_BAR_MB:g} MB peak RSS per case")
    print(f"{'case':<28} {'bytes':>10} {'seconds':>8} {'RSS MB':>7}  verdict")
    for name in names:
        size, result = run_case(name, args.timeout)
        within = result.seconds <= _SECONDS_BAR and result.rss_mb <= _RSS_BAR_MB
        verdict = result.outcome if result.outcome != "ok" else ("PASS" if within else "FAIL")
        print(f"{name:<28} {size:>10,} {result.seconds:>8.2f} {result.rss_mb:>7.0f}  {verdict}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
