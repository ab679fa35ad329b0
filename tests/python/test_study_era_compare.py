"""era-compare, short form: one overcommitted Linux workload at z/VM 5.4
(XSTOR) and 7.3 (aging list, early writes, HyperPAV paging, no XSTOR); every
figure from the decoded records. The input and the structural claims (no
XSTOR at 7.3; the published directions of the 6.3 and 6.4 gains) hold; the
reports of the 7.3 file say "no XSTOR" instead of zeros."""

from __future__ import annotations

from pathlib import Path

from ztwin.reports import build
from ztwin.studies import run_study


def test_era_compare_short_form(tmp_path: Path) -> None:
    res = run_study("era-compare", quick=True, workdir=tmp_path)
    assert res.ok, [c.to_json() for c in res.failed_required]
    by = {c.id: c for c in res.checks}
    assert all(c.source and c.category for c in res.checks)
    assert by["E-I1"].ok and by["E-S1"].ok and by["E-S2"].ok and by["E-S3"].ok
    v = res.info["variants"]
    assert v["5.4"]["xstor_pages_out"] > 0 and v["7.3"]["xstor_pages_out"] == 0
    # The aliases end the paging queue the 7.3 run without them has.
    assert v["7.3-noalias"]["paging_queue"] > 2 * v["7.3"]["paging_queue"]
    # Each size IBM published is printed next to the model's or says why not.
    assert {"E-P1", "E-N1", "E-N2", "E-N3"} <= set(by)
    assert all(by[k].note for k in ("E-N1", "E-N2", "E-N3"))
    # The 7.3 file's reports: "no XSTOR" where a 5.4 file has XSTOR figures.
    reps = build(tmp_path / "era-7.3.monwrite", ["STORAGE", "PAGELOG", "SYSCONF", "UPAGE"])
    text = "\n".join(reps["STORAGE"].pre_lines)
    assert "XSTOR blocks ......................... no XSTOR" in text, text
    assert "PGIN from XSTOR /s ................... no XSTOR" in text
    assert reps["STORAGE"].rows[0]["xstor_total"] is None
    assert any("no XSTOR" in line for line in reps["PAGELOG"].pre_lines)
    assert "pgin_rate" not in reps["PAGELOG"].keys
    assert any("Expanded storage (MB)" in ln and "no XSTOR" in ln for ln in reps["SYSCONF"].pre_lines)
    assert any("no XSTOR" in ln for ln in reps["UPAGE"].pre_lines)
    assert not {"x_to_ms", "ms_to_x", "x_to_ds", "xstor"} & set(reps["UPAGE"].keys)
    reps54 = build(tmp_path / "era-5.4.monwrite", ["STORAGE", "PAGELOG", "UPAGE"])
    assert "no XSTOR" not in "\n".join(reps54["STORAGE"].pre_lines)
    assert reps54["STORAGE"].rows[0]["xstor_total"] == 131072
    assert "pgin_rate" in reps54["PAGELOG"].keys
    assert {"x_to_ms", "ms_to_x", "x_to_ds", "xstor"} <= set(reps54["UPAGE"].keys)
