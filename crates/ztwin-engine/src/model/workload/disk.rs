//! The disk workloads' bursts: CMS file I/O (XEDIT-like file reads,
//! database-like random blocks, through the minidisk cache when it is on),
//! CMS FORMAT of a minidisk (WRITE SAME on an EDEV at 5.3+), and Linux
//! sequential file I/O (iozone-like processes over one or more paths).
//!
//! A CMS workload has one I/O in flight per virtual CPU (it waits for it); a
//! Linux virtual CPU runs its processes' streams and keeps one request in
//! flight per path of each stream, waiting only when every path is busy.

use super::params::{CmsAccess, SeqMode, Workload};
use super::{jittered, us_f, WorkState};
use crate::core::units::{Ns, PAGE};
use crate::model::cpu::{Burst, Outcome};
use crate::model::io::{DevKind, Kind, Origin, Request};
use crate::model::mdc::{Lookup, StageReq};
use crate::model::{Cx, Model};

/// A CMS workload's place on its minidisk.
#[derive(Clone, Debug)]
pub struct CmsState {
    /// 0 compute, 1 do the I/O, 2 after it.
    pub phase: u8,
    pub vol: u32,
    /// First block of the minidisk on the volume, and its blocks.
    pub base: u64,
    pub blocks: u64,
    /// Blocks per minidisk-cache unit (12: a 3390 track; 1: FBA).
    pub unit: u32,
    /// The next block of the file (file access).
    pub pos: u64,
    /// The I/O just done ended a pass over the file.
    pub file_done: bool,
    /// I/Os of the current request still to issue (`ios_per_request`).
    pub left: u32,
    /// I/Os of the current request in flight: the virtual CPU waits until
    /// the last one ends.
    pub inflight: u32,
}

/// One Linux process: its volume and paths, and the requests in flight on
/// them (one per path at most).
#[derive(Clone, Debug)]
pub struct Stream {
    pub vol: u32,
    pub paths: u8,
    /// Paths with a request in flight (bit k: path k).
    pub busy: u8,
    pub next_path: u8,
}

/// A Linux virtual CPU's processes.
#[derive(Clone, Debug)]
pub struct LinuxState {
    pub streams: Vec<Stream>,
    /// Where the search for a stream with a free path starts.
    pub rr: usize,
    /// The block layer's request size.
    pub request: u32,
}

impl Stream {
    #[inline]
    fn free_path(&self) -> Option<u8> {
        (0..self.paths)
            .map(|k| (self.next_path + k) % self.paths)
            .find(|&p| self.busy & (1 << p) == 0)
    }
}

impl LinuxState {
    fn can_issue(&self) -> bool {
        self.streams.iter().any(|s| s.free_path().is_some())
    }
}

/// Blocks per minidisk-cache unit of a volume of kind `k`.
pub fn unit_blocks(k: DevKind) -> u32 {
    match k {
        DevKind::Eckd => crate::model::io::params::PAGES_PER_TRACK,
        DevKind::Fba | DevKind::Edev => 1,
    }
}

impl Model {
    /// One burst of a CMS workload on virtual CPU `v` of guest `g`.
    pub(super) fn cms_burst(
        &mut self,
        cx: &mut Cx,
        v: u32,
        g: u32,
        w: &Workload,
        budget: Ns,
        b: &mut Burst,
    ) {
        let Workload::Cms {
            access,
            file_blocks,
            blocks_per_io,
            write_share,
            hot_fraction,
            hot_share,
            cpu_per_io_us,
            think,
            ios_per_request,
            ..
        } = w
        else {
            unreachable!()
        };
        let vi = v as usize;
        let vw = &mut self.work.vcpus[vi];
        let WorkState::Cms(s) = &mut vw.work else {
            unreachable!()
        };
        match s.phase {
            0 => {
                s.phase = 1;
                s.left = *ios_per_request;
                b.virt = us_f(*cpu_per_io_us).min(budget);
                b.outcome = Outcome::Slice;
            }
            1 => {
                // One I/O of the request per burst (one SSCH each); the
                // burst that issues the last one waits for all of them.
                s.left = s.left.saturating_sub(1);
                let last = s.left == 0;
                if last {
                    s.phase = 2;
                }
                // Running on after an SSCH of a request with more to issue;
                // after the last, waiting for any still in flight.
                let after_io = if last {
                    Outcome::IoWait
                } else {
                    Outcome::Slice
                };
                let (first, n) = match access {
                    CmsAccess::File => {
                        let n = (*blocks_per_io as u64).min(*file_blocks as u64 - s.pos);
                        let first = s.pos;
                        s.pos += n;
                        s.file_done = s.pos >= *file_blocks as u64;
                        if s.file_done {
                            s.pos = 0;
                        }
                        (first, n as u32)
                    }
                    CmsAccess::Random => {
                        let rng = &mut vw.rng;
                        let hot = ((s.blocks as f64 * hot_fraction) as u64).max(1);
                        let b0 = if rng.f64() < *hot_share {
                            rng.next_u64() % hot
                        } else {
                            rng.next_u64() % s.blocks
                        };
                        let n = (*blocks_per_io as u64).min(s.blocks - b0);
                        (b0, n as u32)
                    }
                };
                let write = *write_share > 0.0 && vw.rng.f64() < *write_share;
                let (vol, block, unit) = (s.vol, s.base + first, s.unit);
                cx.charge.cp +=
                    self.work.costs.virtual_io + self.io.cp_extra(vol, Kind::Minidisk, n);
                self.cpu.count_virtual_io(v);
                let plain = Origin::Minidisk { vcpu: v };
                if write {
                    s.inflight += 1;
                    self.mdc.write(vol, g);
                    b.io =
                        Some(
                            self.io
                                .alloc_req(cx, vol, Request::write(n, Kind::Minidisk), plain),
                        );
                    b.outcome = after_io;
                    return;
                }
                match self.mdc.read(cx.now(), vol, g, unit, block, n) {
                    Lookup::Hit { cp } => {
                        // No real I/O: CP copies the blocks from the cache.
                        cx.charge.cp += cp;
                        b.outcome = if last && s.inflight > 0 {
                            Outcome::IoWait
                        } else {
                            Outcome::Slice
                        };
                    }
                    Lookup::Miss {
                        first,
                        units,
                        insert: true,
                    } => {
                        s.inflight += 1;
                        b.io = Some(self.mdc_stage_read(cx, vol, first, units, unit, g, v));
                        b.outcome = after_io;
                    }
                    Lookup::Miss { .. } | Lookup::Bypass => {
                        s.inflight += 1;
                        b.io = Some(self.io.alloc_req(
                            cx,
                            vol,
                            Request::read(n, Kind::Minidisk),
                            plain,
                        ));
                        b.outcome = after_io;
                    }
                }
            }
            _ => {
                s.phase = 0;
                let pause = match access {
                    CmsAccess::File if s.file_done => think.0,
                    CmsAccess::File => 0,
                    CmsAccess::Random => think.0,
                };
                b.outcome = if pause > 0 {
                    Outcome::Think(jittered(pause, &mut vw.rng))
                } else {
                    Outcome::Slice
                };
            }
        }
    }

    /// A guest's minidisk I/O (or the minidisk cache's staging it waits
    /// for) on virtual CPU `v` ended: a CMS request with several I/Os wakes
    /// its virtual CPU when the last of them has ended and all are issued.
    pub(crate) fn minidisk_io_done(&mut self, v: u32) {
        if let WorkState::Cms(s) = &mut self.work.vcpus[v as usize].work {
            s.inflight = s.inflight.saturating_sub(1);
            if s.inflight > 0 || s.left > 0 {
                return;
            }
        }
        self.cpu.io_wait_over(v);
    }

    /// One burst of CMS FORMAT on virtual CPU `v`.
    pub(super) fn format_burst(
        &mut self,
        cx: &mut Cx,
        v: u32,
        w: &Workload,
        budget: Ns,
        b: &mut Burst,
    ) {
        let Workload::CmsFormat {
            blocks_per_io,
            write_same_blocks,
            cpu_per_io_us,
            ..
        } = w
        else {
            unreachable!()
        };
        let vi = v as usize;
        let WorkState::Cms(s) = &mut self.work.vcpus[vi].work else {
            unreachable!()
        };
        if s.pos >= s.blocks {
            b.outcome = Outcome::Idle;
            return;
        }
        match s.phase {
            0 => {
                s.phase = 1;
                b.virt = us_f(*cpu_per_io_us).min(budget);
                b.outcome = Outcome::Slice;
            }
            _ => {
                s.phase = 0;
                let vol = s.vol;
                let kind = self.io.def(vol).kind;
                let same = kind == DevKind::Edev && self.io.write_same();
                let per = if same {
                    *write_same_blocks as u64
                } else {
                    blocks_per_io.unwrap_or(if kind == DevKind::Eckd { 12 } else { 16 }) as u64
                };
                let n = per.min(s.blocks - s.pos) as u32;
                s.pos += n as u64;
                let rq = if same {
                    // One block moves; the server writes the range.
                    Request {
                        span: n * PAGE as u32,
                        seq: true,
                        ..Request::write(1, Kind::Minidisk)
                    }
                } else {
                    Request {
                        seq: true,
                        ..Request::write(n, Kind::Minidisk)
                    }
                };
                let moved = if same { 1 } else { n };
                cx.charge.cp +=
                    self.work.costs.virtual_io + self.io.cp_extra(vol, Kind::Minidisk, moved);
                self.cpu.count_virtual_io(v);
                b.io = Some(self.io.alloc_req(cx, vol, rq, Origin::Minidisk { vcpu: v }));
                b.outcome = Outcome::IoWait;
            }
        }
    }

    /// One burst of a Linux virtual CPU running sequential file I/O: the CPU
    /// for one request and the request, on the first stream with a free path.
    pub(super) fn linux_burst(
        &mut self,
        cx: &mut Cx,
        v: u32,
        w: &Workload,
        budget: Ns,
        b: &mut Burst,
    ) {
        let Workload::LinuxSeq {
            mode,
            cpu_per_mb_us,
            ..
        } = w
        else {
            unreachable!()
        };
        let vi = v as usize;
        let WorkState::Linux(s) = &mut self.work.vcpus[vi].work else {
            unreachable!()
        };
        let n = s.streams.len();
        let found = (0..n)
            .map(|k| (s.rr + k) % n)
            .find_map(|i| s.streams[i].free_path().map(|p| (i, p)));
        let Some((i, path)) = found else {
            b.outcome = Outcome::IoWait;
            return;
        };
        s.rr = (i + 1) % n;
        let st = &mut s.streams[i];
        st.busy |= 1 << path;
        st.next_path = (path + 1) % st.paths;
        let bytes = s.request;
        let vol = st.vol;
        b.virt = ((bytes as f64 / 1e6 * cpu_per_mb_us * 1_000.0) as Ns).clamp(1, budget);
        let rq = Request {
            pages: bytes.div_ceil(PAGE as u32),
            bytes,
            span: bytes,
            write: *mode == SeqMode::Write,
            seq: true,
            kind: Kind::Dedicated { expo: path },
        };
        let pages = rq.pages;
        let origin = Origin::Linux {
            vcpu: v,
            stream: i as u16,
            path: path as u16,
        };
        b.io = Some(self.io.alloc_req(cx, vol, rq, origin));
        cx.charge.cp += self.work.costs.virtual_io + self.io.cp_extra(vol, Kind::Minidisk, pages);
        self.cpu.count_virtual_io(v);
        let more = s.can_issue();
        b.outcome = if more {
            Outcome::Slice
        } else {
            Outcome::IoWait
        };
    }

    /// A Linux request on `stream`'s `path` of virtual CPU `v` completed.
    pub(crate) fn linux_io_done(&mut self, v: u32, stream: u16, path: u16) {
        if let WorkState::Linux(s) = &mut self.work.vcpus[v as usize].work {
            if let Some(st) = s.streams.get_mut(stream as usize) {
                st.busy &= !(1 << path);
            }
        }
        self.cpu.io_wait_over(v);
    }
}

impl Model {
    /// A read miss that MDC inserts: `units` cache units of `unit` pages from
    /// unit `first` of volume `vol` are staged for guest `g`'s virtual CPU
    /// `v`; returns the staging read's I/O request (the burst waits on it).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn mdc_stage_read(
        &mut self,
        cx: &mut Cx,
        vol: u32,
        first: u32,
        units: u32,
        unit: u32,
        g: u32,
        v: u32,
    ) -> u32 {
        let slot = self.mdc.begin_stage(StageReq {
            vol,
            first,
            units,
            unit_pages: unit,
            guest: g,
            vcpu: v,
            insert: true,
        });
        let rq = Request::read(units * unit, Kind::Mdc);
        self.io.alloc_req(cx, vol, rq, Origin::Mdc { slot })
    }
}
