"""Joining Ray (``--ray``): a Ray started here, or a cluster that is checked to answer
before Ray is asked to join it (Ray retries a silent address for minutes)."""

from __future__ import annotations

import os
import socket
from typing import Any

from hfrender.errors import InputError


def connect(address: str | None) -> Any:
    """Ray, started here sized to this machine (``address`` None, unless ``RAY_ADDRESS``
    names a cluster) or connected to a cluster (``"auto"`` or an address); one line naming
    the extra when it is missing."""
    try:
        import ray
    except ImportError:
        raise InputError("--ray needs Ray: pip install 'hfrender[ray]'") from None
    if address is not None:  # a dead address is one line, also where Ray already runs
        _answers(address)
    if not ray.is_initialized():
        kwargs: dict = {"include_dashboard": False, "log_to_driver": False,
                        "address": address}  # None: RAY_ADDRESS's cluster
        if address is None and not os.environ.get("RAY_ADDRESS"):
            # a Ray of its own, also beside a cluster that 'ray start' began on this
            # machine (Ray would join that one, and refuse the CPU count)
            kwargs.update(address="local", num_cpus=os.cpu_count() or 1)
        try:
            ray.init(**kwargs)
        except ConnectionError:  # "auto" (or RAY_ADDRESS) with no cluster to join
            given = f"--ray {address}" if address else \
                f"--ray (RAY_ADDRESS={os.environ.get('RAY_ADDRESS')!r})"
            raise InputError(f"{given}: Ray found no cluster to join; start one with 'ray "
                             "start --head', or give --ray alone with RAY_ADDRESS unset for "
                             "a Ray started here") from None
    return ray


def _answers(address: str, timeout: float = 5.0) -> None:
    """A cluster's ``host:port`` (or ``ray://host:port``) must answer before Ray is asked to
    join it: Ray itself retries an address where nothing listens for minutes, repeating
    its log line and nothing else."""
    where = address.removeprefix("ray://")
    host, _, port = where.rpartition(":")
    host = host.strip("[]")  # [::1]:6379
    if not host or not port.isdigit():
        return  # "auto", or a form Ray reads its own way
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as exc:
        why = f"nothing answered in {timeout:g} s" if isinstance(exc, TimeoutError) else (
            exc.strerror or str(exc))
        raise InputError(f"--ray {address}: no Ray cluster there ({why}); start one with "
                         "'ray start --head' on that machine, or give --ray alone for a Ray "
                         "started here") from None
