//! Machine generations (issue 18 item 4): the figures of one IBM Z machine from the parameter
//! table (`cpu.<machine>.*`, `cache.<machine>.*`): cores per chip, chips per drawer (book),
//! L4 nodes per drawer, drawers, clock, the largest LPAR z/VM runs on it, SMT support, and the
//! cache size of each level. Every figure and its public source is a row of `params.rs`.

use crate::contract::SmtMode;
use crate::params::Params;

/// The machines modelled, oldest first (`system.machine`).
pub const NAMES: [&str; 7] = crate::contract::MACHINES;

/// The machine a scenario runs on when it names none.
pub const DEFAULT: &str = crate::contract::DEFAULT_MACHINE;

/// One machine's figures (rounded to whole counts where they count things).
#[derive(Clone, Debug, PartialEq)]
pub struct Machine {
    pub name: &'static str,
    pub cores_per_chip: u32,
    pub chips_per_drawer: u32,
    /// L4 domains per drawer (a z13 drawer has two nodes, each with its own L4).
    pub nodes_per_drawer: u32,
    pub drawers: u32,
    pub ghz: f64,
    /// Logical cores z/VM runs in one LPAR of this machine.
    pub max_lpar_cores: u32,
    pub smt: bool,
    /// Cache sizes in KB: L1 data and L2 per core, L3 per chip, L4 per node.
    pub l1_kb: f64,
    pub l2_kb: f64,
    pub l3_kb: f64,
    pub l4_kb: f64,
}

fn count(x: f64) -> u32 {
    (x.round() as u32).max(1)
}

/// The raw rows of machine `name` in table order: cores per chip, chips per drawer, nodes per
/// drawer, drawers, GHz, max LPAR cores, SMT, L1, L2, L3, L4.
fn rows(name: &str, p: &Params) -> Option<[f64; 11]> {
    macro_rules! m {
        ($cpc:ident, $chips:ident, $nodes:ident, $drw:ident, $ghz:ident, $max:ident, $smt:ident,
         $l1:ident, $l2:ident, $l3:ident, $l4:ident) => {
            [
                p.$cpc(),
                p.$chips(),
                p.$nodes(),
                p.$drw(),
                p.$ghz(),
                p.$max(),
                p.$smt(),
                p.$l1(),
                p.$l2(),
                p.$l3(),
                p.$l4(),
            ]
        };
    }
    Some(match name {
        "z196" => m!(
            z196_cores_per_chip,
            z196_chips_per_drawer,
            z196_nodes_per_drawer,
            z196_drawers,
            z196_ghz,
            z196_max_lpar_cores,
            z196_smt,
            z196_l1_kb,
            z196_l2_kb,
            z196_l3_kb,
            z196_l4_kb
        ),
        "zEC12" => m!(
            zec12_cores_per_chip,
            zec12_chips_per_drawer,
            zec12_nodes_per_drawer,
            zec12_drawers,
            zec12_ghz,
            zec12_max_lpar_cores,
            zec12_smt,
            zec12_l1_kb,
            zec12_l2_kb,
            zec12_l3_kb,
            zec12_l4_kb
        ),
        "z13" => m!(
            z13_cores_per_chip,
            z13_chips_per_drawer,
            z13_nodes_per_drawer,
            z13_drawers,
            z13_ghz,
            z13_max_lpar_cores,
            z13_smt,
            z13_l1_kb,
            z13_l2_kb,
            z13_l3_kb,
            z13_l4_kb
        ),
        "z14" => m!(
            z14_cores_per_chip,
            z14_chips_per_drawer,
            z14_nodes_per_drawer,
            z14_drawers,
            z14_ghz,
            z14_max_lpar_cores,
            z14_smt,
            z14_l1_kb,
            z14_l2_kb,
            z14_l3_kb,
            z14_l4_kb
        ),
        "z15" => m!(
            z15_cores_per_chip,
            z15_chips_per_drawer,
            z15_nodes_per_drawer,
            z15_drawers,
            z15_ghz,
            z15_max_lpar_cores,
            z15_smt,
            z15_l1_kb,
            z15_l2_kb,
            z15_l3_kb,
            z15_l4_kb
        ),
        "z16" => m!(
            z16_cores_per_chip,
            z16_chips_per_drawer,
            z16_nodes_per_drawer,
            z16_drawers,
            z16_ghz,
            z16_max_lpar_cores,
            z16_smt,
            z16_l1_kb,
            z16_l2_kb,
            z16_l3_kb,
            z16_l4_kb
        ),
        "z17" => m!(
            z17_cores_per_chip,
            z17_chips_per_drawer,
            z17_nodes_per_drawer,
            z17_drawers,
            z17_ghz,
            z17_max_lpar_cores,
            z17_smt,
            z17_l1_kb,
            z17_l2_kb,
            z17_l3_kb,
            z17_l4_kb
        ),
        _ => return None,
    })
}

impl Machine {
    /// Machine `name` (one of [`NAMES`]) with the run's parameter values; None if unknown.
    pub fn from_params(name: &str, p: &Params) -> Option<Machine> {
        let name = *NAMES.iter().find(|&&n| n == name)?;
        let r = rows(name, p)?;
        Some(Machine {
            name,
            cores_per_chip: count(r[0]),
            chips_per_drawer: count(r[1]),
            nodes_per_drawer: count(r[2]),
            drawers: count(r[3]),
            ghz: r[4],
            max_lpar_cores: count(r[5]),
            smt: r[6] >= 0.5,
            l1_kb: r[7],
            l2_kb: r[8],
            l3_kb: r[9],
            l4_kb: r[10],
        })
    }

    pub fn cores_per_drawer(&self) -> u32 {
        self.cores_per_chip * self.chips_per_drawer
    }

    /// Whether `processors` cores with `smt` fit this machine: the located message if not.
    pub fn check(&self, processors: u32, smt: SmtMode) -> Result<(), String> {
        let m = self.name;
        if smt != SmtMode::Off && !self.smt {
            return Err(format!(
                "system.smt = \"{smt}\" on a {m}: the {m} has no SMT (multithreading came with the z13); use smt = \"off\" or a z13 or later machine"
            ));
        }
        if processors > self.max_lpar_cores {
            return Err(format!(
                "system.processors = {processors} on a {m}: z/VM runs at most {} logical processors in an LPAR of a {m}; use processors <= {} or a later machine",
                self.max_lpar_cores, self.max_lpar_cores
            ));
        }
        let need = processors.div_ceil(self.cores_per_drawer());
        if need > self.drawers {
            return Err(format!(
                "system.processors = {processors}: a {m} has at most {} drawers of {} cores",
                self.drawers,
                self.cores_per_drawer()
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_machine_reads_its_rows_and_later_machines_have_larger_caches() {
        let p = Params::default();
        let ms: Vec<Machine> = NAMES
            .iter()
            .map(|n| Machine::from_params(n, &p).unwrap())
            .collect();
        assert!(Machine::from_params("z12", &p).is_none());
        for m in &ms {
            assert!(
                m.l1_kb < m.l2_kb && m.l2_kb < m.l3_kb && m.l3_kb < m.l4_kb,
                "{m:?}"
            );
            assert!(m.ghz >= 5.0 && m.ghz <= 5.5);
        }
        for w in ms.windows(2) {
            assert!(w[1].l3_kb >= w[0].l3_kb, "{} {}", w[0].name, w[1].name);
        }
        assert!(!ms[0].smt && !ms[1].smt && ms[2..].iter().all(|m| m.smt));
        assert_eq!(
            ms[2].cores_per_drawer(),
            48,
            "z13 as seed 001's Table 9 needs"
        );
    }

    #[test]
    fn located_errors_for_smt_and_size() {
        let p = Params::default();
        let zec12 = Machine::from_params("zEC12", &p).unwrap();
        assert!(zec12
            .check(16, SmtMode::Smt2)
            .unwrap_err()
            .contains("has no SMT"));
        assert!(zec12.check(16, SmtMode::Smt1).is_err());
        assert!(zec12
            .check(40, SmtMode::Off)
            .unwrap_err()
            .contains("at most 32"));
        assert!(zec12.check(32, SmtMode::Off).is_ok());
        let z16 = Machine::from_params("z16", &p).unwrap();
        assert!(z16.check(64, SmtMode::Off).is_ok() && z16.check(32, SmtMode::Smt2).is_ok());
        assert!(crate::contract::unknown_machine("z12").contains("z196, zEC12, z13"));
    }
}
