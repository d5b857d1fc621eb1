"""Output helpers: consoles, progress bars, JSON, and result directories written atomically."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import shutil
import stat
import sys
import tempfile
from pathlib import Path
from typing import Callable, Iterator

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from .errors import InputError

def _isatty(stream) -> bool:
    """The stream itself is a terminal (FORCE_COLOR or TTY_COMPATIBLE make rich act as if a pipe
    were one; widths and wrapping follow the stream, not those)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _width(stream) -> int | None:
    """Terminals report their width; for files and pipes use $COLUMNS or 160 (tables stay whole)."""
    if _isatty(stream):
        return None
    try:
        return max(80, int(os.environ.get("COLUMNS", "160")))
    except ValueError:
        return 160


# C0 and C1 control characters (ESC, BEL, CR, backspace, CSI ...): never sent to a terminal as they are.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def plain(text: object) -> str:
    """``text`` with every control character shown as ``\\xNN``: safe to print on one line."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", str(text))


def plain_lines(text: str) -> str:
    """Like :func:`plain`, but newlines and tabs are kept (multi-line reports)."""
    return "\n".join(plain(line).replace("\\x09", "\t") for line in text.split("\n"))


def safe(text: object) -> str:
    """Text from a user's file, to embed in rich markup: control characters shown, markup escaped."""
    return escape(plain(text))


class ClosedPipe(Exception):
    """Standard output's reader is gone (``zvmlab params | head``): the command line exits 0.
    Not an OSError, which click turns into exit status 1 before the command line sees it."""


class _Console(Console):
    def print(self, *objects, **kwargs) -> None:  # type: ignore[override]
        """Lines of text sent to a file or a pipe are never broken: a path or a figure stays whole for
        grep and for the reader. Tables still fit the width (see _width); a terminal wraps as usual."""
        if "soft_wrap" not in kwargs and not _isatty(self.file) and all(isinstance(o, str) for o in objects):
            kwargs["soft_wrap"] = True
        super().print(*objects, **kwargs)

    def on_broken_pipe(self) -> None:
        """rich exits with status 1 here (SystemExit); raise ClosedPipe to the command line instead."""
        self.quiet = True
        raise ClosedPipe()


console = _Console(highlight=False, width=_width(sys.stdout))
err_console = _Console(stderr=True, highlight=False, width=_width(sys.stderr))


def dumps(obj) -> str:
    """Canonical JSON: sorted keys, so the same result is the same bytes."""
    return json.dumps(obj, sort_keys=True, indent=2, allow_nan=False) + "\n"


def print_json(obj) -> None:
    write_stdout(dumps(obj))


def write_stdout(text: str) -> None:
    """Text to standard output; a closed pipe is ClosedPipe (exit 0), not click's exit 1."""
    try:
        sys.stdout.write(text)
    except BrokenPipeError:
        raise ClosedPipe() from None


@contextlib.contextmanager
def progress(label: str, enabled: bool = True) -> Iterator[Callable[[float, float], None]]:
    """A progress bar on stderr (only when stderr is a terminal); yields update(done, total).

    With ZVMLAB_PROGRESS=lines (logs, CI, scripts that wait for progress), a plain line
    ``label: done/total`` is printed on stderr at each change instead.
    """
    if enabled and os.environ.get("ZVMLAB_PROGRESS") == "lines":
        last: list = [None]

        def line(done: float, total: float) -> None:
            if (done, total) != last[0]:
                last[0] = (done, total)
                print(f"{label}: {done:g}/{total:g}", file=sys.stderr, flush=True)

        yield line
        return
    if not enabled or not err_console.is_terminal:
        yield lambda done, total: None
        return
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), TextColumn("{task.percentage:>5.1f}%"),
                  TimeElapsedColumn(), TimeRemainingColumn(), console=err_console, transient=True) as p:
        task = p.add_task(label, total=1.0)
        yield lambda done, total: p.update(task, completed=done / total if total else 1.0)


# Temporary directories being written: removed by a second Ctrl-C, which exits at once.
_TEMPORARIES: set[Path] = set()


def remove_temporaries() -> None:
    for d in list(_TEMPORARIES):
        shutil.rmtree(d, ignore_errors=True)


def umask() -> int:
    """The process's umask (read by setting and restoring it)."""
    m = os.umask(0o022)
    os.umask(m)
    return m


def _through_link(dest: Path) -> Path:
    """Where writing ``dest`` lands: a symlink is written through (its target), never replaced."""
    return Path(os.path.realpath(dest)) if dest.is_symlink() else dest


def write_file(path: str | Path, body: str | bytes) -> None:
    """Write a file atomically (a temporary sibling renamed into place: never half a file).

    An existing symlink is written through; an existing file keeps its mode; a new file gets
    0666 less the umask; a character device or FIFO (/dev/stdout, /dev/null) is written into,
    never replaced; a directory or block device is refused.
    """
    dest = Path(path)
    target = _through_link(dest)
    st, stream = _file_target(dest)
    if stream:
        _write_into(dest, body)  # /dev/stdout, /dev/null, a pipe: written to, never replaced
        return
    mode = stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~umask()
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.absolute().parent)
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), mode)
            f.write(body.encode("utf-8") if isinstance(body, str) else body)
        os.replace(tmp, target)
        tmp = None
    except OSError as e:
        raise InputError(f"cannot write: {e.strerror}", file=str(dest)) from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _file_target(dest: Path, field: str | None = None) -> tuple[os.stat_result | None, bool]:
    """What is at output path `dest` now: its stat (None: nothing) and whether it is a stream to
    write into (a character device or FIFO: /dev/stdout, /dev/null, a pipe); a directory or block
    device is refused."""
    try:
        st = dest.stat()  # through links, /proc/self/fd ones too: /dev/stdout on a pipe is the pipe
    except FileNotFoundError:
        return None, False
    except OSError as e:
        raise InputError(f"cannot write: {e.strerror}", file=str(dest), field=field) from None
    if stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode):
        return st, True
    if not stat.S_ISREG(st.st_mode):
        raise InputError("exists and is not a regular file (a directory or block device is never replaced)",
                         file=str(dest), field=field, fix=f"choose another {field or '--out'} path")
    return st, False


def _write_into(dest: Path, body: str | bytes) -> None:
    try:
        with open(dest, "wb") as f:
            f.write(body.encode("utf-8") if isinstance(body, str) else body)
    except BrokenPipeError:
        raise ClosedPipe() from None  # a reader gone (--out /dev/stdout | head): exit 0
    except OSError as e:
        raise InputError(f"cannot write: {e.strerror}", file=str(dest)) from None


@contextlib.contextmanager
def result_dir(path: str | Path, force: bool = False, field: str = "--out") -> Iterator[Path]:
    """Write a result directory atomically: into a temporary sibling, renamed into place at the end.

    On any error or catchable signal (Ctrl-C, SIGTERM) the temporary directory is removed, so no
    half-written result is left behind. A symlink to a directory is written through; the new
    directory gets 0777 less the umask.
    """
    check_result_dir(path, force, field)
    dest = _through_link(Path(path))
    parent = dest.absolute().parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", dir=parent))
    except OSError as e:
        raise InputError(f"cannot create the output directory: {e.strerror}", file=str(path)) from None
    _TEMPORARIES.add(tmp)
    try:
        os.chmod(tmp, 0o777 & ~umask())
        yield tmp
        try:
            if dest.exists():
                old = Path(tempfile.mkdtemp(prefix=f".{dest.name}.old.", dir=parent))
                os.rename(dest, old / "x")
                os.rename(tmp, dest)
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.rename(tmp, dest)
        except OSError as e:  # e.g. a mount point: it cannot be renamed
            raise InputError(f"cannot put the result in place: {e.strerror}", file=str(path),
                             fix="name a new directory, e.g. --out runs/NAME") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finally:
        _TEMPORARIES.discard(tmp)


def check_result_dir(path: str | Path, force: bool = False, field: str = "--out") -> None:
    """Refuse, before any work starts, a result directory that :func:`result_dir` could not write:
    a file in the way, a non-empty directory without ``force``, the current directory or one
    above it (they cannot be replaced), or a place where no directory can be made."""
    dest = _through_link(Path(path))
    if dest.exists() and not dest.is_dir():
        raise InputError("exists and is not a directory", file=str(path), fix=f"choose another {field} path")
    if dest.exists() and any(dest.iterdir()) and not force:
        raise InputError("already exists and is not empty", file=str(path),
                         fix=f"choose another {field} directory or add --force to replace it")
    here, d = Path.cwd().resolve(), dest.resolve()
    if d == here or d in here.parents:
        raise InputError("is the current directory or one above it: it cannot be replaced", file=str(path),
                         fix=f"name a new or empty subdirectory, e.g. {field} runs/NAME")
    anc = d.parent
    while not anc.exists() and anc != anc.parent:
        anc = anc.parent
    try:
        if not anc.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, "a file is in the way")
        os.rmdir(tempfile.mkdtemp(prefix=".zvmlab-probe.", dir=anc))  # can a directory be made there?
    except OSError as e:
        raise InputError(f"cannot create the output directory: {e.strerror}", file=str(path),
                         fix=f"choose another {field} path") from None


def check_file_target(path: str | Path, field: str) -> None:
    """Refuse, before any work starts, an output file :func:`write_file` could not write: a
    directory in the way, or a directory that does not exist or takes no new files."""
    dest = _through_link(Path(path))
    if _file_target(Path(path), field)[1]:
        return
    parent = dest.absolute().parent
    try:
        if not parent.is_dir():
            raise FileNotFoundError(errno.ENOENT, "its directory does not exist")
        fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", dir=parent)  # can a file be made there?
        os.close(fd)
        os.unlink(tmp)
    except OSError as e:
        raise InputError(f"cannot write: {e.strerror}", file=str(path), field=field,
                         fix="name a file in an existing, writable directory") from None


def save_figure(fig, path: str | Path) -> None:
    """Write a matplotlib figure (its format from the suffix: .png or .svg) with :func:`write_file`:
    never half a file, and a path that cannot be written is one message."""
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format=Path(path).suffix.lower().lstrip(".") or "png")
    write_file(path, buf.getvalue())
