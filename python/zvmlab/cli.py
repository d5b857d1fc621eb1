"""The zvmlab command line.

Each command lives in its own module under ``zvmlab.commands`` and is listed in ``COMMANDS``;
adding a command is one module and one line here. Exit status: 0 done; 1 the system refused a
write (disk full, I/O error); 2 bad input (one message naming the file, field and fix); 3 an
internal error (set ZVMLAB_DEBUG=1 for the traceback); 130 interrupted by Ctrl-C (143 by
SIGTERM, 129 by SIGHUP). The first interrupt stops the command (finished work is kept,
temporary files are removed); a second one exits at once.
"""

from __future__ import annotations

import errno
import importlib
import os
import signal
import sys

import click

from . import __version__, completion
from .errors import InputError
from .output import ClosedPipe, plain

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
    ("serve", "serve"),
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
completion.attach(cli)


class Interrupted(KeyboardInterrupt):
    """SIGTERM or SIGHUP, handled as Ctrl-C is (``signum`` gives the exit status 128 + signum)."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


_signals_seen: list[int] = []


def _on_signal(signum: int, frame) -> None:
    """First interrupt: raise where the program is (so it stops and cleans up); second: exit now."""
    _signals_seen.append(signum)
    if len(_signals_seen) > 1:
        from .output import remove_temporaries

        remove_temporaries()
        os.write(2, b"zvmlab: interrupted again: exiting now\n")
        os._exit(128 + _signals_seen[0])
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Interrupted(signum)


def install_signal_handlers() -> None:
    """Ctrl-C, SIGTERM and SIGHUP stop the command the same way (see the module's docstring)."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        try:
            if signal.getsignal(sig) is not signal.SIG_IGN:  # e.g. nohup: keep ignoring
                signal.signal(sig, _on_signal)
        except (ValueError, OSError):  # not the main thread (embedded use): leave them
            pass


def fail(message: str, code: int) -> None:
    click.echo(f"zvmlab: error: {plain(message)}", err=True)
    sys.exit(code)


def _interrupted(e: BaseException | None = None) -> None:
    signum = e.signum if isinstance(e, Interrupted) else (_signals_seen[0] if _signals_seen else signal.SIGINT)
    fail("interrupted" if signum == signal.SIGINT else f"stopped by {signal.Signals(signum).name}", 128 + signum)


def main(argv: list[str] | None = None) -> None:
    install_signal_handlers()
    try:
        cli.main(args=argv, prog_name="zvmlab", standalone_mode=False)
        sys.stdout.flush()  # a full disk or a closed pipe is reported here, not at interpreter exit
    except InputError as e:
        fail(str(e), 2)
    except click.exceptions.Abort:
        _interrupted()
    except click.ClickException as e:
        e.show()
        sys.exit(2 if isinstance(e, click.UsageError) else e.exit_code)
    except KeyboardInterrupt as e:
        _interrupted(e)
    except (BrokenPipeError, ClosedPipe):
        _quiet_stdout()
        sys.exit(0)
    except SystemExit:
        raise
    except OSError as e:
        if e.errno in (errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EROFS, errno.EFBIG, errno.EACCES, errno.EPERM):
            _quiet_stdout()
            where = f" {e.filename}" if e.filename else " (standard output?)"
            fail(f"cannot write{where}: {e.strerror}", 1)
        _internal(e)
    except Exception as e:  # an internal error: say so plainly
        if type(e).__name__ == "InterruptException" or (isinstance(e, RuntimeError) and "Query interrupted" in str(e)):
            _interrupted()  # DuckDB's report of a Ctrl-C during a query
        _internal(e)
    sys.exit(0)


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so that Python's final flush does not fail a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _internal(e: BaseException) -> None:
    if os.environ.get("ZVMLAB_DEBUG"):
        raise e
    fail(f"internal error: {type(e).__name__}: {e} (set ZVMLAB_DEBUG=1 for the traceback, and please report it)", 3)


if __name__ == "__main__":
    main()
