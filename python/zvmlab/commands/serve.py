"""zvmlab serve: a local web view of runs, suites, sweeps, reports and replicate pages."""

from __future__ import annotations

import errno
import ipaddress
from pathlib import Path

import click

from ..errors import InputError
from ..output import err_console


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def root_of(path: str) -> tuple[Path, Path | None]:
    """The directory to serve, and the one store file when PATH names a store."""
    p = Path(path)
    if p.is_dir():
        return p, None
    if p.is_file() and p.suffix == ".duckdb":
        return p.parent, p
    if p.exists():
        raise InputError("is neither a directory nor a store (.duckdb)", file=str(p),
                         fix="give a directory with run directories or stores, or a store file")
    raise InputError("no such file or directory", file=str(p), fix="give a directory (default: runs) or a store")


@click.command("serve")
@click.argument("path", default="runs", type=click.Path())
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on. Another than loopback lets other machines read the results: "
                   "only where you mean to share them.")
@click.option("--port", default=8700, show_default=True, type=click.IntRange(0, 65535),
              help="TCP port (0: any free port).")
def serve(path: str, host: str, port: int) -> None:
    """A local web view of PATH (a directory, default runs, or a store .duckdb): browse runs,
    suites and sweeps, open reports, compare two runs, plot a metric across a sweep, open
    replicate's page. Listens on 127.0.0.1 unless --host says otherwise; Ctrl-C stops it."""
    import uvicorn

    from ..serve import make_app

    root, store = root_of(path)
    sock = listen_socket(host, port)  # an address in use or not of this machine: one message, exit 2
    port = sock.getsockname()[1]  # the port the system chose for --port 0
    if not is_loopback(host):
        err_console.print(f"[bold yellow]warning:[/bold yellow] listening on {host}: anyone who can reach this "
                          "address can read the results under " + str(root.resolve()) + " (there is no login)")
    err_console.print(f"zvmlab serve: {root.resolve()} at http://{host if ':' not in host else f'[{host}]'}:{port}/ "
                      "(Ctrl-C stops)")
    try:
        uvicorn.Server(uvicorn.Config(make_app(root, store), log_level="warning")).run(sockets=[sock])
    finally:
        sock.close()


def listen_socket(host: str, port: int):
    """A TCP socket bound to HOST:PORT (uvicorn listens on it), or an InputError naming the option."""
    import socket

    try:
        family, kind, proto, _, addr = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except (socket.gaierror, UnicodeError) as e:
        raise InputError(f"cannot resolve {host!r}: {getattr(e, 'strerror', None) or e}", field="--host",
                         fix="give an address of this machine, e.g. 127.0.0.1 (the default)") from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(addr)
    except OSError as e:
        sock.close()
        field, fix = (("--port", "choose another port with --port, or --port 0 for any free one")
                      if e.errno == errno.EADDRINUSE else
                      ("--host", "give an address of this machine, e.g. 127.0.0.1 (the default)"))
        raise InputError(f"cannot listen on {host} port {port}: {e.strerror}", field=field, fix=fix) from None
    return sock
