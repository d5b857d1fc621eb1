//! Static and dynamic PAV (Parallel Access Volumes), HyperPAV's predecessors (issue 22).
//!
//! A PAV volume has one base exposure and alias exposures of its control unit that map to the
//! same volume, so I/Os through the base and its aliases run at once. With *static* (basic)
//! PAV each alias is bound to one base for good; with *dynamic* PAV workload management moves
//! aliases between the bases of the control unit (z/OS WLM; z/VM does not move them itself, it
//! learns of a move from the control unit's state-change interruption and records it, monitor
//! D6R20 MRIODSTC). z/VM 5.2 with VM63952 uses PAV aliases for minidisk I/O (docs/research/
//! channels.md §4); CP paging does not use basic PAV aliases, so only ECKD minidisk volumes
//! are PAV volumes here. HyperPAV (hyperpav.rs) binds an alias for one I/O instead.
//!
//! The aliases start spread over the volumes in turn. Dynamic PAV: every
//! `pav.dynamic_move_interval` seconds the mover compares the volumes' queueing for an
//! exposure over the last interval and moves one alias from the volume that queued least (and
//! has an alias) to the one that queued most, when the receiver queued at all and at least
//! twice the donor's time (assumed: WLM's goal-based rule and its hysteresis are not public).

use crate::queue::Time;
use serde::Serialize;

/// Static or dynamic PAV (its words in contract.rs).
pub use crate::contract::PavMode;

/// One alias move (a state change CP records): when, from which volume to which (indexes of
/// the minidisk volumes).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Move {
    pub at: Time,
    pub from: u32,
    pub to: u32,
}

#[derive(Clone, Debug)]
pub struct Pav {
    pub mode: PavMode,
    pub aliases: u32,
    /// The PAV volumes (indexes of the minidisk volumes).
    pub vols: Vec<u32>,
    /// Dynamic: the mover's period, its next pass, the volumes' queue time at the last pass.
    pub period: Time,
    pub next: Time,
    last_queue: Vec<u64>,
    pub moves: Vec<Move>,
}

impl Pav {
    /// Static or dynamic PAV over `vols`; binds the aliases in turn (bases as the index).
    pub fn new(mode: PavMode, aliases: u32, vols: Vec<u32>, period: Time) -> (Pav, Vec<u32>) {
        let bound = if vols.is_empty() {
            Vec::new()
        } else {
            (0..vols.len() as u32)
                .map(|i| aliases / vols.len() as u32 + u32::from(i < aliases % vols.len() as u32))
                .collect()
        };
        let n = vols.len();
        (
            Pav {
                mode,
                aliases,
                vols,
                period: period.max(1),
                next: period.max(1),
                last_queue: vec![0; n],
                moves: Vec::new(),
            },
            bound,
        )
    }

    /// The mover's choice given each volume's queue time since the last pass and its aliases:
    /// (donor, receiver) positions in `vols`, or None.
    pub fn choose(queued: &[u64], bound: &[u32]) -> Option<(usize, usize)> {
        let to = (0..queued.len()).max_by_key(|&i| (queued[i], std::cmp::Reverse(i)))?;
        let from = (0..queued.len())
            .filter(|&i| i != to && bound[i] > 0)
            .min_by_key(|&i| (queued[i], i))?;
        (queued[to] > 0 && queued[to] >= 2 * queued[from]).then_some((from, to))
    }
}

/// PAV in the run summary (`pav`).
#[derive(Clone, Debug, Serialize)]
pub struct PavSummary {
    pub mode: PavMode,
    pub aliases: u32,
    /// Aliases bound to each PAV volume at the end, by volume name.
    pub bound: Vec<(String, u32)>,
    /// State changes: aliases moved by workload management.
    pub moves: u64,
}

/// The PAV of a scenario, or None; binds the aliases to the ECKD minidisk volumes
/// (`minidisks`: the minidisk subsystem's devices, if it exists).
pub fn pav_for(
    cfg: &crate::config::Config,
    p: &crate::params::Params,
    minidisks: Option<&mut [crate::io::Device]>,
) -> Result<Option<Pav>, String> {
    let Some(c) = cfg.pav.as_ref() else {
        return Ok(None);
    };
    let mode = c.mode;
    let Some(d) = minidisks else {
        return Err("PAV aliases without ECKD minidisk volumes".into());
    };
    let vols: Vec<u32> = (0..d.len() as u32)
        .filter(|&i| d[i as usize].dtype == crate::io::DevType::Eckd)
        .collect();
    if vols.is_empty() {
        return Err("PAV aliases without ECKD minidisk volumes".into());
    }
    let period = (p.pav_move_interval() * 1e9) as Time;
    let (pav, bound) = Pav::new(mode, c.aliases, vols, period);
    for (&v, b) in pav.vols.iter().zip(bound) {
        d[v as usize].bound = b;
    }
    Ok(Some(pav))
}

impl Pav {
    /// Dynamic PAV's mover at `now` over the minidisk volumes `devs`: at the end of each period
    /// one alias moves from the volume that queued least to the one that queued most. Returns
    /// the volume that started an I/O on the alias it got, and when that I/O completes.
    pub fn pass(&mut self, now: Time, devs: &mut [crate::io::Device]) -> Option<(u32, Time)> {
        if self.mode != PavMode::Dynamic || now < self.next {
            return None;
        }
        self.next = now + self.period;
        let q: Vec<u64> = self
            .vols
            .iter()
            .zip(&self.last_queue)
            .map(|(&v, &l)| devs[v as usize].stats.queue_ns - l)
            .collect();
        for (i, &v) in self.vols.iter().enumerate() {
            self.last_queue[i] = devs[v as usize].stats.queue_ns;
        }
        let bound: Vec<u32> = self.vols.iter().map(|&v| devs[v as usize].bound).collect();
        let (from, to) = Pav::choose(&q, &bound)?;
        let (vf, vt) = (self.vols[from], self.vols[to]);
        self.moves.push(Move {
            at: now,
            from: vf,
            to: vt,
        });
        devs[vf as usize].bound -= 1;
        let dev = &mut devs[vt as usize];
        if dev.bind_alias(now) {
            return dev.next_completion().map(|t| (vt, t));
        }
        None
    }

    /// The run summary's `pav`, over the minidisk volumes `devs`.
    pub fn summary(&self, devs: &[crate::io::Device]) -> PavSummary {
        PavSummary {
            mode: self.mode,
            aliases: self.aliases,
            bound: self
                .vols
                .iter()
                .map(|&v| {
                    let x = &devs[v as usize];
                    (x.name.clone(), x.bound)
                })
                .collect(),
            moves: self.moves.len() as u64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_are_spread_in_turn() {
        let (_, b) = Pav::new(PavMode::Static, 7, vec![0, 1, 2], 1);
        assert_eq!(b, vec![3, 2, 2]);
        let (_, b) = Pav::new(PavMode::Static, 2, vec![0, 1, 2], 1);
        assert_eq!(b, vec![1, 1, 0]);
    }

    #[test]
    fn the_mover_takes_from_the_least_queued_volume_with_an_alias() {
        // Volume 2 queued most; volume 1 least but has no alias: the donor is volume 0.
        assert_eq!(Pav::choose(&[10, 0, 50], &[1, 0, 1]), Some((0, 2)));
        // No queueing anywhere, or not twice the donor's: no move.
        assert_eq!(Pav::choose(&[0, 0, 0], &[1, 1, 1]), None);
        assert_eq!(Pav::choose(&[30, 40], &[1, 1]), None);
    }
}
