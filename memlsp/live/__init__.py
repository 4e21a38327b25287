"""A vault kept current while an editor works on it: its writer thread (`vault.py`,
`LiveVault`), its embedding thread (`vectors.py`), what they tell their owner (`Listener`) and
how others wait for them; its status in words (`status.py`).
"""

from typing import TYPE_CHECKING

from memlsp.exports import exports

if TYPE_CHECKING:
    from memlsp.live.status import VaultStatus as VaultStatus
    from memlsp.live.vault import Listener as Listener
    from memlsp.live.vault import LiveVault as LiveVault
    from memlsp.live.vectors import EmbeddingLoop as EmbeddingLoop

__getattr__ = exports(
    __name__,
    {
        "VaultStatus": "status",
        "Listener": "vault",
        "LiveVault": "vault",
        "EmbeddingLoop": "vectors",
    },
)
