# zvmlab: `make replicate` sets up and runs the main job (IBM's published experiments beside the
# simulator's); `make test` sets up and runs every test; `make demo` runs the showcase scenario.
# A second run is fast: the venv and the engine are rebuilt only when their inputs change.

PY      := .venv/bin/python
VENV    := .venv/.stamp
ENGINE  := .venv/.engine-stamp
RUST    := $(shell find crates -name '*.rs' -o -name 'Cargo.toml' 2>/dev/null) Cargo.toml Cargo.lock pyproject.toml
DEMO    ?= scenarios/showcase.toml

.PHONY: replicate demo test lint test-rust test-python dev bench browser browser-if-possible clean

replicate: $(ENGINE)
	.venv/bin/zvmlab replicate --html runs/replicate --json runs/replicate/results.json

demo: $(ENGINE)
	.venv/bin/zvmlab run $(DEMO)

test: $(ENGINE) browser-if-possible lint test-rust test-python

# The headless-browser test needs Chromium: install it when the machine can (Debian packages,
# about 25 s once); where it cannot, that one test is skipped and says why.
browser-if-possible:
	-@$(MAKE) --no-print-directory browser

# The Rust code is formatted and lint-free (clippy's default lints, warnings are errors); the
# Python passes ruff's pyflakes and pycodestyle checks (pyproject.toml [tool.ruff]) and the API
# modules mypy's type check (pyproject.toml [tool.mypy], with the engine's stubs _engine.pyi).
lint: $(VENV)
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets --quiet -- -D warnings
	.venv/bin/ruff check --quiet python tests
	.venv/bin/mypy

test-rust:
	cargo test -p zvm-engine --quiet

# Test files are spread over the machine's processors (pytest-xdist; one file stays on one worker,
# so a module's fixtures are built once): about half the time on two cores.
# Bytecode first, for sources changed since the engine was built (see $(ENGINE)).
test-python: $(ENGINE)
	$(PY) -m compileall -q python/zvmlab
	$(PY) -m pytest -q -n auto --dist loadfile

dev: $(ENGINE)

bench: $(ENGINE)
	.venv/bin/zvmlab bench
	cargo bench -p zvm-engine --bench event_queue
	cargo bench -p zvm-engine --bench same_run

# Chromium from Debian packages, for the test that opens the HTML report in a headless browser
# (tests/python/test_report_browser.py; skipped where no Chromium is installed).
browser:
	@command -v chromium >/dev/null 2>&1 || { $(if $(filter 0,$(shell id -u)),,sudo) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(if $(filter 0,$(shell id -u)),,sudo) apt-get install -y -qq chromium; }
	@chromium --version 2>/dev/null

$(VENV): pyproject.toml
	python3 -m venv .venv
	.venv/bin/pip install --quiet --upgrade pip
	.venv/bin/pip install --quiet "maturin>=1.5,<2" "click>=8.1" "rich>=13" "pytest>=8" "pytest-xdist>=3.5" "hypothesis>=6" "simpy>=4" "ruff>=0.6" numpy matplotlib "duckdb>=1.1" "pandas>=2" "dask[distributed]>=2024.1" "scipy>=1.11" \
		"pyarrow>=14" "polars>=1.0" "starlette>=0.37" "uvicorn>=0.29" "jinja2>=3.1" "plotly>=5.20" "mypy>=1.10" \
		"playwright>=1.45"
	touch $@

# The package's bytecode is compiled once here: where PYTHONDONTWRITEBYTECODE is set (as on this
# machine) every `zvmlab` command would otherwise compile its modules again (0.3 s of each start).
$(ENGINE): $(VENV) $(RUST)
	.venv/bin/maturin develop --release --quiet
	$(PY) -m compileall -q python/zvmlab
	touch $@

clean:
	rm -rf .venv target python/zvmlab/*.so
