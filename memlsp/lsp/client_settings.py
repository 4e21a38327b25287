"""The settings the client gives: `initializationOptions`, then `workspace/didChangeConfiguration`
over them, over the user config file. A vault's own file cannot override what they choose."""

from __future__ import annotations

from typing import Any

from memlsp.settings.files import chosen_part, user_settings
from memlsp.settings.table import Settings, settings_from


class ClientSettings:
    def __init__(self) -> None:
        self.current = Settings()  # what a vault opened now starts from (before its own file)
        self._initial = Settings()  # from `initializationOptions`

    def initialize(self, options: Any) -> list[str]:
        """The settings of `initialize`; the problems with them, each in a sentence."""
        problems = self._apply(options, Settings())
        self._initial = self.current
        return problems

    def change(self, options: Any) -> list[str]:
        """New settings from the client, over those of `initialize`."""
        return self._apply(options, self._initial)

    def _apply(self, options: Any, base: Settings) -> list[str]:
        """The client's settings over what `base` chose, over the user config file; each bad
        value is told and ignored."""
        given, problems = settings_from(_options(options), chosen_part(base), "editor")
        self.current, more = user_settings(given)
        return more + problems


def _options(value: Any) -> dict[str, Any]:
    """Settings as given by a client: a mapping, maybe nested under "memlsp"."""
    if not isinstance(value, dict):
        return {}
    nested = value.get("memlsp")
    return nested if isinstance(nested, dict) else value
