//! Real storage's frames by use, for CP's QUERY FRAMES: a read-only count
//! over the frame table, made only when the command is issued (never on a
//! hot path).

use super::lock::F_PIN;
use super::{Storage, FREE, F_LOCK, MDC_OWNER, SEG_OWNER};

/// Frames below 2 GB of central storage (the first 524,288).
pub const FRAMES_2G: u32 = 1 << 19;

/// Frames of one part of central storage (below or above 2 GB) by use; the
/// seven counts add up to the part's frames.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameUse {
    /// On the available list (freed, or never taken yet).
    pub avail: u64,
    /// Holding a guest's page (or a VDISK's), no I/O in flight.
    pub guest: u64,
    /// Holding a guest's page with paging I/O in flight (locked for the
    /// read or the page-out write; not stealable).
    pub locked_io: u64,
    /// Holding a guest's page pinned by CP's LOCK command (I/O in flight
    /// or not): CP's `LockedCmd` frames.
    pub locked_cmd: u64,
    /// Holding a saved segment's page.
    pub segment: u64,
    /// Lent to the minidisk cache.
    pub mdc: u64,
    /// CP's fixed storage (nucleus, free storage, trace: not pageable).
    pub cp: u64,
}

impl FrameUse {
    pub fn total(&self) -> u64 {
        self.avail
            + self.guest
            + self.locked_io
            + self.locked_cmd
            + self.segment
            + self.mdc
            + self.cp
    }
}

/// Frames `a..b` split at 2 GB: (below, above).
fn split(a: u32, b: u32) -> [u64; 2] {
    let below = b.min(FRAMES_2G).saturating_sub(a.min(FRAMES_2G)) as u64;
    [below, (b - a) as u64 - below]
}

impl Storage {
    /// Central storage's frames by use now, below 2 GB (`[0]`) and above
    /// (`[1]`). CP's fixed frames are the lowest; frames never taken are on
    /// the available list.
    pub(crate) fn frame_use(&self) -> [FrameUse; 2] {
        let mut u = [FrameUse::default(); 2];
        let cp = split(0, self.fixed);
        let never = split(self.fresh, self.total);
        for k in 0..2 {
            u[k].cp = cp[k];
            u[k].avail = never[k];
        }
        for f in self.fixed..self.fresh {
            let part = &mut u[(f >= FRAMES_2G) as usize];
            match self.frames[f as usize].owner {
                FREE => part.avail += 1,
                SEG_OWNER => part.segment += 1,
                MDC_OWNER => part.mdc += 1,
                _ if self.flags[f as usize] & F_PIN != 0 => part.locked_cmd += 1,
                _ if self.flags[f as usize] & F_LOCK != 0 => part.locked_io += 1,
                _ => part.guest += 1,
            }
        }
        u
    }

    /// Frames of central storage.
    pub(crate) fn frames_total(&self) -> u32 {
        self.total
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{params, FakePager};
    use super::*;
    use crate::core::units::SEC;
    use crate::model::{Core, Cx};

    /// The counts partition each part and agree with storage's own counts:
    /// the available list, the guest's resident pages, the frames lent to
    /// the cache, the segment frames, CP's fixed frames; central storage
    /// above 2 GB has its own part (3 GB: the frames above 2 GB never taken
    /// are available there).
    #[test]
    fn frames_by_use_add_up_below_and_above_2g() {
        let mut pager = FakePager::default();
        let mut p = params(0);
        p.central_storage = 3 << 30;
        p.cp_fixed = 64 << 20;
        let mut st = Storage::new(&p, 1, &[8192]);
        let mut core = Core::new(SEC);
        let mut cx = Cx::new(&mut core, 0);
        st.create_space(0);
        for vp in 0..100 {
            let f = st.get_frame(&mut cx, &mut pager, 0, vp).unwrap();
            st.first_touch(0, vp, f);
        }
        // One page being read (its frame locked), two segment frames, 10
        // frames lent to the cache.
        let f = st.get_frame(&mut cx, &mut pager, 0, 100).unwrap();
        st.mark_reading(0, 100, f, 0);
        st.take_segment_frame(&mut cx, &mut pager).unwrap();
        st.take_segment_frame(&mut cx, &mut pager).unwrap();
        assert_eq!(st.lend_mdc(10), 10);
        st.check();
        let u = st.frame_use();
        let fixed = (64u64 << 20) / 4096;
        assert_eq!(
            u[0],
            FrameUse {
                avail: FRAMES_2G as u64 - fixed - 101 - 2 - 10,
                guest: 100,
                locked_io: 1,
                locked_cmd: 0,
                segment: 2,
                mdc: 10,
                cp: fixed,
            }
        );
        assert_eq!(
            u[1],
            FrameUse {
                avail: (1 << 30) / 4096,
                ..FrameUse::default()
            }
        );
        assert_eq!(u[0].total() + u[1].total(), st.frames_total() as u64);
        assert_eq!(u[0].avail + u[1].avail, st.avail_len() as u64);
        assert_eq!(u[0].guest + u[0].locked_io, st.space(0).resident as u64);
        assert_eq!(u[0].segment, st.segment_frames() as u64);
        assert_eq!(u[0].mdc, st.mdc_lent().0);
        // Frames freed go back to the available list.
        st.unlend_mdc(10);
        assert_eq!(st.frame_use()[0].mdc, 0);
        assert_eq!(st.frame_use()[0].avail, FRAMES_2G as u64 - fixed - 101 - 2);
    }
}
