//! The table of paging blocks: runs of contiguous slots on one paging volume
//! holding pages written together (block paging).
//!
//! A block lives in one flat `u32` table, its header and its (guest, page)
//! list side by side, so a fault or a released slot costs one cache miss for
//! the block, not one for the header and another for a separately allocated
//! page list (the profile of the S2 day showed both).
//!
//! Layout of block `b`, `stride = HEADER + 2 * block_max` words from `b * stride`:
//! `[vol, first slot, live | n << 8 | writing << 16 | freed << 17, reading request,
//! g0, p0, g1, p1, ...]`.

/// Header words before the page list.
const HEADER: usize = 4;
const W_VOL: usize = 0;
const W_FIRST: usize = 1;
const W_STATE: usize = 2;
const W_READING: usize = 3;
const NO_READ: u32 = u32::MAX;
const WRITING: u32 = 1 << 16;
/// On the free list (so freeing twice is harmless).
const FREED: u32 = 1 << 17;
/// A slot whose page copy is gone.
pub const GONE: (u32, u32) = (u32::MAX, u32::MAX);

pub struct BlockTable {
    stride: usize,
    words: Vec<u32>,
    free: Vec<u32>,
}

impl BlockTable {
    /// A table for blocks of at most `block_max` pages (1 to 255).
    pub fn new(block_max: u32) -> BlockTable {
        debug_assert!((1..=255).contains(&block_max));
        BlockTable {
            stride: HEADER + 2 * block_max as usize,
            words: Vec::new(),
            free: Vec::new(),
        }
    }

    #[inline]
    fn base(&self, b: u32) -> usize {
        b as usize * self.stride
    }

    /// A new block on slots `first..first + pages.len()` of volume `vol`,
    /// all its pages live, not being read.
    pub fn claim(&mut self, vol: u32, first: u32, pages: &[(u32, u32)], writing: bool) -> u32 {
        let n = pages.len();
        debug_assert!(n >= 1 && HEADER + 2 * n <= self.stride);
        let b = match self.free.pop() {
            Some(b) => b,
            None => {
                let b = (self.words.len() / self.stride) as u32;
                self.words.resize(self.words.len() + self.stride, 0);
                b
            }
        };
        let base = self.base(b);
        let w = &mut self.words[base..base + HEADER + 2 * n];
        w[W_VOL] = vol;
        w[W_FIRST] = first;
        w[W_STATE] = n as u32 | (n as u32) << 8 | if writing { WRITING } else { 0 };
        w[W_READING] = NO_READ;
        for (k, &(g, vp)) in pages.iter().enumerate() {
            w[HEADER + 2 * k] = g;
            w[HEADER + 2 * k + 1] = vp;
        }
        b
    }

    /// Start bringing block `b`'s header and page list into the cache.
    #[inline]
    pub fn prefetch(&self, b: u32) {
        crate::model::prefetch(&self.words, self.base(b));
    }

    #[inline]
    pub fn vol(&self, b: u32) -> u32 {
        self.words[self.base(b) + W_VOL]
    }

    #[inline]
    pub fn first(&self, b: u32) -> u32 {
        self.words[self.base(b) + W_FIRST]
    }

    /// Slots in the block (pages written), live or not.
    #[inline]
    pub fn len(&self, b: u32) -> u32 {
        (self.words[self.base(b) + W_STATE] >> 8) & 0xff
    }

    /// Slots whose page copy is still valid (for tests: the model reads it
    /// only through [`BlockTable::maybe_free`]).
    #[cfg(test)]
    pub fn live(&self, b: u32) -> u32 {
        self.words[self.base(b) + W_STATE] & 0xff
    }

    /// The page in slot `k` of the block, or [`GONE`].
    #[inline]
    pub fn page(&self, b: u32, k: u32) -> (u32, u32) {
        let i = self.base(b) + HEADER + 2 * k as usize;
        (self.words[i], self.words[i + 1])
    }

    /// The block's page list: (guest, page) word pairs, one per slot, [`GONE`]
    /// for a slot whose copy is gone.
    #[inline]
    pub fn pages(&self, b: u32) -> &[u32] {
        let base = self.base(b) + HEADER;
        &self.words[base..base + 2 * self.len(b) as usize]
    }

    /// The read request in flight for the block, if any.
    #[inline]
    pub fn reading(&self, b: u32) -> Option<u32> {
        match self.words[self.base(b) + W_READING] {
            NO_READ => None,
            r => Some(r),
        }
    }

    /// The read of block `b` completed: its volume and the read it was.
    #[inline]
    pub fn end_read(&mut self, b: u32) -> (u32, u32) {
        let base = self.base(b);
        let w = &mut self.words[base..base + HEADER];
        let r = std::mem::replace(&mut w[W_READING], NO_READ);
        debug_assert_ne!(r, NO_READ, "no read in flight");
        (w[W_VOL], r)
    }

    #[inline]
    pub fn set_reading(&mut self, b: u32, r: Option<u32>) {
        let i = self.base(b) + W_READING;
        self.words[i] = r.unwrap_or(NO_READ);
    }

    #[inline]
    pub fn writing(&self, b: u32) -> bool {
        self.words[self.base(b) + W_STATE] & WRITING != 0
    }

    #[inline]
    pub fn end_write(&mut self, b: u32) {
        let i = self.base(b) + W_STATE;
        self.words[i] &= !WRITING;
    }

    /// Forget page (g, vp): its slot number on the volume, if the block held it.
    #[inline]
    pub fn drop_page(&mut self, b: u32, g: u32, vp: u32) -> Option<u32> {
        let base = self.base(b);
        let n = ((self.words[base + W_STATE] >> 8) & 0xff) as usize;
        let list = &mut self.words[base + HEADER..base + HEADER + 2 * n];
        let k = list.chunks_exact(2).position(|p| p[0] == g && p[1] == vp)?;
        list[2 * k] = GONE.0;
        list[2 * k + 1] = GONE.1;
        self.words[base + W_STATE] -= 1;
        Some(self.words[base + W_FIRST] + k as u32)
    }

    /// Recycle block `b` if it has no live page and no I/O in flight.
    pub fn maybe_free(&mut self, b: u32) {
        let i = self.base(b) + W_STATE;
        let s = self.words[i];
        if s & (0xff | WRITING | FREED) == 0 && self.reading(b).is_none() {
            self.words[i] |= FREED;
            self.free.push(b);
        }
    }

    /// Each block in use with its volume, first slot and the slots (0-based
    /// within the block) whose copy is live; and a check of the free list.
    #[cfg(any(test, debug_assertions))]
    pub fn check(&self, mut live: impl FnMut(u32, u32, u32)) {
        let blocks = self.words.len() / self.stride;
        let mut free = vec![false; blocks];
        for &b in &self.free {
            assert!(!free[b as usize], "block {b} is free twice");
            free[b as usize] = true;
            assert!(self.words[self.base(b) + W_STATE] & FREED != 0);
        }
        for b in 0..blocks as u32 {
            if free[b as usize] {
                continue;
            }
            let s = self.words[self.base(b) + W_STATE];
            assert!(
                s & FREED == 0,
                "block {b} is marked free but not on the list"
            );
            let n = (s >> 8) & 0xff;
            let mut count = 0;
            for k in 0..n {
                if self.page(b, k) != GONE {
                    live(self.vol(b), self.first(b), k);
                    count += 1;
                }
            }
            assert_eq!(count, s & 0xff, "block {b}: live count");
        }
    }

    /// Blocks in use (allocated and not free).
    #[cfg(test)]
    pub fn in_use(&self) -> usize {
        self.words.len() / self.stride - self.free.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claim_drop_and_recycle() {
        let mut t = BlockTable::new(4);
        let a = t.claim(3, 100, &[(1, 10), (1, 11), (2, 7)], true);
        assert_eq!((t.vol(a), t.first(a), t.len(a), t.live(a)), (3, 100, 3, 3));
        assert!(t.writing(a));
        assert_eq!(t.page(a, 2), (2, 7));
        assert_eq!(t.drop_page(a, 1, 11), Some(101));
        assert_eq!(t.drop_page(a, 1, 11), None, "already gone");
        assert_eq!(t.page(a, 1), GONE);
        assert_eq!(t.live(a), 2);
        t.set_reading(a, Some(9));
        assert_eq!(t.reading(a), Some(9));
        t.end_write(a);
        assert_eq!(t.drop_page(a, 1, 10), Some(100));
        assert_eq!(t.drop_page(a, 2, 7), Some(102));
        t.maybe_free(a);
        assert_eq!(t.in_use(), 1, "still being read");
        t.set_reading(a, None);
        t.maybe_free(a);
        t.maybe_free(a);
        assert_eq!(t.in_use(), 0, "freed once");
        let b = t.claim(0, 5, &[(4, 4)], false);
        assert_eq!(b, a, "recycled");
        assert_eq!(
            (t.len(b), t.live(b), t.reading(b), t.writing(b)),
            (1, 1, None, false)
        );
    }

    #[test]
    fn widest_blocks() {
        let mut t = BlockTable::new(255);
        let pages: Vec<(u32, u32)> = (0..255).map(|k| (k, k * 2)).collect();
        let b = t.claim(1, 0, &pages, false);
        let c = t.claim(2, 255, &pages[..1], false);
        assert_eq!((t.len(b), t.live(b)), (255, 255));
        assert_eq!(t.page(b, 254), (254, 508));
        assert_eq!(t.drop_page(b, 254, 508), Some(254));
        assert_eq!((t.vol(c), t.first(c), t.len(c)), (2, 255, 1));
    }
}
