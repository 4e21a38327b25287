"""Settings: each declared once, and the files they are read from.

`table.py` is the table a reader wants first: every setting with its default, who may set it,
what a change does and its bound, and what is derived from those declarations (validation, what
reopens a vault, the index fingerprint). `schema.py` is how a declaration is made; `files.py`
reads the user's config file and a vault's `.memlsp.toml`, and says where a vault's cache lives.
The settings page of the docs is generated from the table.
"""

from typing import TYPE_CHECKING

from memlsp.exports import exports

if TYPE_CHECKING:
    from memlsp.settings.files import cache_dir_for as cache_dir_for
    from memlsp.settings.files import load_user_settings as load_user_settings
    from memlsp.settings.files import load_vault_settings as load_vault_settings
    from memlsp.settings.schema import Effect as Effect
    from memlsp.settings.schema import SetBy as SetBy
    from memlsp.settings.schema import Setting as Setting
    from memlsp.settings.table import DEFAULTS as DEFAULTS
    from memlsp.settings.table import SETTINGS as SETTINGS
    from memlsp.settings.table import Settings as Settings
    from memlsp.settings.table import settings_from as settings_from

__getattr__ = exports(
    __name__,
    {
        "cache_dir_for": "files",
        "load_user_settings": "files",
        "load_vault_settings": "files",
        "Effect": "schema",
        "SetBy": "schema",
        "Setting": "schema",
        "DEFAULTS": "table",
        "SETTINGS": "table",
        "Settings": "table",
        "settings_from": "table",
    },
)
