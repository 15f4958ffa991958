"""The `kg` command line: build, extract, load, export, stats, validate, eval, sparql, viz, serve, migrate,
reextract, mine, train-recogniser."""

from __future__ import annotations

import sys

from kg.cli import building, lists, mining, reading, results, serving, upgrading  # noqa: F401  (each module registers its commands)
from kg.cli.common import app, err


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)


__all__ = ["app", "main"]
