"""What every resolver sees: the request, the query context, per-request loaders and the settings."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import Response
from strawberry.types import Info

from api.loaders import Loaders
from kg.query import QueryContext
from kg.settings import Settings

if TYPE_CHECKING:
    from api.writer import PaperWriter


@dataclass
class ApiContext:
    request: Request
    response: Response
    query: QueryContext
    settings: Settings
    writer: PaperWriter
    loaders: Loaders = field(init=False)
    mutation: bool = field(default=False, init=False)  # set by api.auth.MarkMutations before execution

    def __post_init__(self) -> None:
        self.loaders = Loaders(self.query)


ApiInfo = Info[ApiContext, None]
