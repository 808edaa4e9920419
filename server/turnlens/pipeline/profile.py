"""What applies to one document: its format, rule pack and router settings.

Each document has its own profile, so opening a second document with other
settings changes nothing for the first.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from turnlens.core.rules import RulePack, builtin_pack
from turnlens.pipeline.formats import AUTO, FormatOptions
from turnlens.pipeline.formats.turns import DEFAULT_SEPARATOR
from turnlens.router.settings import RouterSettings

DEFAULT_ROUTE_ROLES = ("user",)


def _default_pack() -> RulePack:
    return builtin_pack("default")


@dataclass(frozen=True, slots=True)
class Profile:
    """The format to read with, how to score, and how to route."""

    format: str = AUTO
    separator: str = DEFAULT_SEPARATOR
    pack: RulePack = field(default_factory=_default_pack)
    router: RouterSettings = field(default_factory=RouterSettings)
    route_roles: tuple[str, ...] = DEFAULT_ROUTE_ROLES
    hide_kinds: tuple[str, ...] = ()

    @property
    def options(self) -> FormatOptions:
        return FormatOptions(separator=self.separator, hide_kinds=self.hide_kinds)

    def routes(self, role: str | None, kind: str | None) -> bool:
        """Whether a unit gets a route: user prompts by default; plain text (no role) always."""
        if role is None:
            return True
        return role in self.route_roles and kind in (None, "prompt")
