//! Who owns a pending event: a subsystem and the entity's number within it.
//!
//! The event queue (queue.rs) keeps one slot per entity, numbered densely; `Agenda` is the
//! queue seen through typed keys, so a subsystem schedules `Entity::Vcpu(v)` and the event
//! loop is handed back an `Entity` to route, without either computing entity numbers.
//! Entities are numbered in blocks (the monitor, the command queue, the scheduler, the logical
//! processors, the virtual CPUs, the paging devices, the minidisk volumes, the crypto adapter,
//! the channel paths); the numbering never orders events (ties are FIFO by scheduling order).

use crate::queue::{EventQueue, Time};

/// The owner of a pending event: a subsystem and the entity's number within it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entity {
    Monitor,
    Commands,
    Scheduler,
    Lpu(u32),
    Vcpu(u32),
    PagingDevice(u32),
    Minidisk(u32),
    Crypto,
    Channel(u32),
}

/// How many entities each subsystem has.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Counts {
    pub lpus: u32,
    pub vcpus: u32,
    pub paging_devices: u32,
    pub minidisks: u32,
    pub channels: u32,
}

/// The first entity number of each numbered block.
#[derive(Clone, Copy, Debug)]
struct Layout {
    lpu: u32,
    vcpu: u32,
    pdev: u32,
    mdev: u32,
    crypto: u32,
    chan: u32,
    end: u32,
}

impl Layout {
    fn new(n: Counts) -> Layout {
        let lpu = 3;
        let vcpu = lpu + n.lpus;
        let pdev = vcpu + n.vcpus;
        let mdev = pdev + n.paging_devices;
        let crypto = mdev + n.minidisks;
        let chan = crypto + 1;
        Layout {
            lpu,
            vcpu,
            pdev,
            mdev,
            crypto,
            chan,
            end: chan + n.channels,
        }
    }

    /// The queue's number of entity `e`.
    #[inline(always)]
    fn id(&self, e: Entity) -> u32 {
        match e {
            Entity::Monitor => 0,
            Entity::Commands => 1,
            Entity::Scheduler => 2,
            Entity::Lpu(l) => self.lpu + l,
            Entity::Vcpu(v) => self.vcpu + v,
            Entity::PagingDevice(d) => self.pdev + d,
            Entity::Minidisk(d) => self.mdev + d,
            Entity::Crypto => self.crypto,
            Entity::Channel(p) => self.chan + p,
        }
    }
}

/// The event queue addressed by typed entities.
#[derive(Clone, Debug)]
pub(crate) struct Agenda {
    q: EventQueue,
    layout: Layout,
    /// The entity of each queue number (the inverse of `Layout::id`).
    owner: Vec<Entity>,
}

impl Agenda {
    pub fn new(n: Counts) -> Agenda {
        let layout = Layout::new(n);
        let mut owner = vec![Entity::Monitor, Entity::Commands, Entity::Scheduler];
        owner.extend((0..n.lpus).map(Entity::Lpu));
        owner.extend((0..n.vcpus).map(Entity::Vcpu));
        owner.extend((0..n.paging_devices).map(Entity::PagingDevice));
        owner.extend((0..n.minidisks).map(Entity::Minidisk));
        owner.push(Entity::Crypto);
        owner.extend((0..n.channels).map(Entity::Channel));
        debug_assert_eq!(owner.len(), layout.end as usize);
        debug_assert!(owner
            .iter()
            .enumerate()
            .all(|(i, &e)| layout.id(e) == i as u32));
        Agenda {
            q: EventQueue::with_entities(owner.len()),
            layout,
            owner,
        }
    }

    /// The queue number of entity `e` (a key for subsystems that keep events of several
    /// entities, such as the channel paths' transfers).
    #[inline(always)]
    pub fn id(&self, e: Entity) -> u32 {
        self.layout.id(e)
    }

    /// The entity whose queue number is `id` (processors and virtual CPUs, nearly every event,
    /// from their ranges without a load from `owner`).
    #[inline(always)]
    pub fn owner(&self, id: u32) -> Entity {
        let l = &self.layout;
        if id.wrapping_sub(l.lpu) < l.vcpu - l.lpu {
            Entity::Lpu(id - l.lpu)
        } else if id.wrapping_sub(l.vcpu) < l.pdev - l.vcpu {
            Entity::Vcpu(id - l.vcpu)
        } else {
            self.owner[id as usize]
        }
    }

    /// Entity `e`'s next event is at `t` (replacing the one it has).
    #[inline(always)]
    pub fn schedule(&mut self, e: Entity, t: Time) {
        self.q.schedule(self.layout.id(e), t);
    }

    /// Entity `e` has no pending event.
    #[inline(always)]
    pub fn cancel(&mut self, e: Entity) {
        self.q.cancel(self.layout.id(e));
    }

    #[inline(always)]
    pub fn is_scheduled(&self, e: Entity) -> bool {
        self.q.is_scheduled(self.layout.id(e))
    }

    /// Time of the earliest pending event.
    #[inline(always)]
    pub fn next_time(&self) -> Option<Time> {
        self.q.peek().map(|(t, _)| t)
    }

    /// Start handling the earliest event (see `EventQueue::begin_fire`).
    #[inline(always)]
    pub fn begin_fire(&mut self) -> Option<(Time, Entity)> {
        self.q.begin_fire().map(|(t, id)| (t, self.owner(id)))
    }

    #[inline(always)]
    pub fn end_fire(&mut self) {
        self.q.end_fire();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entity_has_its_own_number_and_back() {
        let n = Counts {
            lpus: 3,
            vcpus: 5,
            paging_devices: 2,
            minidisks: 4,
            channels: 2,
        };
        let a = Agenda::new(n);
        let mut ids: Vec<u32> = a.owner.iter().map(|&e| a.layout.id(e)).collect();
        assert_eq!(ids, (0..a.owner.len() as u32).collect::<Vec<_>>());
        ids.dedup();
        assert_eq!(ids.len(), 3 + 3 + 5 + 2 + 4 + 1 + 2);
        assert_eq!(
            a.owner(a.layout.id(Entity::Minidisk(3))),
            Entity::Minidisk(3)
        );
        assert_eq!(a.owner(a.layout.id(Entity::Channel(0))), Entity::Channel(0));
        // `owner` (ranges for processors and virtual CPUs) is the table's inverse everywhere.
        for id in 0..a.owner.len() as u32 {
            assert_eq!(a.owner(id), a.owner[id as usize], "{id}");
        }
    }

    #[test]
    fn ties_fire_in_scheduling_order_whatever_the_subsystem() {
        let mut a = Agenda::new(Counts {
            lpus: 2,
            vcpus: 2,
            ..Default::default()
        });
        let order = [
            Entity::Vcpu(1),
            Entity::Monitor,
            Entity::Lpu(0),
            Entity::Vcpu(0),
        ];
        for e in order {
            a.schedule(e, 7);
        }
        let mut got = Vec::new();
        while let Some((t, e)) = a.begin_fire() {
            assert_eq!(t, 7);
            got.push(e);
            a.end_fire();
        }
        assert_eq!(got, order);
    }
}
