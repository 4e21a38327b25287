"""Common words: English and Chinese function words and question words.

A question in ordinary words ("how to fall asleep faster", "怎么才能睡得更好") is mostly these, and in
BM25 they still match nearly every note, so the notes that share only them crowd out the ones about
the question. They are dropped from a query's terms when it has other terms; notes keep them in the
index, so a query made only of them still finds its words.
"""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


ENGLISH = _words(
    """
    a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    had has have having he her here hers herself him himself his how i if in into is it its
    itself just me more most my myself no nor not of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom whose why will with would you your yours yourself
    yourselves across along among around may might must shall whether within without upon yet
    ever every many much often else
    """
)

# Whole words as jieba's search mode cuts them (`怎么才能睡得更好` -> 怎么 才能 睡 得 更好).
CHINESE = _words(
    """
    的 了 是 在 和 与 及 或 也 都 就 还 又 很 吗 呢 吧 啊 呀 嘛 么 得 地 着 过 把 被 让 给 对 从 向
    到 为 以 于 之 其 这 那 这个 那个 这些 那些 这样 那样 这么 那么 一个 一些 一种 有 没有 没 不
    我 你 您 他 她 它 我们 你们 他们 她们 它们 咱们 自己 怎么 怎样 怎么样 怎么办 如何 什么 为什么
    为何 哪 哪里 哪儿 哪些 哪个 谁 多少 几 是否 是不是 能 能不能 能够 可以 可不可以 才能 才 要 会
    应该 请问 一下
    """
)

COMMON_WORDS = ENGLISH | CHINESE
