//! Python bindings: a thin, batch-oriented front. Python builds and validates the scenario,
//! the engine runs many events per call, and results come back as JSON.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(
    _engine,
    EngineError,
    PyException,
    "The engine refused its input."
);

fn err(e: String) -> PyErr {
    EngineError::new_err(e)
}

/// A simulation that Python advances step by step (for progress bars).
#[pyclass(unsendable)]
struct Simulation {
    sim: zvm::Sim,
}

#[pymethods]
impl Simulation {
    #[new]
    fn new(config_json: &str) -> PyResult<Self> {
        let cfg = zvm::Config::from_json(config_json).map_err(err)?;
        Ok(Simulation {
            sim: zvm::Sim::new(cfg).map_err(err)?,
        })
    }

    /// Run every event up to simulated time `t_ns` (capped at the end of the run).
    fn run_until(&mut self, t_ns: u64) {
        self.sim.run_until(t_ns);
    }

    #[getter]
    fn now_ns(&self) -> u64 {
        self.sim.now
    }

    #[getter]
    fn end_ns(&self) -> u64 {
        self.sim.end
    }

    #[getter]
    fn events(&self) -> u64 {
        self.sim.events
    }

    fn finished(&self) -> bool {
        self.sim.finished()
    }

    fn summary_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.sim.summary()).map_err(|e| err(e.to_string()))
    }

    /// The monitor data of the run so far, in MONWRITE format (bytes).
    fn monitor_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, pyo3::types::PyBytes> {
        pyo3::types::PyBytes::new(py, &self.sim.monitor_bytes())
    }
}

/// Run a normalized scenario (JSON) to the end; returns the summary as JSON.
#[pyfunction]
fn run(py: Python<'_>, config_json: String) -> PyResult<String> {
    py.allow_threads(move || zvm::run_json(&config_json))
        .map_err(err)
}

/// Levels with their mechanism switches, as JSON.
#[pyfunction]
fn levels_json() -> String {
    serde_json::to_string(&zvm::level::levels()).unwrap_or_default()
}

/// The effective mechanism switches of `level` with `overrides` (JSON object name -> value).
#[pyfunction]
fn switches_json(level: &str, overrides: &str) -> PyResult<String> {
    let l = zvm::level::find(level).ok_or_else(|| err(format!("unknown level '{level}'")))?;
    let o: std::collections::BTreeMap<String, String> =
        serde_json::from_str(overrides).map_err(|e| err(format!("switches: {e}")))?;
    let s = l.switches.with_overrides(&o).map_err(err)?;
    serde_json::to_string(&s.to_map()).map_err(|e| err(e.to_string()))
}

/// The monitor record layouts the engine writes, as JSON.
#[pyfunction]
fn monitor_layouts_json() -> String {
    zvm::monwrite::layouts_json()
}

/// The scenario contract (vocabulary, limits, cross-field rules; contract.rs), as JSON.
#[pyfunction]
fn contract_json() -> String {
    zvm::contract::contract().to_string()
}

/// Check a normalized scenario (JSON) as a run would, building the simulation without running
/// it: raises EngineError with the engine's message if it refuses the configuration.
#[pyfunction]
fn validate_json(py: Python<'_>, config_json: String) -> PyResult<()> {
    py.allow_threads(move || {
        let cfg = zvm::Config::from_json(&config_json)?;
        zvm::Sim::new(cfg).map(|_| ())
    })
    .map_err(err)
}

/// The parameter table, as JSON.
#[pyfunction]
fn params_json() -> String {
    serde_json::to_string(&zvm::params::table()).unwrap_or_default()
}

/// The des-anchors reference model through the engine; returns JSON.
#[pyfunction]
fn bench_reference(py: Python<'_>, horizon_ms: u64, seed: u64) -> PyResult<String> {
    let r = py
        .allow_threads(move || zvm::bench::run_reference(horizon_ms, seed))
        .map_err(err)?;
    serde_json::to_string(&r).map_err(|e| err(e.to_string()))
}

/// PR/SM entitlement, vertical polarization and placement of a CPC (JSON `prsm::CpcSpec`),
/// as JSON `prsm::CpcPol`.
#[pyfunction]
fn polarize_json(cpc_json: &str) -> PyResult<String> {
    let spec: zvm::prsm::CpcSpec =
        serde_json::from_str(cpc_json).map_err(|e| err(format!("cpc: {e}")))?;
    let pol = zvm::prsm::polarize(&spec).map_err(err)?;
    serde_json::to_string(&pol).map_err(|e| err(e.to_string()))
}

/// Exact M/M/c//N throughput.
#[pyfunction]
fn mmcn_throughput(n: u32, c: u32, think_mean: f64, burst_mean: f64) -> f64 {
    zvm::bench::mmcn_throughput(n, c, think_mean, burst_mean)
}

#[pymodule]
fn _engine(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("EngineError", m.py().get_type::<EngineError>())?;
    m.add_class::<Simulation>()?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(levels_json, m)?)?;
    m.add_function(wrap_pyfunction!(params_json, m)?)?;
    m.add_function(wrap_pyfunction!(contract_json, m)?)?;
    m.add_function(wrap_pyfunction!(validate_json, m)?)?;
    m.add_function(wrap_pyfunction!(monitor_layouts_json, m)?)?;
    m.add_function(wrap_pyfunction!(switches_json, m)?)?;
    m.add_function(wrap_pyfunction!(bench_reference, m)?)?;
    m.add_function(wrap_pyfunction!(mmcn_throughput, m)?)?;
    m.add_function(wrap_pyfunction!(polarize_json, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
