"""The volume plugins of the default profile: VolumeRestrictions, NodeVolumeLimits,
VolumeBinding and VolumeZone, over PersistentVolumes, claims, StorageClasses and CSI objects.

Each one skips (PreFilter Skip) when the pod uses no volume of its kind, as upstream does.
"""

from .binding import VolumeBinding
from .limits import NodeVolumeLimits
from .restrictions import VolumeRestrictions
from .zone import VolumeZone

__all__ = ["VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding", "VolumeZone"]
