"""Small scenarios with paging volumes and minidisk volumes, for the monitor I/O and storage
records (D6R3, D3R1, D3R4, the paging fields of D4R3) and the reports built from them."""

from __future__ import annotations

from zvmlab import scenario


def io_toml(seed: int = 3, duration_s: int = 50, interval_s: int = 10, level: str = "zvm-6.4",
            real_mb: int = 64, volumes: int = 2, vol_type: str = "eckd", thrashers: int = 2,
            mdisk: bool = True) -> str:
    out = [f"""title = "paging and minidisk I/O"

[system]
level = "{level}"
processors = 2

[run]
duration = "{duration_s}s"
interval = "{interval_s}s"
seed = {seed}

[storage]
real = "{real_mb}M"
prefill = true
paging_volumes = [{{ type = "{vol_type}", size = "1G", count = {volumes} }}]
"""]
    for i in range(thrashers):
        out.append(f"""
[[guest]]
userid = "RXTHR{i + 1}"
storage = "{64 * (i + 1)}M"
refs = {{ pattern = "uniform", range = "{40 * (i + 1)}M" }}
workload = {{ kind = "cpu-bound", tx_cpu = "{50 + 30 * i}us", dist = "fixed" }}
""")
    if mdisk:
        out.append("""
[[guest]]
userid = "XEDIT"
workload = { kind = "dasd-io", volume = "EF0100", type = "edev", cpu = "361us", ios = 100, blocks = 1 }

[[guest]]
userid = "FORMAT"
workload = { kind = "dasd-io", volume = "DK0200", type = "eckd", cpu = "1ms", ios = 20, blocks = 4 }
""")
    return "".join(out)


def io_config(**kw) -> dict:
    return scenario.loads(io_toml(**kw), "<io scenario>").engine_config()


def lpar_toml(seed: int = 1, duration_s: int = 50, interval_s: int = 10, level: str = "zvm-6.4",
              smt: str = "off", polarization: str = "vertical", partner_busy: float = 0.8,
              processors: int = 4, web: int = 6) -> str:
    """z/VM in LPAR ZVM beside two partner LPARs on a 6-IFL CPC (parking, suspension, PR/SM
    dispatches: D0R2 PR/SM fields, D0R16, D0R17); with smt other than "off" no [cpc] (the engine
    does not model SMT under PR/SM) but thread density (D0R2 SMT fields)."""
    cpc = f"""lpar = "ZVM"
weight = 300
polarization = "{polarization}"

[cpc]
shared_ifls = 6

[[cpc.lpar]]
name = "LINUXA"
weight = 500
logical = 4
busy = {partner_busy}

[[cpc.lpar]]
name = "TEST"
weight = 200
logical = 2
busy = 0.3
"""
    return f"""title = "LPAR under PR/SM"

[system]
level = "{level}"
processors = {processors}
smt = "{smt}"
{cpc if smt == "off" else ""}
[run]
duration = "{duration_s}s"
interval = "{interval_s}s"
seed = {seed}

[[guest]]
userid = "WEB"
count = {web}
workload = {{ kind = "transactional", think = "20ms", cpu = "8ms", dist = "exp" }}

[[guest]]
userid = "BATCH"
workload = {{ kind = "cpu-bound", tx_cpu = "1ms", dist = "exp" }}
"""


def lpar_config(**kw) -> dict:
    return scenario.loads(lpar_toml(**kw), "<lpar scenario>").engine_config()
