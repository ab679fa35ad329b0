//! The VDISK component's wiring steps (`Model` methods: they involve
//! storage's address spaces, paging's counters and the console).

use super::Refusal;
use crate::model::{Cx, Model};

impl Model {
    /// Guest `g` defines VDISK `vdev` of `blocks` blocks (`directory`: from
    /// its directory at logon, which USERLIM does not bound): an empty
    /// system-owned address space. The refusal when the limits forbid it.
    pub(crate) fn vdisk_define(
        &mut self,
        cx: &mut Cx,
        g: u32,
        vdev: u16,
        blocks: u64,
        directory: bool,
    ) -> Result<u32, Refusal> {
        if let Err(r) = self.vdisk.can_define(g, vdev, blocks, directory) {
            self.vdisk.refuse(r);
            return Err(r);
        }
        let pages = blocks.div_ceil(8) as u32;
        let space = self.st.create_system_space(pages);
        self.pg.add_space();
        Ok(self
            .vdisk
            .define(g, vdev, blocks, space, cx.now(), directory))
    }

    /// VDISK `k` is detached: its address space and every page of it go
    /// (pages with I/O in flight when the I/O completes).
    pub(crate) fn vdisk_detach(&mut self, k: u32) {
        let space = self.vdisk.detach(k);
        self.st.destroy_system_space(space);
        for vp in 0..self.st.vpages(space) {
            self.discard_page(space, vp);
        }
    }

    /// Guest `g` logs on: the VDISKs of its directory are created (one over
    /// SYSLIM is not, as CP would not: a console message says so).
    pub(crate) fn vdisk_logon(&mut self, cx: &mut Cx, g: u32) {
        for k in 0..self.vdisk_dir[g as usize].len() {
            let (vdev, blocks) = self.vdisk_dir[g as usize][k];
            if let Err(r) = self.vdisk_define(cx, g, vdev, blocks, true) {
                let who = self.cpu.guest(g).userid.to_string();
                let text = crate::model::cp::vdisk_refusal(r, vdev);
                self.console.line(cx.now(), &who, &text);
            }
        }
    }

    /// Guest `g` logs off: its VDISKs are destroyed.
    pub(crate) fn vdisk_logoff(&mut self, g: u32) {
        for k in self.vdisk.owned_by(g) {
            self.vdisk_detach(k);
        }
    }
}
