//! CP's below-2GB frame requests at a page fault (seed 003, rows D1 and D2; research note
//! docs/research/where-cp-breaks.md §3.5, §7.7, §7.8).
//!
//! A page-in needs `storage.below2g_per_paging_io` frames below the 2 GB line for its control
//! blocks. When the below-2GB available list has one, CP takes it at once. When it is empty
//! (z/VM 6.1's elective placement lets user pages and MDC fill every below-2GB frame, switch
//! `below2g`) the request is deferred (the 6.2 RSMBK's deferred frame request queue, RSADefFRQ):
//! - the below-2GB demand scan, one task, serves deferred requests in turn; each search examines
//!   frames until it meets a user or MDC frame below the line (`RealStorage::cp_take_below`) and
//!   its time is system time run by the next processor that dispatches (`Paging::below_scan`);
//! - a frame taken from a user page holds a changed page: it is written out (one page-out I/O)
//!   before CP can use the frame, so the request also waits for that write;
//! - the faulting virtual CPU's page-in starts only when both are done; the requesting
//!   processor does not spin, it runs other work.
//!
//! Without elective placement (6.2 on) the list is rarely empty and none of this happens.

pub(crate) fn set<T: Clone + Default>(v: &mut Vec<T>, i: u32, x: T) {
    if v.len() <= i as usize {
        v.resize(i as usize + 1, T::default());
    }
    v[i as usize] = x;
}

pub(crate) fn get<T: Copy + Default>(v: &[T], i: u32) -> T {
    v.get(i as usize).copied().unwrap_or_default()
}
