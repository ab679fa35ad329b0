//! The VDISK I/O workload's burst (`Workload::VdiskIo`): guest CPU, one
//! VDISK I/O, think. The I/O is CP's copy between the guest's buffer and the
//! VDISK's address space: each page it moves must be resident first (a
//! write of a never-written page takes a fresh frame, a read of one returns
//! zeros without a frame; a page in XSTOR comes back synchronously; one on
//! paging DASD is read while the guest waits, and the I/O is then issued
//! again). Its CP time and the spin on the VDISK serialisation are the
//! `vdisk` component's.

use super::linux::Got;
use super::params::{VdiskAccess, Workload};
use super::{jittered, us_f, WorkState};
use crate::core::units::{Ns, SEC};
use crate::model::cpu::{Burst, Outcome};
use crate::model::storage::{tag, T_DASD};
use crate::model::{Cx, Model};

/// A virtual CPU's progress in a VDISK workload.
#[derive(Clone, Copy, Debug)]
pub struct VdiskState {
    /// 0 = compute, 1 = the I/O, 2 = think.
    pub phase: u8,
    pub vdev: u16,
    /// Serial access: the next page; passes done.
    pub pos: u64,
    pub passes: u32,
    /// The I/O being issued (first page, pages, write), kept while it
    /// waits for a page to come in.
    pub cur: Option<(u32, u32, bool)>,
}

/// How long a guest whose VDISK does not exist waits before trying again.
const RETRY: Ns = SEC;

impl Model {
    /// One burst of a VDISK workload on virtual CPU `v` of guest `g`.
    pub(super) fn vdisk_burst(
        &mut self,
        cx: &mut Cx,
        v: u32,
        g: u32,
        w: &Workload,
        budget: Ns,
        b: &mut Burst,
    ) {
        let Workload::VdiskIo {
            access,
            pages_per_io,
            write_share,
            hot_fraction,
            hot_share,
            passes,
            cpu_per_io_us,
            think,
            ..
        } = w
        else {
            unreachable!()
        };
        let vi = v as usize;
        let WorkState::Vdisk(s) = self.work.vcpus[vi].work else {
            unreachable!()
        };
        let mut s = s;
        if *passes > 0 && s.passes >= *passes {
            b.outcome = Outcome::Idle;
            return;
        }
        match s.phase {
            0 => {
                s.phase = 1;
                b.virt = us_f(*cpu_per_io_us).min(budget);
                b.outcome = Outcome::Slice;
            }
            1 => {
                let Some(k) = self.vdisk.find(g, s.vdev) else {
                    // Not operational: the device is not (yet) defined.
                    s.phase = 0;
                    b.outcome = Outcome::Think(RETRY);
                    self.work.vcpus[vi].work = WorkState::Vdisk(s);
                    return;
                };
                let (space, pages) = {
                    let d = self.vdisk.disk(k);
                    (d.space, d.pages())
                };
                let (first, n, write) = match s.cur {
                    Some(c) => c,
                    None => {
                        let rng = &mut self.work.vcpus[vi].rng;
                        let n = (*pages_per_io).min(pages);
                        let first = match access {
                            VdiskAccess::Serial => {
                                if s.pos + n as u64 > pages as u64 {
                                    s.pos = 0;
                                }
                                let f = s.pos as u32;
                                s.pos += n as u64;
                                f
                            }
                            VdiskAccess::Random => {
                                let span = pages - n + 1;
                                let hot = ((span as f64 * hot_fraction) as u32).max(1);
                                if rng.f64() < *hot_share {
                                    (rng.next_u64() % hot as u64) as u32
                                } else {
                                    (rng.next_u64() % span as u64) as u32
                                }
                            }
                        };
                        let write =
                            *write_share >= 1.0 || (*write_share > 0.0 && rng.f64() < *write_share);
                        (first, n, write)
                    }
                };
                s.cur = Some((first, n, write));
                // Each page resident (or, for a read, never written).
                let mut faults = 0u32;
                for vp in first..first + n {
                    if tag(self.st.entry(space, vp).e) == T_DASD {
                        self.vdisk.count_fault(k);
                    }
                    match self.cp_page(cx, space, vp, write, v, b) {
                        Some(Got::Xstor) => faults += 1,
                        Some(Got::Was) => {}
                        None => {
                            self.work.vcpus[vi].work = WorkState::Vdisk(s);
                            return;
                        }
                    }
                }
                // The copy: the serialisation (spinning while another CPU
                // holds it), then CP's work for the I/O.
                let t = cx.now() + b.virt + cx.charge.cp + cx.charge.sys;
                // The I/O is synchronous: the spin on the serialisation and
                // CP's work (the hold in it) delay the guest (its burst) and
                // are charged to it.
                cx.charge.cp += self.vdisk.io_cp(k, t, n);
                self.vdisk.count_io(k, n, write, faults);
                self.cpu.count_virtual_io(v);
                s.cur = None;
                s.phase = 2;
                if *access == VdiskAccess::Serial && s.pos >= pages as u64 {
                    s.passes += 1;
                    s.pos = 0;
                }
                b.outcome = Outcome::Slice;
            }
            _ => {
                s.phase = 0;
                b.outcome = if think.0 > 0 {
                    Outcome::Think(jittered(think.0, &mut self.work.vcpus[vi].rng))
                } else {
                    Outcome::Slice
                };
            }
        }
        self.work.vcpus[vi].work = WorkState::Vdisk(s);
    }
}
