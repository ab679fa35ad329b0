"""S6 vdisk-format-channels, the channel part: paging volumes behind two
ESCON channels.

280 users format VDISKs on a z/VM 5.2 system; its 24 paging volumes (3390-3 on
a 2105-E8, with 33 more volumes on the same control units) reach the control
unit through only two ESCON CHPIDs, 67 and 69. The INTERIM DEVICE report at
11:47 shows the paging volumes at about one I/O per second each, but with
45-70 ms of pending time per I/O: the page-out bursts wait for a channel. The
customer then added four ESCON CHPIDs.

Before (``studies/vdisk-format-channels-before.toml``): the formatted pages
reach DASD by XSTOR migration, one block per paging volume at a time (CP 5.2);
each burst puts a block on every volume at once and the two ESCON channels
carry one transfer each, so the I/Os wait for a channel (pending) while the
channels are busy only about 15% of the time. After
(``studies/vdisk-format-channels-after.toml``, August): six channels, no
pending time; 40 3390-3 paging volumes 83-100% used and 4 large ones with the
free space, so page-outs crowd onto the large volumes in big blocks and the
full ones get short blocks. Figures come from the DEVICE (FCX108), CPOWNED
(FCX109) and CHANNEL reports of the runs.

The VDISK part (``studies/vdisk-format-vdisks.toml``): the SYSSUMLG (FCX225)
lines from 11:16, T/V 5.43 before the VDISKs page and 100-200 once they do,
PGIN+PGOUT rising to about 9,000-10,000 pages/s; figures from SYSSUMLG,
STORAGE (FCX103) and VDISKS (FCX147).
"""

from __future__ import annotations

from pathlib import Path

from ztwin.advisor import diagnose
from ztwin.reports import build
from ztwin.studies import STUDIES
from ztwin.studies import measures as m
from ztwin.studies.base import StudyResult, studies_dir
from ztwin.twin import Scenario

NAME = "vdisk-format-channels"
TITLE = STUDIES[NAME].title
SCENARIO = "vdisk-format-channels-before.toml"
AFTER = "vdisk-format-channels-after.toml"
SETTLE = 300.0  # the users fill their storage and paging starts
END = 1200.0
QUICK_END = 600.0

#: Least share of predicted figures within tolerance (full run, --quick).
#: (A ratchet at what the model reaches today.) Lowered from 0.70 when the
#: VDISK part came in: of its 8 predicted figures the CP-time ones (T/V per
#: interval and mean, %busy) and the capture ratio are an order of magnitude
#: off (docs/fidelity.md, "S6's VDISK part"); the channel part is unchanged.
#: The short form's lowered from 0.65 to 0.61 (13 of 21) with one traversal
#: per steal pass (fidelity-model): its slowest-serving paging volume moved
#: from about 37.1 to 36.8 ms, under the range's lower end (52.8 ms less 30%,
#: 36.96), a per-volume minimum over 300 s; the full form keeps 14 of 21.
#: The first interval's %busy and capture ratio came in as checks (S6-P22,
#: S6-P23; issue 13): %busy is off by ten times (0.9 against 8.8, the same
#: gap as on the plateau, docs/fidelity.md), the capture ratio within; the
#: full form is 15 of 23 (0.652), the short form 14 of 23 (0.609): its
#: floor goes from 0.61 to 0.60 for that reason.
FLOOR = {"full": 0.65, "quick": 0.60}

S108 = "FCX108 INTERIM DEVICE 11:45:39-11:47:37 (24 paging volumes)"
S109 = "FCX109 DEVICE CPOWNED 2007/05/01 11:16-12:37"
S109A = "FCX109 INTERIM DEVICE CPOWNED 2007/08/14 07:15-07:20"


def run(quick: bool, workdir: Path) -> StudyResult:
    res = StudyResult(NAME, TITLE, floor=FLOOR["quick" if quick else "full"], quick=quick)
    end = QUICK_END if quick else END
    out = workdir / "vdisk-format-channels-before.monwrite"
    Scenario.load(studies_dir() / SCENARIO).run(out, duration=end)
    r = m.Run(out)
    w = (SETTLE, end)
    res.info.update(window=[r.clock(w[0]), r.clock(w[1])])
    pg = r.devices(*w, paging=True)
    fmt = "%Y-%m-%d %H:%M:%S"
    chans = build(out, ["CHANNEL"], r.time(w[0]).strftime(fmt), r.time(w[1]).strftime(fmt))["CHANNEL"].rows

    res.equal("S6-I1", "paging volumes", "input", "FCX108 INTERIM DEVICE (CP-owned 3390s)", len(pg), 24)
    res.equal("S6-I2", "channel paths to them", "input", "FCX131 DEVCONF (67 69), FCX161 LCHANNEL",
              sorted(f"{c['chpid']} {c['type']}" for c in chans), ["67 ESCON", "69 ESCON"])
    res.rel("S6-C1", "paging volumes: connect, ms", "calibrated", f"{S108} Conn (5.4-7.6)", m.weighted(pg, "conn_ms", "io_rate"),
            6.8, tol=0.15, note="calibrates the ESCON channels' overhead_ms (3.2 ms: 15-16 page blocks at 17 MB/s)")
    res.rel("S6-C2", "paging volumes: mean I/O/s per volume", "calibrated", f"{S108} I/O (0.8-1.3, mean of the lines)",
            m.mean(m.values(pg, "io_rate")), 1.1, tol=0.15, note="calibrates the users' format rate (fill_rate)")
    res.in_range("S6-P1", "paging volumes: pend per volume, ms", "predicted", f"{S108} Pend (45.5-70.3)",
                 tuple(m.values(pg, "pend_ms")), 45.5 * 0.7, 70.3 * 1.3, published=(45.5, 70.3),
                 note="±30% around the published range")
    res.rel("S6-P2", "paging volumes: mean pend, ms", "predicted", f"{S108} Pend (I/O-weighted mean of the lines)",
            m.weighted(pg, "pend_ms", "io_rate"), 54.1, tol=0.3)
    res.in_range("S6-P3", "paging volumes: I/O/s per volume", "predicted", f"{S108} I/O (0.8-1.3)", tuple(m.values(pg, "io_rate")),
                 0.4, 2.6, published=(0.8, 1.3), note="within a factor of two of the published range (their spread)")
    res.in_range("S6-P4", "paging volumes: disc per volume, ms", "predicted", f"{S108} Disc (0-0.9)", tuple(m.values(pg, "disc_ms")),
                 0, 2.0, published=(0.0, 0.9))
    res.in_range("S6-P5", "paging volumes: service per volume, ms", "predicted", f"{S108} Serv (52.8-78.4)",
                 tuple(m.values(pg, "serv_ms")), 52.8 * 0.7, 78.4 * 1.3, published=(52.8, 78.4))
    res.in_range("S6-P6", "paging volumes: %busy per volume", "predicted", f"{S108} Busy (11-15)", tuple(m.values(pg, "busy_pct")),
                 5, 30, published=(11, 15), note="within a factor of two")
    res.in_range("S6-P7", "channel %busy, 67 and 69", "predicted", "FCX161 LCHANNEL 67 / 69 (first figures 15, 16)",
                 tuple(c.get("busy_pct") for c in chans), 7.5, 32, published=(15, 16),
                 note="the LCHANNEL columns are not labelled in the excerpt; read as %busy; within a factor of two")
    pend, conn = m.weighted(pg, "pend_ms", "io_rate"), m.weighted(pg, "conn_ms", "io_rate")
    disc = m.weighted(pg, "disc_ms", "io_rate")
    res.holds("S6-S1", "pending is most of the paging volumes' service time (channel contention, not the disks)",
              pend is not None and conn is not None and disc is not None and pend > conn + disc,
              "'look at that pending time on the paging volumes! High pending time usually means channel contention'",
              S108, model=[pend, conn, disc])
    ids = diagnose(out, r.time(w[0]), r.time(w[1])).ids()
    res.info.update(advisor_before=sorted(ids))
    res.holds("S6-S2", "advisor: I/Os wait to get a path to the device", "dasd-pending" in ids,
              "the advisor flags pending time from channel contention", "issue 12 (advisor)", model=sorted(ids))
    exp = r.exposures(*w)
    rd, wr = sum(e.get("page_reads") or 0 for e in exp), sum(e.get("page_writes") or 0 for e in exp)
    res.at_least("S6-P8", "paging volumes: page writes' share of pages moved", "predicted", f"{S109} P-Rds 1.1-1.3, P-Wrt 14.9-17.6",
                 wr / (rd + wr) if rd + wr else None, 0.85, published=0.93, note="the formatted pages are written, rarely read back")
    res.rel("S6-P9", "paging volumes: pages per I/O (block size)", "predicted", f"{S109} Block Page Size 14",
            m.mean(m.values(exp, "block_size")), 14, tol=0.15)
    res.rel("S6-P10", "paging volumes: requests queued", "predicted", f"{S108} Req. Qued (.0 on every line)",
            m.mean(m.values(pg, "queued")), 0.0, tol=0, abs_tol=0.05, note="CP starts one paging I/O per volume at a time")
    _after(res, quick, workdir, pend)
    _vdisks(res, quick, workdir)
    return res


def _after(res: StudyResult, quick: bool, workdir: Path, pend_before: float | None) -> None:
    """The second limit, after four more channels (August)."""
    end = QUICK_END if quick else END
    out = workdir / "vdisk-format-channels-after.monwrite"
    Scenario.load(studies_dir() / AFTER).run(out, duration=end)
    r = m.Run(out)
    w = (SETTLE, end)
    res.info.update(after_window=[r.clock(w[0]), r.clock(w[1])])
    exp = r.exposures(*w)
    large = [e for e in exp if (e.get("page_slots") or 0) > 1_000_000]
    small = [e for e in exp if 0 < (e.get("page_slots") or 0) <= 1_000_000]
    part = [e for e in small if (e.get("used_pct") or 0) < 95]
    slots = r.slots(*w)
    res.equal("S6-I3", "after: PAGE slots available (thousands)", "input", f"{S109A} 51540k",
              round((slots.get("page_slots") or 0) / 1000), 51540,
              note="the four large extents sized from this total (38,194 cylinders each; the text says 3390-9)")
    res.equal("S6-I4", "after: paging volumes (3390-3, large)", "input", "text: 40 3390-3 nearly full, 4 large with the free space",
              [len(small), len(large)], [40, 4])
    chans = build(out, ["CHANNEL"], r.time(w[0]).strftime("%Y-%m-%d %H:%M:%S"), r.time(w[1]).strftime("%Y-%m-%d %H:%M:%S"))["CHANNEL"].rows
    res.equal("S6-I5", "after: ESCON channel paths", "input", "text: the customer added four ESCON chpids", len(chans), 6)
    res.rel("S6-P11", "after: PAGE slot utilization, %", "predicted", f"{S109A} 53%", slots.get("page_used_pct"), 53, tol=0, abs_tol=3,
            note="occupied slots at the start (the published Used % of each volume) plus the run's page-outs")
    res.in_range("S6-C3", "after: block size on the 83-88% used 3390-3s", "calibrated", f"{S109A} Block Size 3-5 (16D5-16E0)",
                 tuple(m.values(part, "block_size")), 3, 5, note="calibrates the gap-and-run cell of occupied slots (32 slots)")
    res.in_range("S6-P12", "after: block size on the large volumes", "predicted", f"{S109A} Block Size 11-12 (5805, D007, D008, D00D)",
                 tuple(m.values(large, "block_size")), 11 * 0.7, 12 * 1.3, published=(11, 12), note="±30% around the range")
    wl = m.mean(m.values(large, "page_writes"))
    wp = m.mean(m.values(part, "page_writes"))
    res.rel("S6-P13", "after: page writes per large volume / per 83-88% 3390-3", "predicted",
            f"{S109A} P-Wrt 39.7-41.9 vs 17.2-20.0 (means 41.0 / 18.6)", wl / wp if wl and wp else None, 2.2, tol=0.3)
    res.holds("S6-S3", "after: page-outs crowd onto the large volumes with free space (more page writes each than any 3390-3)",
              bool(large) and bool(small) and min(m.values(large, "page_writes")) > max(m.values(small, "page_writes")),
              "'40 3390-3 paging volumes nearly full, 4 3390-9 paging volumes have the free space'", S109A,
              model=[round(wl or 0, 1), round(max(m.values(small, "page_writes")), 1)])
    pg = r.devices(*w, paging=True)
    pend = m.weighted(pg, "pend_ms", "io_rate")
    res.holds("S6-S4", "after: six channels cut the paging volumes' pending time by more than half",
              pend is not None and pend_before is not None and pend < pend_before / 2,
              "service per page 0.6-2.2 ms after, 3.8-16.7 before", f"{S109A}; {S109}", model=[pend, pend_before],
              note="the model's after-run pages 2.3 times as much as before (assumed), in bursts over 44 volumes on six "
                   "channels, so some pending time remains")
    ids = diagnose(out, r.time(w[0]), r.time(w[1])).ids()
    ids_before = res.info.get("advisor_before", [])
    res.holds("S6-S5", "advisor: page-outs crowding onto the few paging volumes with free space (after, not before)",
              "paging-crowding" in ids and "paging-crowding" not in ids_before,
              "the advisor flags the second limit after the channels were added", "issue 12 (advisor)", model=sorted(ids))
    res.not_modelled("S6-N3", "after: page reads on the nearly full 3390-3s (P-Rds 18.6-22.7/s)", S109A, "18.6-22.7",
                     "the pages on them belong to work the scenario does not model (occupied slots): nothing reads them")
    res.not_modelled("S6-N4", "after: Queue Lngth, MLOAD, %Used for Alloc per volume", S109A, "0-106, 0.1-139 ms, 44-100%",
                     "CPOWNED's queue length, MLOAD and allocation share are not compared: the queue and MLOAD columns of "
                     "the excerpt mix snapshots and averages, and %Used for Alloc is not in the model's records")


VDISKS = "vdisk-format-vdisks.toml"
S225 = "FCX225 SYSSUMLG 2007/05/01 11:16-12:37"
#: The published intervals (end times) and the model's windows, s from 11:16:00:
#: the first minute (11:16:08-11:17:08: no paging), the onset (11:17:08-11:19:11),
#: the plateau (11:28:09-11:42:41; the short form stops at 11:36).
V_FIRST = (0.0, 60.0)
V_PLATEAU = (720.0, 1560.0)
V_END, V_QUICK_END = 1800.0, 1200.0
#: Published SYSSUMLG lines 11:28-11:42 (T/V, PGIN+PGOUT /s, %busy).
PLATEAU_TV = (108.2, 119.2, 119.6, 136.8, 144.2, 135.6, 166.5, 167.6)
PLATEAU_PG = (8942, 8602, 9327, 9213, 9189, 10083, 8942, 9311)
PLATEAU_BUSY = (9.8, 9.8, 10.3, 10.5, 10.8, 10.5, 10.7, 10.2)


def _vdisks(res: StudyResult, quick: bool, workdir: Path) -> None:
    """The VDISK part: 280 users format VDISKs that do not fit in central
    storage; CP pages them, T/V 100-200."""
    end = V_QUICK_END if quick else V_END
    out = workdir / "vdisk-format-vdisks.monwrite"
    Scenario.load(studies_dir() / VDISKS).run(out, duration=end)
    r = m.Run(out)
    plateau = (V_PLATEAU[0], min(V_PLATEAU[1], end))
    first = r.sys_intervals(0.0, V_FIRST[1] + 1.0)
    lines = r.sys_intervals(0.0, end)
    pl = r.sys_intervals(*plateau)
    res.info.update(vdisk_plateau=[r.clock(plateau[0]), r.clock(plateau[1])],
                    vdisk_series=[(ln["interval_end"].strftime("%H:%M"), round(ln["tv_ratio"] or 0, 1),
                                   round(ln["xstor_rate"] or 0)) for ln in lines])
    fmt = "%Y-%m-%d %H:%M:%S"
    vd = build(out, ["VDISKS"], r.time(plateau[0]).strftime(fmt), r.time(plateau[1]).strftime(fmt))["VDISKS"].rows
    res.equal("S6-I6", "users with a VDISK they format", "input", f"{S225} Logged 280; 'formats lots of VDISKs'",
              len(vd), 280)
    mean = r.sys(*plateau)
    res.equal("S6-I7", "processors on line", "input", f"{S225} On-line 27.0", mean.get("cpus_online"), 27.0)
    tv0 = first[0]["tv_ratio"] if first else None
    res.rel("S6-C4", "T/V in the first interval (no paging yet)", "calibrated", f"{S225} 11:17:08 T/V 5.43", tv0, 5.43,
            tol=0.1, note="calibrates [vdisk] io_us, the CP time of a VDISK I/O (26 us against 6 us of the format's "
                          "virtual time per I/O, assumed)")
    # The rest of the first line: the twin's T/V is calibrated there, its CPU
    # is not (docs/fidelity.md, "S6's VDISK part: where the CP time is").
    busy0 = first[0]["cpu_busy_pct"] if first else None
    cap0 = first[0]["capture_ratio"] if first else None
    res.rel("S6-P22", "CPU %busy in the first interval (no paging yet)", "predicted", f"{S225} 11:17:08 Pct Busy 8.8",
            busy0, 8.8, tol=0.3, note="the published %busy is 8.7-10.8 in every line, with or without paging; the "
                                      "twin's users do the plateau's I/O rate from the start, a tenth of the CPU")
    res.rel("S6-P23", "capture ratio in the first interval", "predicted", f"{S225} 11:17:08 Cap- .8412", cap0, 0.8412,
            tol=0.15)
    res.rel("S6-C5", "PGIN+PGOUT on the plateau, pages/s", "calibrated", f"{S225} 11:28-11:42 PGIN+PGOUT (8,602-10,083)",
            mean.get("xstor_rate"), 9201.0, tol=0.15, shown="8,602-10,083 (mean 9,201)",
            note="calibrates the users' format rate (think time between 4 KB I/Os)")
    onset = next((ln for ln in lines if (ln["xstor_rate"] or 0) >= 1000.0), None)
    t_on = (onset["interval_end"] - r.time(0.0)).total_seconds() if onset is not None else None
    res.in_range("S6-P14", "paging starts (first interval at 1,000 pages/s or more), s after 11:16", "predicted",
                 f"{S225} 11:18:39 PGIN+PGOUT 2,195 (11:17:08: 0)", t_on, 60.0, 240.0, published=(68, 159),
                 note="the published interval ending 11:18:39 starts at 11:17:08; a minute either side")
    res.in_range("S6-P15", "T/V per interval on the plateau", "predicted", f"{S225} 11:28-11:42 T/V 108.2-167.6",
                 tuple(ln["tv_ratio"] for ln in pl), 100.0, 200.0, published=(108.2, 167.6),
                 note="the study's 'T/V rises to 100-200'")
    res.rel("S6-P16", "T/V on the plateau (mean)", "predicted", f"{S225} 11:28-11:42 T/V (mean of the lines 136.0)",
            mean.get("tv_ratio"), 136.0, tol=0.3)
    res.rel("S6-P17", "CPU %busy on the plateau", "predicted", f"{S225} 11:28-11:42 Pct Busy 9.8-10.8 (mean 10.3)",
            mean.get("cpu_busy_pct"), 10.3, tol=0.3)
    res.rel("S6-P18", "capture ratio", "predicted", f"{S225} >>Mean>> Capture .7577", mean.get("capture_ratio"), 0.7577,
            tol=0.15)
    res.rel("S6-P19", "users in the eligible list", "predicted", f"{S225} Users in Elist .0 (every line)",
            mean.get("users_in_elist"), 0.0, tol=0, abs_tol=0.05)
    res.rel("S6-P20", "DASD paging (Read+Write) on the plateau, pages/s", "predicted",
            f"{S225} Read+Write .0-2.8 through 11:42", mean.get("read_write_rate"), 0.0, tol=0, abs_tol=5.0)
    res.rel("S6-P21", "users active", "predicted", f"{S225} >>Mean>> Activ 263 of 280", mean.get("users_active"), 263,
            tol=0.1)
    st = r.storage(*plateau)
    xs = round(sum(float(v.get("xstor_mean") or 0) for v in vd))
    res.holds("S6-S6", "CP pages the VDISK pages (they are what is in XSTOR) and only its emergency scan takes them",
              xs > 0 and (st.get("steals_pass1") or 0) + (st.get("steals_pass2") or 0) == 0 and (st.get("steals_emergency") or 0) > 0,
              "'VDISKs are address spaces. We page them when storage gets tight'", "VDISKS (FCX147) XSTOR pages; "
              "STORAGE (FCX103) steals by pass", model={"vdisk_xstor_pages": xs, "steals_by_pass": [
                  st.get("steals_pass1"), st.get("steals_pass2"), st.get("steals_emergency")]})
    res.not_modelled("S6-N1", "SYSSUMLG means over 11:16-12:37: PGIN+PGOUT 5,418, Read+Write 1,445, SSCH+RSCH 122.7/s, "
                     "DASD resp 11.1 ms", S225, "5418, 1445, 122.7, 11.1",
                     "the VDISK scenario ends at 11:46 (its DASD side is the channel half's scenario); the later "
                     "intervals, with DASD paging, are not in the excerpt")
