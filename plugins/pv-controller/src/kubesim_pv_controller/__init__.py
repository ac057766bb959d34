"""The PersistentVolume controller for kubesim: binding and dynamic provisioning of claims."""

from .controller import PersistentVolumeController
from .provisioning import provisioned_volume

__all__ = ["PersistentVolumeController", "provisioned_volume"]
