//! A MONWRITE file mapped into memory read-only, for readers that go through
//! it once from start to end (the interval kernel): [`map_file`] and
//! [`PageRelease`], which gives the pages already read back and asks the
//! next ones into the cache. Unix only (`mmap`, `madvise`).

use std::fs::File;

/// A file mapped into memory read-only (`mmap`), unmapped when dropped.
pub struct Mapped {
    ptr: *mut libc::c_void,
    len: usize,
}

// The mapping is read-only and owned: it may move to and be read from any thread.
unsafe impl Send for Mapped {}
unsafe impl Sync for Mapped {}

impl AsRef<[u8]> for Mapped {
    fn as_ref(&self) -> &[u8] {
        // SAFETY: `ptr` maps `len` readable bytes until `drop`.
        unsafe { std::slice::from_raw_parts(self.ptr as *const u8, self.len) }
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `map_file`, unmapped once.
        unsafe {
            libc::munmap(self.ptr, self.len);
        }
    }
}

/// `file` mapped into memory, `None` when it cannot be (not a regular file,
/// empty, or mmap refused): the caller reads it through `read()` instead.
///
/// Mapping saves the copy of every byte from the page cache that `read()`
/// makes (a fifth of the interval kernel's time on a large file). The
/// length is fixed when mapping: a file that grows is read up to that length
/// (as the buffered reader does); a file cut shorter by another process
/// while it is read would raise SIGBUS, so MONWRITE files being rewritten
/// in place should not be read while that happens.
pub fn map_file(file: &File) -> Option<Mapped> {
    use std::os::fd::AsRawFd;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() == 0 || meta.len() > usize::MAX as u64 {
        return None;
    }
    let len = meta.len() as usize;
    // SAFETY: a read-only private mapping of an open file; checked below.
    let ptr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_PRIVATE,
            file.as_raw_fd(),
            0,
        )
    };
    if ptr == libc::MAP_FAILED {
        return None;
    }
    // SAFETY: advice on the mapping just made.
    unsafe {
        libc::madvise(ptr, len, libc::MADV_SEQUENTIAL);
    }
    Some(Mapped { ptr, len })
}

/// Pages of a mapping already read, given back as the reader moves on, so
/// that the mapped file does not accumulate in the process's resident memory
/// (the page cache keeps them; a page touched again is simply mapped again).
pub struct PageRelease {
    addr: usize,
    len: usize,
    done: usize,
    /// Bytes up to here have been prefetched ([`PREFETCH_AHEAD`]).
    ahead: usize,
}

/// The reader's bytes this far ahead of it are asked into the cache
/// (`prefetcht0` per 64-byte line): the hardware prefetcher stops at each
/// 4 KiB page, and the first touch of a page's lines (the frame's control
/// record check, the kernel's copy of a record) otherwise waits for memory.
const PREFETCH_AHEAD: usize = 4096;

/// Release in steps of this many bytes, this far behind the reader.
const RELEASE_STEP: usize = 8 << 20;
const RELEASE_BEHIND: usize = 2 << 20;

impl PageRelease {
    /// Nothing released or prefetched yet, over mapping `m`.
    pub fn new(m: &Mapped) -> PageRelease {
        PageRelease {
            addr: m.ptr as usize,
            len: m.len,
            done: 0,
            ahead: 0,
        }
    }

    /// The reader is at byte `offset`.
    #[inline]
    pub fn at(&mut self, offset: u64) {
        let off = offset as usize;
        let want = (off + PREFETCH_AHEAD).min(self.len);
        while self.ahead < want {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: a prefetch hint for an address inside the mapping; it
            // reads nothing and cannot fault.
            unsafe {
                use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
                _mm_prefetch::<_MM_HINT_T0>((self.addr + self.ahead) as *const i8);
            }
            self.ahead += 64;
        }
        if off < self.done + RELEASE_STEP + RELEASE_BEHIND {
            return;
        }
        self.release((off - RELEASE_BEHIND) & !0xFFFF);
    }

    #[cold]
    fn release(&mut self, upto: usize) {
        let upto = upto.min(self.len);
        if upto > self.done {
            // SAFETY: a range inside the read-only private mapping; dropping
            // its pages only makes a later access read them again.
            unsafe {
                libc::madvise(
                    (self.addr + self.done) as *mut libc::c_void,
                    upto - self.done,
                    libc::MADV_DONTNEED,
                );
            }
            self.done = upto;
        }
    }
}
