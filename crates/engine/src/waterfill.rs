//! Weighted max-min fair water-filling, the arithmetic shared by CP's scheduler (entitlement
//! of users, pools' limits) and PR/SM (LPAR capping, pool shares): no simulation state here.

/// Weighted max-min fair water-filling: `cap_total` over users with weights `w` and upper
/// bounds `cap`; returns each user's allocation (never more than `cap_total` in all).
pub fn water_fill(cap_total: f64, w: &[f64], cap: &[f64]) -> Vec<f64> {
    let mut wf = WaterFill::default();
    wf.fill(cap_total, w, cap);
    wf.alloc
}

/// `water_fill` with its buffers kept between calls (the scheduler's pass runs it every tick),
/// and the users ordered by a precomputed key: `cap / w` is positive, so its bits order it as
/// `total_cmp` does, and the user number below them breaks ties as before.
#[derive(Default)]
pub struct WaterFill {
    keys: Vec<u128>,
    pub alloc: Vec<f64>,
}

impl WaterFill {
    pub fn fill(&mut self, cap_total: f64, w: &[f64], cap: &[f64]) -> &[f64] {
        let n = w.len();
        self.alloc.clear();
        self.alloc.resize(n, 0.0);
        self.keys.clear();
        self.keys.extend(
            (0..n)
                .filter(|&i| cap[i] > 0.0 && w[i] > 0.0)
                .map(|i| ((cap[i] / w[i]).to_bits() as u128) << 64 | i as u128),
        );
        self.keys.sort_unstable();
        let order = |k: usize| self.keys[k] as u64 as usize;
        let mut left = cap_total.max(0.0);
        let mut wsum: f64 = (0..self.keys.len()).map(|k| w[order(k)]).sum();
        let mut k = 0;
        while k < self.keys.len() {
            let i = order(k);
            let level = left / wsum;
            if cap[i] <= w[i] * level {
                self.alloc[i] = cap[i];
                left -= cap[i];
                wsum -= w[i];
                k += 1;
            } else {
                for j in k..self.keys.len() {
                    let j = order(j);
                    self.alloc[j] = w[j] * level;
                }
                break;
            }
        }
        &self.alloc
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The water-fill as it was before its keys were precomputed (comparator dividing).
    fn water_fill_by_comparator(cap_total: f64, w: &[f64], cap: &[f64]) -> Vec<f64> {
        let n = w.len();
        let mut alloc = vec![0.0; n];
        let mut order: Vec<usize> = (0..n).filter(|&i| cap[i] > 0.0 && w[i] > 0.0).collect();
        order
            .sort_unstable_by(|&a, &b| (cap[a] / w[a]).total_cmp(&(cap[b] / w[b])).then(a.cmp(&b)));
        let mut left = cap_total.max(0.0);
        let mut wsum: f64 = order.iter().map(|&i| w[i]).sum();
        let mut k = 0;
        while k < order.len() {
            let i = order[k];
            let level = left / wsum;
            if cap[i] <= w[i] * level {
                alloc[i] = cap[i];
                left -= cap[i];
                wsum -= w[i];
                k += 1;
            } else {
                for &j in &order[k..] {
                    alloc[j] = w[j] * level;
                }
                break;
            }
        }
        alloc
    }

    #[test]
    fn water_fill_with_precomputed_keys_is_bit_identical() {
        let mut r = crate::rng::Rng::new(16);
        let mut wf = WaterFill::default();
        for case in 0..3_000u64 {
            let n = 1 + r.below(300) as usize;
            let pick = |r: &mut crate::rng::Rng| match r.below(6) {
                0 => 0.0,
                1 => f64::INFINITY,
                2 => 1.0, // ties
                3 => r.below(4) as f64 * 0.25,
                _ => r.exp(1.0),
            };
            let w: Vec<f64> = (0..n).map(|_| pick(&mut r).min(1e3)).collect();
            let cap: Vec<f64> = (0..n).map(|_| pick(&mut r)).collect();
            let total = r.exp(n as f64 / 4.0);
            let mut cap = cap;
            // Passes in a row with a few bounds changed, as the scheduler's ticks do.
            for pass in 0..4 {
                let want = water_fill_by_comparator(total, &w, &cap);
                let got = wf.fill(total, &w, &cap);
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(got), bits(&want), "case {case} pass {pass}");
                for _ in 0..r.below(n as u64 / 4 + 2) {
                    let i = r.below(n as u64) as usize;
                    cap[i] = if r.below(8) == 0 {
                        0.0
                    } else {
                        cap[i] * (0.9 + 0.2 * r.unit())
                    };
                }
            }
        }
    }
}
