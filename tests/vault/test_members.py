"""A key's values in a link graph: a tuple while few, a set once many (a hub's name), and a copy
for the next revision never changes what the revision before it holds."""

from __future__ import annotations

from memlsp.vault.shared import SMALL, Members


def test_few_values_are_a_tuple_many_a_set_and_copies_stay_apart() -> None:
    members = Members()
    for number in range(SMALL + 4):
        members.add("hub", f"n{number}.md")
    members.add("one", "a.md")
    members.add("one", "a.md")
    assert members.get("one") == ("a.md",)
    many = members.get("hub")
    assert isinstance(many, set) and len(many) == SMALL + 4  # changed in place from now on
    copy = members.copy()
    copy.discard("hub", "n0.md")
    copy.add("hub", "new.md")
    copy.discard("one", "a.md")
    assert "n0.md" in members.get("hub") and "new.md" not in members.get("hub")  # type: ignore[operator]
    assert members.get("one") == ("a.md",) and copy.get("one") is None
    assert "new.md" in copy.get("hub") and "n0.md" not in copy.get("hub")  # type: ignore[operator]
    members.discard("hub", "n1.md")  # the original may go on changing too
    assert "n1.md" in copy.get("hub")  # type: ignore[operator]
