"""No network for the SPARQL engine: Oxigraph runs SERVICE clauses itself (an HTTP client is built into
pyoxigraph and no option turns it off), so the threads and processes that evaluate public queries get a
seccomp filter under which creating an IPv4 or IPv6 socket fails with EACCES. Whatever text reaches the
engine, it cannot connect anywhere; the guard (kg.query.guard) refuses SERVICE before that, this is the
second wall. Unix sockets and pipes (the workers' link to the server) are untouched."""

from __future__ import annotations

import errno
import logging
import socket
import threading
from typing import Any

log = logging.getLogger("api.sparql")
_FAMILIES = (socket.AF_INET, socket.AF_INET6)
_warned = threading.Event()


def _seccomp() -> Any:
    """The libseccomp binding, or None where there is none (not Linux, or no libseccomp)."""
    try:
        import pyseccomp
    except (ImportError, RuntimeError, OSError):
        return None
    return pyseccomp


def forbid_network(*, all_threads: bool = False) -> bool:
    """From now on the calling thread (and threads it starts; with `all_threads`, every thread of this
    process) cannot create an internet socket. False, with one warning in the log, where the kernel or the
    platform cannot do it."""
    sc = _seccomp()
    if sc is None:
        return _unavailable("libseccomp is not available")
    try:
        rules = sc.SyscallFilter(sc.ALLOW)
        for family in _FAMILIES:
            rules.add_rule(sc.ERRNO(errno.EACCES), "socket", sc.Arg(0, sc.EQ, family))
        if all_threads:
            rules.set_attr(sc.Attr.CTL_TSYNC, 1)
        rules.load()  # sets no_new_privs first (needed to load a filter without privileges)
    except OSError as exc:
        return _unavailable(str(exc))
    return True


def _unavailable(why: str) -> bool:
    if not _warned.is_set():
        _warned.set()
        log.warning("SPARQL evaluation is not sandboxed from the network (%s); the guard alone refuses "
                    "SERVICE", why)
    return False

