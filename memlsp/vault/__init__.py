"""The vault as a set of names and links: the link graph, how a link's target is resolved the
way Obsidian resolves it (docs/links.md), which files belong to the vault, and `VaultView`,
what editor features read.
"""

from typing import TYPE_CHECKING

from memlsp.exports import exports

if TYPE_CHECKING:
    from memlsp.vault.anchors import find_heading as find_heading
    from memlsp.vault.link_graph import LinkGraph as LinkGraph
    from memlsp.vault.names import NameTable as NameTable
    from memlsp.vault.resolve import resolve as resolve
    from memlsp.vault.roots import vault_root as vault_root
    from memlsp.vault.rules import VaultRules as VaultRules
    from memlsp.vault.shared import SharedMap as SharedMap
    from memlsp.vault.view import VaultView as VaultView

__getattr__ = exports(
    __name__,
    {
        "find_heading": "anchors",
        "LinkGraph": "link_graph",
        "NameTable": "names",
        "resolve": "resolve",
        "vault_root": "roots",
        "VaultRules": "rules",
        "SharedMap": "shared",
        "VaultView": "view",
    },
)
