"""The checks, one module per area, and the order they run in.

A check is ``fn(ctx, rule) -> Finding | None``. Checks that use other
findings (storage-constrained, emergency-scan, no-constraint) or leave notes
for later ones (paging-serialized names the guests that page serially;
dasd-disconnect-change the devices whose cache broke) run after them.
"""

from __future__ import annotations

from collections.abc import Callable

from ztwin.advisor.checks import agelist, cpu, io, iopath, linux, mdc, paging, segments, storage, summary
from ztwin.advisor.checks.common import Context
from ztwin.advisor.finding import Finding
from ztwin.advisor.rules import Rule

Check = Callable[[Context, Rule], Finding | None]

#: (rule id, area, check) in evaluation order.
CHECKS: list[tuple[str, str, Check]] = [
    ("cpu-busy", "CPU", cpu.check_cpu_busy),
    ("lpar-busy", "CPU", cpu.check_lpar_busy),
    ("lpar-share", "CPU", cpu.check_lpar_share),
    ("lpar-cap", "CPU", cpu.check_lpar_cap),
    ("lpar-pool-busy", "CPU", cpu.check_lpar_pool_busy),
    ("cpu-wait", "CPU", cpu.check_cpu_wait),
    ("tv-ratio", "CPU", cpu.check_tv_ratio),
    ("capture-ratio", "CPU", cpu.check_capture_ratio),
    ("paging-serialized", "Paging", paging.check_paging_serialized),
    ("user-page-wait", "Storage", storage.check_user_page_wait),
    ("eligible-list", "Storage", storage.check_eligible_list),
    ("free-frames-empty", "Storage", storage.check_free_frames),
    ("dasd-resident-pages", "Storage", storage.check_dasd_resident),
    ("agelist-small", "Storage", agelist.check_agelist_small),
    ("agelist-large", "Storage", agelist.check_agelist_large),
    ("earlywrite-lag", "Storage", agelist.check_earlywrite_lag),
    ("paging-device-queue", "Paging", paging.check_paging_device_queue),
    ("paging-device-busy", "Paging", paging.check_paging_device_busy),
    ("paging-mload", "Paging", paging.check_paging_mload),
    ("paging-blocking", "Paging", paging.check_paging_blocking),
    ("paging-space-full", "Paging", paging.check_paging_space),
    ("xstor-vs-dasd", "Paging", paging.check_xstor_vs_dasd),
    ("vdisk-paging-space", "Paging", segments.check_vdisk_paging_space),
    ("spool-space-segments", "Storage", segments.check_spool_segments),
    ("segment-unused", "Storage", segments.check_segment_unused),
    ("paging-volume-mix", "Paging", paging.check_paging_volume_mix),
    ("paging-crowding", "Paging", paging.check_paging_crowding),
    ("paging-edev-cpu", "Paging", paging.check_paging_edev_cpu),
    ("dasd-disconnect-change", "I/O", io.check_disconnect_change),
    ("dasd-response", "I/O", io.check_dasd_response),
    ("dasd-pending", "I/O", io.check_dasd_pending),
    ("dasd-disconnect", "I/O", io.check_dasd_disconnect),
    ("pav-base-queue", "I/O", io.check_pav_base_queue),
    ("dasd-queue-no-pav", "I/O", iopath.check_queue_no_pav),
    ("channel-busy", "I/O", iopath.check_channel_busy),
    ("cache-off", "I/O", iopath.check_cache_off),
    ("mdc-off", "I/O", mdc.check_mdc_off),
    ("mdc-starved", "Storage", mdc.check_mdc_starved),
    ("storage-constrained", "Storage", storage.check_storage_constrained),
    ("emergency-scan", "Storage", storage.check_emergency_scan),
    ("linux-swap-dasd", "Linux", linux.check_swap_dasd),
    ("linux-double-paging", "Linux", linux.check_double_paging),
    ("linux-cache-held", "Linux", linux.check_cache_held),
    ("no-constraint", "Summary", summary.check_no_constraint),
]

__all__ = ["CHECKS", "Check", "Context"]
