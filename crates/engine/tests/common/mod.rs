//! Helpers shared by the engine's integration tests.

use zvm::config::Guest;

/// The contract refuses ABSOLUTE minimum shares summing over 100 % of the system: a random set
/// that does is scaled down to fit (to tenths, as SET SHARE takes them), the rest kept.
pub fn fit_absolute(guests: &mut [Guest]) {
    use zvm::config::ShareKind;
    let absolute = |g: &&mut Guest| g.share.min.kind == ShareKind::Absolute;
    let total: f64 = guests
        .iter_mut()
        .filter(absolute)
        .map(|g| g.share.min.value * g.count as f64)
        .sum();
    if total > 100.0 {
        for g in guests.iter_mut().filter(absolute) {
            g.share.min.value = ((g.share.min.value * 1000.0 / total).floor() / 10.0).max(0.1);
        }
    }
}
