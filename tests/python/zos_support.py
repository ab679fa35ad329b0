"""Short z/OS partition runs for the tests (the study's scenario, 40 s of
online work, the SVC dump at 30 s), cached per variant."""

from __future__ import annotations

import functools
import json

from ztwin import zos, zos_tables
from ztwin._native import run_zos
from ztwin.studies.base import studies_dir

STUDY = studies_dir() / "zos" / "flash-morning-transition.toml"

#: Variants: replacements in the scenario text.
VARIANTS: dict[str, dict[str, str]] = {
    "dasd": {},
    "flash": {'pagescm = "NONE"': 'pagescm = "ALL"'},
    # 16 GB of SCM, 10 GB of real storage, a small batch: SCM fills during
    # the online work and page-outs spill to the page data sets.
    "flash-small": {
        'pagescm = "NONE"': 'pagescm = "16G"',
        'real_storage = "24G"': 'real_storage = "10G"',
        'size = "9.5G"\nvio = "1G"': 'size = "1G"\nvio = "0"',
    },
    # The 16 page data sets behind one 20 MB/s channel path instead of four
    # of 800 MB/s: the channel saturates (page data set activity).
    "dasd-slow-channel": {
        'count = 4\ntype = "ficon"\nmb_s = 800': 'count = 1\ntype = "ficon"\nmb_s = 20',
        'chpids = ["40", "41", "42", "43"]': 'chpids = ["40"]',
    },
}


def text(variant: str) -> str:
    t = STUDY.read_text(encoding="utf-8")
    t = t.replace('duration = "240s"', 'duration = "40s"').replace('svc_at = "150s"', 'svc_at = "30s"')
    for a, b in VARIANTS[variant].items():
        assert a in t, a
        t = t.replace(a, b)
    return t


@functools.cache
def run(variant: str) -> zos.ZosRun:
    return zos.ZosRun(json.loads(run_zos(text(variant), f"{variant}.toml", None)))


def tables(variant: str) -> zos_tables.ZosTables:
    return zos_tables.tables(run(variant))
