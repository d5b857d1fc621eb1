"""The zvmlab command line.

Each command lives in its own module under ``zvmlab.commands`` and is listed in ``COMMANDS``;
adding a command is one module and one line here. Bad input ends with one message on stderr
and exit status 2; an internal error with exit status 3 (set ZVMLAB_DEBUG=1 for the traceback).
"""

from __future__ import annotations

import importlib
import os
import sys

import click

from . import __version__
from .errors import InputError

# (module under zvmlab.commands, attribute): the order is the order of `zvmlab --help`.
COMMANDS = [
    ("replicate", "replicate"),
    ("run", "run"),
    ("report", "report"),
    ("twin", "twin"),
    ("validate", "validate"),
    ("workloads", "workloads"),
    ("levels", "levels"),
    ("params", "params"),
    ("cpc", "cpc"),
    ("solve", "solve"),
    ("check", "check"),
    ("bisect", "bisect"),
    ("scaling", "scaling"),
    ("suite", "suite"),
    ("sweep", "sweep"),
    ("store", "store"),
    ("bench", "bench"),
]


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="zvmlab")
def cli() -> None:
    """zvmlab: a performance laboratory for IBM z/VM in software.

    Simulate the z/VM Control Program (CP) on scenario files, read its monitor data in
    Performance Toolkit style, and reproduce IBM's published experiments.
    """


for _mod, _attr in COMMANDS:
    cli.add_command(getattr(importlib.import_module(f"zvmlab.commands.{_mod}"), _attr))


def fail(message: str, code: int) -> None:
    click.echo(f"zvmlab: error: {message}", err=True)
    sys.exit(code)


def main(argv: list[str] | None = None) -> None:
    try:
        cli.main(args=argv, prog_name="zvmlab", standalone_mode=False)
    except InputError as e:
        fail(str(e), 2)
    except click.exceptions.Abort:
        fail("interrupted", 130)
    except click.ClickException as e:
        e.show()
        sys.exit(2 if isinstance(e, click.UsageError) else e.exit_code)
    except KeyboardInterrupt:
        fail("interrupted", 130)
    except BrokenPipeError:
        sys.exit(0)
    except SystemExit:
        raise
    except Exception as e:  # an internal error: say so plainly
        if type(e).__name__ == "InterruptException" or (isinstance(e, RuntimeError) and "Query interrupted" in str(e)):
            fail("interrupted", 130)  # DuckDB's report of a Ctrl-C during a query
        if os.environ.get("ZVMLAB_DEBUG"):
            raise
        fail(f"internal error: {type(e).__name__}: {e} (set ZVMLAB_DEBUG=1 for the traceback, and please report it)", 3)
    sys.exit(0)


if __name__ == "__main__":
    main()
