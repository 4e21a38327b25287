"""A deterministic synthetic Obsidian-style vault for benchmarks.

    python benchmarks/synthetic_vault.py OUT_DIR --notes 10000 [--seed 1]

Writes ``notes`` Markdown notes of about 300 words each into a few nested folders: YAML frontmatter
(some with ``aliases``, ``tags``, ``date``), one to three headings, about five ``[[wikilinks]]`` per
note (some with ``#Heading`` anchors or ``|labels``, a few broken on purpose), inline ``#tags``, and
about 10% of the notes partly or wholly Chinese. One note, ``Hub.md``, is linked from
``min(5000, notes - 1)`` other notes.

Words come from a fixed vocabulary (the same for every seed) drawn with Zipf-like frequencies, so a
BM25 index sees a realistic term distribution. The same ``notes`` and ``seed`` always give the same
files, byte for byte. Only the standard library is used.
"""

from __future__ import annotations

import argparse
import itertools
import random
from bisect import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

HUB_TITLE = "Hub"
HUB_INLINKS = 5000
WORDS_PER_NOTE = 300
CHINESE_SHARE = 0.10  # half wholly Chinese, half mixed
BROKEN_LINK_SHARE = 0.03
VOCABULARY_SEED = 20240601  # fixed: the vocabulary must not depend on the vault seed


def _words(text: str) -> tuple[str, ...]:
    """The whitespace-separated words of ``text``, first occurrence order, no repeats."""
    return tuple(dict.fromkeys(text.split()))


STOP_WORDS: tuple[str, ...] = _words(
    """the of and to a in is that for it as with was on be by this are from or at an which not but
    have has can will more one all also their they its we been were these other into than may such
    about there when only some most how what between each both over then so our would through
    because used no any many new first very two where while should must could after before under
    often same well those however"""
)

_REAL_WORDS = """
    data system model method research knowledge note learning memory search index vector query
    graph link network language network text document page chapter section paragraph sentence
    word term token phrase meaning concept idea theory practice process result analysis evidence
    experiment study review paper article book author reader writer editor library archive
    project task goal plan schedule deadline meeting team member role decision problem solution
    question answer example case pattern structure function feature interface component module
    service server client request response protocol message event signal state change update
    version release history record journal diary habit routine focus attention energy time
    morning evening week month year season summer winter spring autumn garden plant tree flower
    river mountain ocean forest city village street house room kitchen window door table chair
    coffee tea bread water fire light shadow color sound music song rhythm voice story myth
    culture society economy market price value cost budget income growth risk trust power
    policy law rule principle ethics value virtue habit mind brain body health sleep diet
    exercise running walking reading writing thinking speaking listening teaching training
    practice skill craft design art drawing painting photo camera film movie scene character
    plot dialogue rhythm poem poetry novel essay letter email chat call conversation friend
    family parent child student teacher school university course lecture lesson exam grade
    science physics chemistry biology medicine disease cell gene protein enzyme brain neuron
    signal pathway receptor treatment therapy patient clinical trial dose effect response
    outcome mortality risk factor cohort population sample survey measure metric score rank
    accuracy precision recall error loss gradient weight layer neural transformer attention
    embedding encoder decoder training inference benchmark baseline dataset corpus label
    annotation feature classifier regression cluster distance similarity retrieval ranking
    relevance fusion hybrid keyword semantic sparse dense cosine matrix tensor algebra
    calculus geometry probability statistics variance mean median distribution sampling
    estimate bias noise filter kernel window buffer cache store database table column row
    schema field type class object instance method function argument parameter variable
    constant loop branch condition exception bug fix patch test suite coverage build deploy
    pipeline workflow script command terminal shell editor plugin extension theme template
    folder file path name title tag alias heading block reference embed backlink outline
    summary abstract conclusion introduction background context motivation contribution
    limitation future direction insight lesson mistake failure success progress milestone
    quality speed latency throughput memory storage disk network bandwidth thread process
    lock queue worker scheduler timer clock calendar reminder notification inbox archive
    draft sketch outline plan strategy tactic framework model map territory compass journey
    path road bridge tower castle kingdom empire history war peace treaty revolution reform
    movement idea belief doubt question curiosity wonder joy grief anger fear hope courage
    patience kindness honesty humility gratitude purpose meaning identity self other world
    nature universe star planet moon sun orbit gravity energy matter atom particle wave field
    quantum relativity entropy information signal channel code cipher key secret password
    account profile user owner admin group permission access policy audit security privacy
    open source license community forum wiki blog post comment thread reply vote like share
    simple complex clear vague strong weak fast slow early late deep shallow broad narrow
    local global public private formal informal explicit implicit direct indirect active
    passive static dynamic linear nonlinear discrete continuous stable unstable robust fragile
    useful useless important minor major central peripheral common rare frequent occasional
    daily weekly monthly annual personal professional social technical practical theoretical
    build create write read edit delete move copy rename link connect organize collect
    capture review reflect summarize compare contrast explain describe define argue prove
    test measure observe predict estimate compute optimize improve reduce increase balance
    support oppose suggest propose consider remember forget learn teach understand explore
    discover invent imagine wonder decide choose prefer avoid accept reject begin finish
    continue pause return repeat iterate refine simplify generalize specialize abstract
    concrete visual verbal spatial temporal causal logical emotional rational intuitive
    """

_PREFIXES = ("", "", "", "re", "pre", "con", "de", "in", "trans", "sub", "inter", "micro",
             "multi", "over", "counter", "proto", "neo", "para", "meta", "auto", "bio", "geo",
             "hydro", "neuro", "photo", "poly", "mono", "syn", "ex", "dis")  # fmt: skip
_ROOTS = ("struct", "form", "port", "duct", "spect", "graph", "log", "path", "morph", "phon",
          "scrib", "vert", "tract", "pend", "mit", "ject", "cept", "dict", "fer", "gen", "lect",
          "nom", "pos", "sens", "tend", "vid", "voc", "cycl", "chron", "therm", "dyn", "lith",
          "plas", "card", "derm", "glyph", "kin", "lum", "mar", "nov", "ped", "polit", "quer",
          "reg", "sol", "terr", "tort", "typ", "vol", "zym")  # fmt: skip
_SUFFIXES = ("ion", "ive", "al", "ity", "ment", "ism", "ate", "ize", "ology", "ic", "ure", "ance",
             "ency", "able", "ant", "ist", "or", "ous", "ular", "oid", "ite", "ema", "osis",
             "ation", "")  # fmt: skip

CHINESE_WORDS: tuple[str, ...] = _words(
    """的 是 在 和 了 也 就 都 与 对 中 上 通过 一个 我们 这个 可以 需要 没有 如果 因为 所以
    但是 然后 已经 还是 知识 管理 笔记 学习 向量 检索 模型 数据 系统 方法 研究 问题 分析
    结果 实验 文档 文本 语言 网络 信息 内容 结构 概念 理论 实践 思考 记忆 搜索 索引 链接
    标签 标题 目录 项目 任务 目标 计划 时间 工作 生活 阅读 写作 读书 总结 复盘 回顾 整理
    收集 分类 关系 图谱 节点 关键词 语义 相似度 排序 召回 精度 效率 性能 速度 内存 存储
    服务 接口 工具 插件 编辑器 代码 程序 算法 框架 设计 架构 模块 功能 测试 部署 版本 更新
    用户 团队 会议 讨论 决策 策略 经验 教训 习惯 健康 运动 睡眠 饮食 情绪 注意力 专注
    创造 想法 灵感 问题 答案 观点 论文 作者 读者 书籍 文章 课程 老师 学生 大学 历史 文化
    社会 经济 市场 科学 技术 人工智能 机器学习 深度学习 神经网络 自然语言 大模型 训练 推理
    评估 基准 指标 样本 特征 维度 矩阵 概率 统计 分布 误差 优化 改进 简单 复杂 重要 有效
    快速 稳定 清晰 具体 抽象 长期 短期 每天 每周 未来 过去 现在"""
)

CHINESE_TAGS: tuple[str, ...] = ("学习", "笔记", "想法", "阅读", "ai/检索", "工作/周报")
ENGLISH_TAGS: tuple[str, ...] = ("project", "research", "idea", "todo", "reading", "ml/nlp",
                                 "ml/vision", "health", "book", "meeting", "review", "draft",
                                 "area/writing", "area/learning", "status/done")  # fmt: skip

FOLDERS: tuple[tuple[str, float], ...] = (
    ("", 0.06),
    ("inbox", 0.08),
    ("projects", 0.06),
    ("projects/alpha", 0.08),
    ("projects/beta/specs", 0.06),
    ("areas/research", 0.10),
    ("areas/research/papers", 0.12),
    ("areas/health", 0.05),
    ("resources/books", 0.10),
    ("resources/articles", 0.10),
    ("journal/2023", 0.07),
    ("journal/2024", 0.07),
    ("archive", 0.05),
)
CHINESE_FOLDERS: tuple[str, ...] = ("知识库", "知识库/学习笔记", "areas/research")


def _english_vocabulary() -> tuple[str, ...]:
    """Stop words first, then 3,000 content words in a fixed frequency order."""
    rng = random.Random(VOCABULARY_SEED)
    real = [w for w in _words(_REAL_WORDS) if w not in STOP_WORDS]
    made = sorted(
        {p + r + s for p, r, s in itertools.product(_PREFIXES, _ROOTS, _SUFFIXES)} - set(real)
    )
    made = rng.sample(made, 3000 - len(real))
    rng.shuffle(real)
    # real words lean towards the frequent end, coined words towards the long tail
    middle = real[len(real) // 2 :] + made[:600]
    rng.shuffle(middle)
    return STOP_WORDS + tuple(real[: len(real) // 2] + middle + made[600:])


ENGLISH_WORDS: tuple[str, ...] = _english_vocabulary()
CONTENT_WORDS: tuple[str, ...] = ENGLISH_WORDS[len(STOP_WORDS) :]


class Zipf:
    """Draws from a ranked vocabulary with probability proportional to 1 / (rank + offset)^s."""

    def __init__(self, words: Sequence[str], s: float = 1.0, offset: float = 2.7) -> None:
        self.words = tuple(words)
        weights = [1.0 / (rank + offset) ** s for rank in range(1, len(self.words) + 1)]
        self.cumulative = list(itertools.accumulate(weights))

    def draw(self, rng: random.Random, k: int) -> list[str]:
        total = self.cumulative[-1]
        return [self.words[bisect(self.cumulative, rng.random() * total)] for _ in range(k)]


ENGLISH = Zipf(ENGLISH_WORDS)
CONTENT = Zipf(CONTENT_WORDS)
CHINESE = Zipf(CHINESE_WORDS, s=0.9)


@dataclass(frozen=True)
class Plan:
    """What other notes need to know about a note before any text is written."""

    index: int
    title: str
    folder: str
    language: str  # "en", "mixed" or "zh"
    headings: tuple[str, ...]

    @property
    def rel_path(self) -> str:
        return f"{self.folder}/{self.title}.md" if self.folder else f"{self.title}.md"


def _title_case(words: Sequence[str]) -> str:
    return " ".join(w.capitalize() for w in words)


def _unique(make: Callable[[], str], taken: set[str], rng: random.Random) -> str:
    for _ in range(20):
        candidate = make()
        if candidate.lower() not in taken:
            break
    else:
        candidate = f"{make()} {rng.randrange(10, 10_000)}"
        while candidate.lower() in taken:
            candidate = f"{make()} {rng.randrange(10, 10_000)}"
    taken.add(candidate.lower())
    return candidate


def _english_title(rng: random.Random) -> str:
    return _title_case(CONTENT.draw(rng, rng.randint(2, 4)))


def _chinese_title(rng: random.Random) -> str:
    words = [w for w in CHINESE.draw(rng, 6) if len(w) > 1]
    return "".join(words[: rng.randint(2, 3)]) or "笔记"


def _headings(rng: random.Random, language: str) -> tuple[str, ...]:
    count = rng.randint(1, 3)
    found: list[str] = []
    while len(found) < count:
        if language == "zh" or (language == "mixed" and rng.random() < 0.5):
            text = _chinese_title(rng)
        else:
            text = _title_case(CONTENT.draw(rng, rng.randint(1, 3)))
        if text not in found:
            found.append(text)
    return tuple(found)


def _pick_folder(rng: random.Random, language: str) -> str:
    if language == "zh" and rng.random() < 0.7:
        return rng.choice(CHINESE_FOLDERS)
    names = [name for name, _ in FOLDERS]
    return rng.choices(names, weights=[w for _, w in FOLDERS])[0]


def _plan(notes: int, rng: random.Random) -> list[Plan]:
    taken: set[str] = {HUB_TITLE.lower()}
    plans = [Plan(0, HUB_TITLE, "", "en", ("Overview", "Map Of Content"))]
    for index in range(1, notes):
        roll = rng.random()
        language = "zh" if roll < CHINESE_SHARE / 2 else "mixed" if roll < CHINESE_SHARE else "en"
        maker = _chinese_title if language == "zh" else _english_title
        title = _unique(partial(maker, rng), taken, rng)
        folder = _pick_folder(rng, language)
        plans.append(Plan(index, title, folder, language, _headings(rng, language)))
    return plans


def _frontmatter(plan: Plan, rng: random.Random) -> list[str]:
    if rng.random() > 0.7:
        return []
    lines = ["---"]
    if rng.random() < 0.25:
        alias = _alias(plan, rng)
        if rng.random() < 0.3:
            lines.append(f"aliases: {alias}")
        else:
            lines += ["aliases:", f"  - {alias}"]
            if rng.random() < 0.3:
                lines.append(f"  - {plan.title.lower()}")
    if rng.random() < 0.6:
        pool = CHINESE_TAGS + ENGLISH_TAGS if plan.language != "en" else ENGLISH_TAGS
        tags = list(dict.fromkeys(rng.choice(pool) for _ in range(rng.randint(1, 3))))
        lines.append(f"tags: [{', '.join(tags)}]")
    if rng.random() < 0.6:
        lines.append(f"date: {_date(rng)}")
    if len(lines) == 1:
        lines.append(f"title: {plan.title}")
    return [*lines, "---"]


def _alias(plan: Plan, rng: random.Random) -> str:
    words = plan.title.split()
    if len(words) > 1 and rng.random() < 0.5:
        return "".join(w[0] for w in words).upper() + str(plan.index)
    return " ".join(reversed(words)).lower() if len(words) > 1 else plan.title + " note"


def _date(rng: random.Random) -> str:
    return f"{rng.randint(2019, 2025)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


def _link(plans: Sequence[Plan], source: Plan, rng: random.Random) -> str:
    target = plans[_other_index(source.index, len(plans), rng)]
    roll = rng.random()
    if roll < BROKEN_LINK_SHARE:
        return f"[[{_title_case(CONTENT.draw(rng, 3))} Unwritten]]"
    if roll < BROKEN_LINK_SHARE + 0.01:
        return f"[[{target.title}#No Such Section]]"
    if roll < 0.16:
        return f"[[{target.title}#{rng.choice(target.headings)}]]"
    if roll < 0.28:
        return f"[[{target.title}|{' '.join(CONTENT.draw(rng, rng.randint(1, 3)))}]]"
    if roll < 0.33:
        return f"[[{target.title}#{rng.choice(target.headings)}|{rng.choice(CONTENT_WORDS)}]]"
    if roll < 0.38 and target.folder:
        return f"[[{target.folder}/{target.title}]]"
    return f"[[{target.title}]]"


def _other_index(source: int, notes: int, rng: random.Random) -> int:
    """A note other than ``source`` and the hub (the hub's inlinks are counted exactly)."""
    if notes <= 2:
        return 0 if source != 0 else notes - 1
    target = rng.randrange(1, notes - 1)
    return target + 1 if target >= source > 0 else target


def _hub_link(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.2:
        return f"[[{HUB_TITLE}|home]]"
    if roll < 0.3:
        return f"[[{HUB_TITLE}#Overview]]"
    return f"[[{HUB_TITLE}]]"


def _tag(language: str, rng: random.Random) -> str:
    if language != "en" and rng.random() < 0.6:
        return "#" + rng.choice(CHINESE_TAGS)
    return "#" + rng.choice(ENGLISH_TAGS)


Sentence = tuple[str, list[str]]  # (language, tokens)


def _sentences(language: str, words: int, rng: random.Random) -> list[Sentence]:
    """Sentences holding about ``words`` words, English or Chinese (``mixed`` alternates)."""
    chinese_run = language == "zh" or (language == "mixed" and rng.random() < 0.5)
    found: list[Sentence] = []
    while words > 0:
        if chinese_run:
            size = min(words, rng.randint(5, 12))
            found.append(("zh", CHINESE.draw(rng, size)))
        else:
            size = min(words, rng.randint(6, 20))
            tokens = ENGLISH.draw(rng, size)
            if language == "mixed" and rng.random() < 0.3:
                tokens.insert(rng.randrange(len(tokens) + 1), rng.choice(CHINESE_WORDS[12:]))
            found.append(("en", tokens))
        words -= size
    return found


def _render(sentence: Sentence) -> str:
    language, tokens = sentence
    if language == "zh":
        text = ""
        for token in tokens:
            text += f" {token} " if token.startswith("#") else token
        return text.strip().replace("  ", " ") + "。"
    first, *rest = tokens
    if not first.startswith(("[[", "#")):
        first = first.capitalize()
    return " ".join([first, *rest]) + "."


def _body(plan: Plan, plans: Sequence[Plan], links_to_hub: bool, rng: random.Random) -> list[str]:
    total = max(60, int(rng.gauss(WORDS_PER_NOTE, 40)))
    sections: list[tuple[str | None, list[list[Sentence]]]] = []
    parts = [None, *plan.headings]
    share = total // len(parts)
    for heading in parts:
        paragraphs = [_sentences(plan.language, share // 2, rng) for _ in range(2)]
        sections.append((heading, paragraphs))
    sentences = [s for _, paragraphs in sections for p in paragraphs for s in p]
    inserts = [_link(plans, plan, rng) for _ in range(rng.randint(3, 6))]
    if links_to_hub:
        inserts.append(_hub_link(rng))
    if rng.random() < 0.4:
        inserts += [_tag(plan.language, rng) for _ in range(rng.randint(1, 3))]
    for token in inserts:
        _, tokens = rng.choice(sentences)
        tokens.insert(rng.randrange(1, len(tokens) + 1), token)
    return _layout(plan, sections, rng)


def _layout(
    plan: Plan, sections: list[tuple[str | None, list[list[Sentence]]]], rng: random.Random
) -> list[str]:
    lines: list[str] = []
    if rng.random() < 0.5:
        lines += [f"# {plan.title}", ""]
    for heading, paragraphs in sections:
        if heading is not None:
            lines += [f"## {heading}", ""]
        for paragraph in paragraphs:
            if not paragraph:
                continue
            if rng.random() < 0.15:
                lines += [f"- {_render(s)}" for s in paragraph]
            else:
                lines.append(" ".join(_render(s) for s in paragraph))
            lines.append("")
    return lines


def _hub_linkers(notes: int, rng: random.Random) -> set[int]:
    others = range(1, notes)
    return set(rng.sample(others, min(HUB_INLINKS, len(others))))


def generate(out_dir: Path, notes: int, seed: int = 1) -> None:
    """Write ``notes`` notes into ``out_dir`` (created if missing); same arguments, same bytes."""
    if notes < 1:
        raise ValueError("notes must be at least 1")
    rng = random.Random(seed)
    plans = _plan(notes, rng)
    hub_linkers = _hub_linkers(notes, rng)
    for plan in plans:
        lines = _frontmatter(plan, rng) + _body(plan, plans, plan.index in hub_linkers, rng)
        path = out_dir / plan.rel_path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines).rstrip("\n") + "\n", encoding="utf-8", newline="\n")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    generate(args.out_dir, args.notes, args.seed)
    print(f"wrote {args.notes} notes to {args.out_dir}")


if __name__ == "__main__":
    main()
