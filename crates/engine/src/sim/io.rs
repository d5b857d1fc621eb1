//! Wiring of the I/O subsystems: each is built by its own constructor, and what one needs of
//! another (the volumes an alias pool serves, the devices a channel path reaches, the minidisks
//! PAV binds aliases to) is handed to it here as device lists, so that no I/O subsystem names
//! another.

use crate::hyperpav::AliasPool;
use crate::io::Device;

/// A subsystem's devices, if it exists.
trait Devices {
    fn devices(&self) -> &[Device];
}

impl Devices for crate::paging::Paging {
    fn devices(&self) -> &[Device] {
        &self.devs
    }
}

impl Devices for crate::dasd::Dasd {
    fn devices(&self) -> &[Device] {
        &self.devs
    }
}

fn devs<T: Devices>(s: &Option<Box<T>>) -> Option<&[Device]> {
    s.as_deref().map(|x| x.devices())
}

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
        let aliases = AliasPool::for_config(cfg, level, devs(&paging), devs(&dasd));
        let volumes = paging.iter_mut().flat_map(|p| p.devs.iter_mut());
        let volumes = volumes.chain(dasd.iter_mut().flat_map(|d| d.devs.iter_mut()));
        let chan = crate::channel::channels_for(cfg, params, sw, volumes)?.map(Box::new);
        if cfg.pav.is_some() && cfg.hyperpav.is_some() {
            return Err("a control unit has HyperPAV or static/dynamic PAV, not both".into());
        }
        let minidisks = dasd.as_deref_mut().map(|d| &mut d.devs[..]);
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
            minidisks: self.dasd.as_ref().map_or(0, |d| d.devs.len() as u32),
            channels: self.chan.as_ref().map_or(0, |c| c.ch.paths.len() as u32),
        }
    }
}
