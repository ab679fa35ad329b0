"""The :class:`Report` every report builder returns, and its JSON/CSV forms."""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from ztwin.reports.core import Config
    from ztwin.reports.text import Table


@dataclass
class Chart:
    """A time chart of a by-time report for the HTML pages: one line per key."""

    title: str
    keys: Sequence[str]
    unit: str = ""


@dataclass
class Report:
    """One report: rows (dicts keyed by the documented snake_case names) plus
    how to lay them out as Perfkit text.

    Keys starting with ``_`` are for the text layout only and are left out of
    JSON, CSV and :meth:`frame`. Summary lines (``>>Mean>>``, ``>System<``,
    ``>>All DASD<<``) are rows too, marked by that label in the row's first key.
    """

    name: str
    fcx: str
    title: str
    config: Config
    start: datetime | None
    end: datetime | None
    rows: list[dict[str, Any]]
    keys: list[str]
    table: Table | None = None
    display: str | None = None
    interim: bool = False
    subject: str | None = None
    time_key: str | None = None
    charts: list[Chart] = field(default_factory=list)
    #: Rows with different values of this key are printed as separate blocks.
    group_key: str | None = None
    group_title: str = ""
    pre_lines: list[str] = field(default_factory=list)
    post_lines: list[str] = field(default_factory=list)
    #: Extra top-level JSON members (e.g. CPOWNED's slot summary).
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return self.display or self.name

    def grouped_rows(self) -> list[tuple[str, list[dict[str, Any]]]]:
        if self.group_key is None:
            return [("", self.rows)]
        groups: dict[Any, list[dict[str, Any]]] = {}
        for r in self.rows:
            groups.setdefault(r.get(self.group_key), []).append(r)
        return [(self.group_title.format(key), rows) for key, rows in groups.items()]

    def public_rows(self) -> list[dict[str, Any]]:
        return [{k: r.get(k) for k in self.keys} for r in self.rows]

    def to_dict(self) -> dict[str, Any]:
        """The JSON object: report, fcx, from, to, rows (plus any extra members)."""
        cfg = self.config
        out: dict[str, Any] = {
            "report": self.name,
            "fcx": self.fcx,
            "from": cfg.iso(self.start) if self.start else None,
            "to": cfg.iso(self.end) if self.end else None,
            "rows": [{k: _json_value(v, cfg) for k, v in r.items()} for r in self.public_rows()],
        }
        for k, v in self.extra.items():
            out[k] = _json_value(v, cfg)
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, allow_nan=False)

    def to_csv(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(self.keys)
        for r in self.public_rows():
            w.writerow(["" if (v := _json_value(r[k], self.config)) is None else v for k in self.keys])
        return buf.getvalue()

    def frame(self) -> pd.DataFrame:
        """The rows as a pandas DataFrame (summary rows included)."""
        import pandas as pd

        return pd.DataFrame(self.public_rows(), columns=self.keys)

    def to_text(self, when: datetime | None = None) -> str:
        from ztwin.reports.text import render

        return render(self, when)


def _json_value(v: Any, cfg: Config) -> Any:
    if isinstance(v, datetime):
        return cfg.iso(v)
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            return None
        return round(v, 6)
    if isinstance(v, dict):
        return {k: _json_value(x, cfg) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_json_value(x, cfg) for x in v]
    return v
