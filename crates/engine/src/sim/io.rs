//! Wiring of the I/O subsystems: each is built by its own constructor, and what one needs of
//! another (the volumes an alias pool serves, the devices a channel path reaches, the minidisks
//! PAV binds aliases to) is handed to it here as device lists, so that no I/O subsystem names
//! another.

use crate::channel::{ChannelsSummary, Xfer};
use crate::entity::Entity;
use crate::hyperpav::{AliasPool, HyperPavSummary, TypeFigures};
use crate::pav::PavSummary;
use crate::sim::Sim;

/// The run's I/O configuration, each part built by its own subsystem: real storage and the
/// paging volumes, the minidisk volumes, the HyperPAV alias pool over them, the channel paths
/// they are reached through, and static or dynamic PAV.
pub(crate) struct IoSubsystems {
    pub paging: Option<Box<crate::paging::Paging>>,
    pub dasd: Option<Box<crate::dasd::Dasd>>,
    pub aliases: Option<crate::hyperpav::AliasPool>,
    pub chan: Option<Box<crate::channel::ChanState>>,
    pub pav: Option<Box<crate::pav::Pav>>,
}

impl IoSubsystems {
    pub fn for_config(
        cfg: &crate::config::Config,
        params: &crate::params::Params,
        level: &crate::level::Level,
    ) -> Result<IoSubsystems, String> {
        let mut paging = crate::paging::Paging::for_config(cfg, params, level).map(Box::new);
        let sw = &level.switches;
        let mut dasd = crate::dasd::Dasd::new(&cfg.guests, params, sw, cfg.seed, cfg.mdc.as_ref())?
            .map(Box::new);
        let paging_devs = paging.as_deref().map(|p| p.devices());
        let minidisk_devs = dasd.as_deref().map(|d| d.devices());
        let aliases = AliasPool::for_config(cfg, level, paging_devs, minidisk_devs);
        let volumes = paging.iter_mut().flat_map(|p| p.devices_mut().iter_mut());
        let volumes = volumes.chain(dasd.iter_mut().flat_map(|d| d.devices_mut().iter_mut()));
        let chan = crate::channel::channels_for(cfg, params, sw, volumes)?.map(Box::new);
        if cfg.pav.is_some() && cfg.hyperpav.is_some() {
            return Err("a control unit has HyperPAV or static/dynamic PAV, not both".into());
        }
        let minidisks = dasd.as_deref_mut().map(|d| d.devices_mut());
        let pav = crate::pav::pav_for(cfg, params, minidisks)?.map(Box::new);
        Ok(IoSubsystems {
            paging,
            dasd,
            aliases,
            chan,
            pav,
        })
    }

    /// Storage admission's view of real storage: frames and paging exposures (None without
    /// a storage model).
    pub fn storage_view(&self) -> Option<(u64, usize)> {
        self.paging.as_ref().map(|p| (p.frames(), p.exposures()))
    }

    /// How many event entities each subsystem has, with the LPAR's logical processors and the
    /// guests' virtual CPUs.
    pub fn entity_counts(&self, lpus: u32, vcpus: u32) -> crate::entity::Counts {
        crate::entity::Counts {
            lpus,
            vcpus,
            paging_devices: self.paging.as_ref().map_or(0, |p| p.exposures() as u32),
            minidisks: self.dasd.as_ref().map_or(0, |d| d.devices().len() as u32),
            channels: self.chan.as_ref().map_or(0, |c| c.ch.paths.len() as u32),
        }
    }
}

/// The channel subsystem's wiring: the volumes' starts go to their control unit's paths, and
/// the paths' completed connects back to the volumes.
impl Sim {
    /// The device whose event entity is `ent` (a paging volume or a minidisk volume).
    fn chan_device(&mut self, ent: u32) -> &mut crate::io::Device {
        match self.q.owner(ent) {
            Entity::PagingDevice(d) => self.paging.as_mut().expect("paging").device_mut(d),
            Entity::Minidisk(d) => self.dasd.as_mut().expect("dasd").device_mut(d),
            e => unreachable!("a transfer's entity is a volume, not {e:?}"),
        }
    }

    fn chan_schedule(&mut self, p: usize) {
        let c = self.chan.as_ref().expect("channels");
        match c.ch.paths[p].next_event() {
            Some(t) => self.q.schedule(Entity::Channel(p as u32), t),
            None => self.q.cancel(Entity::Channel(p as u32)),
        }
    }

    /// After the run's setup: the I/Os started at time 0 go to the channel subsystem, and
    /// shared paths expect the other LPARs' first starts.
    pub(crate) fn io_after_event(&mut self) {
        let Some(c) = self.chan.as_ref() else { return };
        for p in 0..c.ch.paths.len() {
            self.chan_schedule(p);
        }
        self.chan_pump();
    }

    /// Hand the I/Os the devices started to the
    /// channel subsystem (each asks for a path of its control unit's group).
    pub(crate) fn chan_pump(&mut self) {
        let now = self.now;
        let mut starts = Vec::new();
        let kinds: [fn(u32) -> Entity; 2] = [Entity::PagingDevice, Entity::Minidisk];
        let pg = self.paging.as_mut().map(|p| p.devices_mut());
        let dd = self.dasd.as_mut().map(|d| d.devices_mut());
        for (devs, kind) in [pg, dd].into_iter().zip(kinds) {
            for (i, d) in devs.into_iter().flatten().enumerate() {
                for s in d.chan_out.drain(..) {
                    starts.push((self.q.id(kind(i as u32)), d.chan.unwrap_or(0), s));
                }
            }
        }
        for (ent, cu, s) in starts {
            let c = self.chan.as_mut().expect("channels");
            let bytes = s.pages as u64 * 4096;
            let ccws = s.pages as f64 + c.ccws_fixed;
            let x = Xfer {
                ent,
                seq: s.seq,
                work: c.cost.work(bytes as f64, ccws),
                bytes,
                asked: now,
                granted: now,
            };
            if let Some(p) = c.ch.request(cu as usize, now, x) {
                self.chan_schedule(p);
            }
        }
    }

    /// Channel path `p`'s event: connects that ended; their devices learn when the I/Os
    /// complete, and the path takes starts pending.
    pub(crate) fn chan_event(&mut self, p: u32) {
        let now = self.now;
        let c = self.chan.as_mut().expect("channels");
        let done = c.ch.complete(p as usize, now);
        let ccws_fixed = c.ccws_fixed;
        let (interlock, null) = (c.interlock_ns, c.null_ns);
        for x in done {
            let pages = x.bytes as f64 / 4096.0;
            let extra_conn = interlock * (pages + ccws_fixed - 1.0).max(0.0);
            let d = self.chan_device(x.ent);
            d.connect_done(now, x.seq, x.granted - x.asked, null, extra_conn);
            if let Some(t) = d.next_completion() {
                let e = self.q.owner(x.ent);
                self.q.schedule(e, t);
            }
        }
        self.chan_schedule(p as usize);
    }

    pub fn channel_summary(&self) -> Option<ChannelsSummary> {
        Some(self.chan.as_ref()?.summary(self.now))
    }
}

/// HyperPAV's wiring: the alias pool lends aliases to the paging and minidisk volumes.
impl Sim {
    /// The volume of a pool member (a paging or a minidisk volume).
    fn pool_volume(&mut self, e: Entity) -> &mut crate::io::Device {
        match e {
            Entity::PagingDevice(d) => self.paging.as_mut().expect("paging").device_mut(d),
            Entity::Minidisk(d) => self.dasd.as_mut().expect("dasd").device_mut(d),
            e => unreachable!("a pool member is a volume, not {e:?}"),
        }
    }

    /// After an I/O was queued or completed on a pool volume: volumes holding aliases they have
    /// nothing to start on give them back, then free aliases go to waiting I/O (the type
    /// furthest below its entitlement first), each started at once.
    pub(crate) fn alias_kick(&mut self) {
        let Some(mut pool) = self.aliases.take() else {
            return;
        };
        let now = self.now;
        for m in 0..pool.members.len() {
            let (e, k) = pool.members[m];
            for _ in 0..self.pool_volume(e).aliases_returned() {
                pool.give_back(k, now);
            }
        }
        let mut queued = vec![0; pool.members.len()];
        loop {
            for (m, &(e, _)) in pool.members.iter().enumerate() {
                queued[m] = self.pool_volume(e).queued();
            }
            let Some(m) = pool.grant(&queued) else {
                break;
            };
            let (e, k) = pool.members[m];
            pool.take(k, now);
            if let Some(t) = self.pool_volume(e).lend_alias(now) {
                self.q.schedule(e, t);
            }
        }
        self.aliases = Some(pool);
    }

    /// I/Os that queued on their volume (no exposure free), by pool type, over the pool's
    /// volumes (run summary's `refused`, monitor D6R28).
    pub(crate) fn alias_queued(&self) -> [u64; 2] {
        let mut queued = [0u64; 2];
        let Some(pool) = self.aliases.as_ref() else {
            return queued;
        };
        for &(e, k) in &pool.members {
            let d = match e {
                Entity::PagingDevice(d) => {
                    &self.paging.as_ref().expect("paging").devices()[d as usize]
                }
                Entity::Minidisk(d) => &self.dasd.as_ref().expect("dasd").devices()[d as usize],
                _ => continue,
            };
            queued[k] += d.stats.queued;
        }
        queued
    }

    pub fn hyperpav_summary(&self) -> Option<HyperPavSummary> {
        let pool = self.aliases.as_ref()?;
        let mut s = pool.summary(self.now);
        let queued = self.alias_queued();
        s.refused = TypeFigures {
            paging: queued[0] as f64,
            minidisk: queued[1] as f64,
        };
        Some(s)
    }
}

/// Static and dynamic PAV's wiring: the mover rebinds aliases between minidisk volumes.
impl Sim {
    /// Dynamic PAV's mover, before the first event at or after the end of its period.
    pub(crate) fn pav_pass(&mut self) {
        let (Some(pav), Some(d)) = (self.pav.as_mut(), self.dasd.as_mut()) else {
            return;
        };
        if let Some((vol, t)) = pav.pass(self.now, d.devices_mut()) {
            self.q.schedule(Entity::Minidisk(vol), t);
        }
    }

    pub fn pav_summary(&self) -> Option<PavSummary> {
        Some(self.pav.as_ref()?.summary(self.dasd.as_ref()?.devices()))
    }
}
