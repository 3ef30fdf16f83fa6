"""Sections register themselves here; `python -m bench --only a,b` runs a subset, in `order`.

A section is one module in bench/sections/ with a function decorated with `@register(...)` that
takes the run's Context and returns a JSON-able dict. Results of kind "op" share the latency and
cost tables; any other kind brings its own `render` (lines for the printed report).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import bench.sections as package

if TYPE_CHECKING:
    from bench.context import Context

Result = dict[str, Any]
Run = Callable[["Context"], Result]
Render = Callable[[Result], list[str]]


@dataclass(frozen=True)
class Section:
    name: str
    title: str
    order: int
    run: Run
    render: Render | None = None


SECTIONS: dict[str, Section] = {}


def register(name: str, title: str, *, order: int, render: Render | None = None) -> Callable[[Run], Run]:
    def add(run: Run) -> Run:
        if name in SECTIONS and SECTIONS[name].run is not run:
            raise ValueError(f"section {name!r} registered twice")
        SECTIONS[name] = Section(name, title, order, run, render)
        return run

    return add


def sections() -> list[Section]:
    """Every section of bench/sections/, imported on first use, in run order."""
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{module.name}")
    return sorted(SECTIONS.values(), key=lambda s: (s.order, s.name))


def select(only: str | None) -> list[Section]:
    available = sections()
    if not only:
        return available
    wanted = [w.strip() for w in only.split(",") if w.strip()]
    unknown = sorted(set(wanted) - {s.name for s in available})
    if unknown:
        names = ", ".join(s.name for s in available)
        raise SystemExit(f"unknown section(s): {', '.join(unknown)} (available: {names})")
    return [s for s in available if s.name in wanted]
