"""Joining Ray (``--ray``): a Ray started here, or a cluster that is checked to answer, and
to answer as Ray does, before Ray is asked to join it (Ray retries a silent address, or one
where something else listens, for minutes)."""

from __future__ import annotations

import logging
import os
import signal
import socket
import threading
from typing import Any

from hfrender.errors import InputError, first_line
from hfrender.limits import usable_cores
from hfrender.signals import STOPS

# an HTTP/2 client's first bytes: the preface and an empty SETTINGS frame; a gRPC server
# (Ray's GCS, and Ray Client's ray://) answers with a SETTINGS frame of its own
H2_HELLO = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
H2_SETTINGS = 4  # a frame's type, its fourth byte
NO_CLUSTER = "Could not find any running Ray instance"


def connect(address: str | None) -> Any:
    """Ray, started here sized to this machine (``address`` None, unless ``RAY_ADDRESS``
    names a cluster) or connected to a cluster (``"auto"`` or an address); one line naming
    the extra when it is missing."""
    try:
        import ray
    except ImportError:
        raise InputError("--ray needs Ray: pip install 'hfrender[ray]'") from None
    env = os.environ.get("RAY_ADDRESS") or None
    given = f"--ray {address}" if address else (f"--ray (RAY_ADDRESS={env!r})" if env else
                                                 "--ray")
    if address in (None, "auto") and env:  # Ray reads it over either
        given = f"{given} (RAY_ADDRESS={env!r})" if address else given
        _answers(env, given)
    elif address is not None:  # a dead address is one line, also where Ray already runs
        _answers(address, given)
    if not ray.is_initialized():
        _init(ray, address, env, given)
    return ray


def _init(ray: Any, address: str | None, env: str | None, given: str) -> None:
    verbose = logging.getLogger("hfrender").isEnabledFor(logging.INFO)  # -v: Ray's own too
    kwargs: dict = {"include_dashboard": False, "log_to_driver": False,
                    "address": address,  # None: RAY_ADDRESS's cluster
                    "logging_level": logging.INFO if verbose else logging.ERROR}  # (was:
    # "Started a local Ray instance." and its token warning on every run, --quiet too)
    if address is None and not env:
        # a Ray of its own, also beside a cluster that 'ray start' began on this machine
        # (Ray would join that one, and refuse the CPU count)
        kwargs.update(address="local", num_cpus=usable_cores())
    handlers = {sig: signal.getsignal(sig) for sig in STOPS}
    try:
        ray.init(**kwargs)
        for sig, handler in handlers.items():  # Ray's own SIGTERM handler (a crash dump,
            if handler is not None and threading.current_thread() is threading.main_thread():
                signal.signal(sig, handler)  # exit 1, no segment kept) gives way to ours
    except ConnectionError as exc:  # "auto" (or RAY_ADDRESS) with no cluster to join
        said = first_line(exc)
        if str(exc).strip() and NO_CLUSTER not in said:  # e.g. its token authentication
            token = "" if os.environ.get("RAY_AUTH_MODE") else (
                " (a cluster with token authentication is joined with RAY_AUTH_MODE=token "
                "set here, and its token: RAY_AUTH_TOKEN, or the file ~/.ray/auth_token)")
            raise InputError(f"{given}: Ray could not join the cluster: {said}{token}"
                             ) from None
        raise InputError(f"{given}: Ray found no cluster to join; start one with 'ray "
                         "start --head', or give --ray alone with RAY_ADDRESS unset for "
                         "a Ray started here") from None
    except ValueError as exc:  # "Invalid address format: foo"
        raise InputError(f"{given}: {first_line(exc)}; give HOST:PORT (as 'ray start "
                         "--head' printed it, port 6379 by default), ray://HOST:PORT, auto, "
                         "or --ray alone for a Ray started here") from None


def _answers(address: str, given: str, timeout: float = 5.0) -> None:
    """A cluster's ``host:port`` (or ``ray://host:port``) must answer, as a gRPC server
    does, before Ray is asked to join it: Ray itself retries an address where nothing
    listens, or where another server does (the dashboard's port), for minutes, repeating
    its log line and nothing else."""
    where = address.removeprefix("ray://")
    host, _, port = where.rpartition(":")
    host = host.strip("[]")  # [::1]:6379
    if not host or not port.isdigit():
        return  # "auto", or a form Ray reads its own way
    try:
        with socket.create_connection((host, int(port)), timeout=timeout) as s:
            grpc = _speaks_grpc(s, timeout)
    except OSError as exc:
        why = f"nothing answered in {timeout:g} s" if isinstance(exc, TimeoutError) else (
            exc.strerror or str(exc))
        alone = ("unset RAY_ADDRESS and give --ray alone" if os.environ.get("RAY_ADDRESS")
                 else "give --ray alone")  # (was: "--ray alone", which joins RAY_ADDRESS's)
        raise InputError(f"{given}: no Ray cluster there ({why}); start one with 'ray start "
                         f"--head' on that machine, or {alone} for a Ray started here"
                         ) from None
    if not grpc:
        raise InputError(f"{given}: something answers there, but not Ray (the dashboard's "
                         "port is 8265; a cluster's address is the one 'ray start --head' "
                         "printed, port 6379 by default)")


def _speaks_grpc(s: socket.socket, timeout: float) -> bool:
    """Whether the server on ``s`` answers an HTTP/2 client as gRPC does (not where Ray
    runs with TLS, ``RAY_USE_TLS``: its first bytes are a TLS handshake's; taken as Ray)."""
    if os.environ.get("RAY_USE_TLS", "0") not in ("", "0", "false", "False"):
        return True
    s.settimeout(timeout)
    s.sendall(H2_HELLO)
    data = b""
    try:
        while len(data) < 9:
            chunk = s.recv(9 - len(data))
            if not chunk:
                break
            data += chunk
    except OSError:  # a server that says nothing in time
        pass
    return len(data) >= 4 and data[3] == H2_SETTINGS
