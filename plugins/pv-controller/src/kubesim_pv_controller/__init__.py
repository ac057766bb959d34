"""The PersistentVolume controllers for kubesim: binding and provisioning of claims, and the claims
of generic ephemeral volumes."""

from .controller import PersistentVolumeController
from .ephemeral import EphemeralVolumeController
from .provisioning import provisioned_volume

__all__ = ["EphemeralVolumeController", "PersistentVolumeController", "provisioned_volume"]
