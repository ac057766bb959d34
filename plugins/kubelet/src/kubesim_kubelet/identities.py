"""Deterministic stand-ins for what a container runtime and a CNI would hand out.

Node and pod IPs come from counters in the order the kubelet first sees nodes and starts
pods, so the same scenario always gets the same addresses; container and image IDs are
hashes of stable names (pod uids are counters in kubesim, see kubesim.cluster.identity).
"""

from __future__ import annotations

import hashlib
import ipaddress

__all__ = ["AddressPool", "container_id", "image_id"]

NODE_NETWORK = ipaddress.IPv4Network("172.16.0.0/12")
POD_NETWORK = ipaddress.IPv4Network("10.0.0.0/8")


class AddressPool:
    """Hands out the addresses of one network in order, skipping ones already taken."""

    def __init__(self, network: ipaddress.IPv4Network) -> None:
        self._network = network
        self._next = 1  # .0 is the network address
        self._taken: set[str] = set()

    def reserve(self, address: str) -> None:
        """Mark an address as used (e.g. an InternalIP the scenario gave a node)."""
        self._taken.add(address)

    def allocate(self) -> str:
        """The next free address; raises RuntimeError when the network is exhausted."""
        while self._next < self._network.num_addresses - 1:
            address = str(self._network.network_address + self._next)
            self._next += 1
            if address not in self._taken:
                self._taken.add(address)
                return address
        raise RuntimeError(f"no address left in {self._network}")


def container_id(pod_uid: str, container: str) -> str:
    """A containerd-style container ID derived from the pod's uid and the container's name."""
    digest = hashlib.sha256(f"{pod_uid}/{container}".encode()).hexdigest()
    return f"containerd://{digest}"


def _repository(image: str) -> str:
    """The image reference without tag or digest, normalised like docker.io references."""
    name = image.split("@", 1)[0]
    slash = name.rfind("/")
    colon = name.rfind(":")
    if colon > slash:
        name = name[:colon]
    first, _, rest = name.partition("/")
    if not rest:
        return f"docker.io/library/{name}"
    if "." not in first and ":" not in first and first != "localhost":
        return f"docker.io/{name}"
    return name


def image_id(image: str) -> str:
    """An image ID (repository@sha256:digest) with the digest derived from the image reference."""
    digest = hashlib.sha256(image.encode()).hexdigest()
    return f"{_repository(image)}@sha256:{digest}"
