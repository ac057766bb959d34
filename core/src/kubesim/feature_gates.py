"""Feature gates: kube-scheduler's `--feature-gates A=true,B=false` with v1.34's defaults.

KubeSchedulerConfiguration has no feature gates; kube-scheduler (like every Kubernetes
component) takes them on the command line. kubesim knows the gates that change what
kube-scheduler v1.34 does (the ones its plugins, queue and cache read, and the DRA and
storage gates of the default profile's plugins), each with its v1.34 default, stage and
whether it is locked. Parsing follows component-base's featuregate.Set: an unknown gate, a
value that is not a boolean, or a locked gate set to the other value is an error naming it.

Controllers read them as `runtime.feature_gates.enabled("Name")`; an unknown name there is
a programming error (ValueError), as upstream panics on an unregistered gate.
"""

# upstream: pkg/features/kube_features.go (v1.34 specs), component-base/featuregate/
# feature_gate.go (Set, SetFromMap), cli/flag/map_string_bool.go (the flag's syntax),
# pkg/scheduler/framework/plugins/feature/feature.go (the gates the plugins read)

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

__all__ = [
    "FeatureGateError",
    "FeatureGates",
    "FeatureSpec",
    "KUBE_SCHEDULER_V1_34",
    "MAX_FLAG_LENGTH",
    "check_feature_gates",
    "format_feature_gates",
    "parse_feature_gates",
]

#: at most this many characters of --feature-gates are read (bounded input)
MAX_FLAG_LENGTH = 4096


class FeatureGateError(ValueError):
    """An invalid --feature-gates value; the message names the gate (as upstream words it)."""


@dataclass(frozen=True)
class FeatureSpec:
    """A gate's v1.34 spec: default, stage (Alpha, Beta, GA, Deprecated), locked to default."""

    default: bool
    stage: str
    locked: bool = False


def _spec(default: bool, stage: str, locked: bool = False) -> FeatureSpec:
    return FeatureSpec(default, stage, locked)


#: The gates that change kube-scheduler v1.34's behaviour, with their v1.34 specs.
KUBE_SCHEDULER_V1_34: Mapping[str, FeatureSpec] = {
    # scheduling queue, preemption, API calls
    "SchedulerQueueingHints": _spec(True, "GA", locked=True),
    "SchedulerAsyncPreemption": _spec(True, "Beta"),
    "SchedulerPopFromBackoffQ": _spec(True, "Beta"),
    "SchedulerAsyncAPICalls": _spec(True, "Beta"),
    "NominatedNodeNameForExpectation": _spec(False, "Alpha"),
    "ClearingNominatedNodeNameAfterBinding": _spec(False, "Alpha"),
    # pod resources (NodeResourcesFit, BalancedAllocation, the queue's hints)
    "PodLevelResources": _spec(True, "Beta"),
    "InPlacePodVerticalScaling": _spec(True, "Beta"),
    "SidecarContainers": _spec(True, "GA", locked=True),
    # PodTopologySpread
    "NodeInclusionPolicyInPodTopologySpread": _spec(True, "GA", locked=True),
    "MatchLabelKeysInPodTopologySpread": _spec(True, "Beta"),
    "MatchLabelKeysInPodTopologySpreadSelectorMerge": _spec(True, "Beta"),
    # dynamic resource allocation (DynamicResources)
    "DynamicResourceAllocation": _spec(True, "GA"),
    "DRAAdminAccess": _spec(True, "Beta"),
    "DRAPrioritizedList": _spec(True, "Beta"),
    "DRAResourceClaimDeviceStatus": _spec(True, "Beta"),
    "DRASchedulerFilterTimeout": _spec(True, "Beta"),
    "DRAConsumableCapacity": _spec(False, "Alpha"),
    "DRADeviceBindingConditions": _spec(False, "Alpha"),
    "DRADeviceTaints": _spec(False, "Alpha"),
    "DRAExtendedResource": _spec(False, "Alpha"),
    "DRAPartitionableDevices": _spec(False, "Alpha"),
    # volumes (VolumeBinding, NodeVolumeLimits)
    "VolumeAttributesClass": _spec(True, "GA"),
    "CSIMigrationPortworx": _spec(True, "GA", locked=True),
    "StorageCapacityScoring": _spec(False, "Alpha"),
}

_TRUE = {"1", "t", "T", "TRUE", "true", "True"}
_FALSE = {"0", "f", "F", "FALSE", "false", "False"}


def _parse_bool(name: str, text: str) -> bool:
    """strconv.ParseBool, with featuregate.Set's message on failure."""
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise FeatureGateError(f'invalid value of {name}={text}, err: strconv.ParseBool: parsing "{text}": invalid syntax')


def parse_feature_gates(
    values: str | Iterable[str], known: Mapping[str, FeatureSpec] = KUBE_SCHEDULER_V1_34
) -> dict[str, bool]:
    """`A=true,B=false` (one string, or several merged in order as repeated flags are) into
    {gate: value}, checked against `known`; raises FeatureGateError naming the gate."""
    texts = [values] if isinstance(values, str) else list(values)
    out: dict[str, bool] = {}
    for text in texts:
        if len(text) > MAX_FLAG_LENGTH:
            raise FeatureGateError(f"longer than {MAX_FLAG_LENGTH} characters")
        for item in text.split(","):
            if not item.strip():
                continue  # mapStringBool: empty items are skipped
            if "=" not in item:
                raise FeatureGateError(f"missing bool value for {item.strip()}")
            name, _, raw = item.partition("=")
            name = name.strip()
            out[name] = _parse_bool(name, raw.strip())
    check_feature_gates(out, known)
    return out


def check_feature_gates(values: Mapping[str, bool], known: Mapping[str, FeatureSpec] = KUBE_SCHEDULER_V1_34) -> None:
    """featuregate.SetFromMap's checks: every gate known, locked ones only at their default."""
    for name in sorted(values):
        spec = known.get(name)
        if spec is None:
            raise FeatureGateError(
                f"unrecognized feature gate: {name} (kubesim knows the gates that change "
                f"kube-scheduler v1.34's behaviour: {', '.join(sorted(known))})"
            )
        if spec.locked and values[name] != spec.default:
            v, d = str(values[name]).lower(), str(spec.default).lower()
            raise FeatureGateError(f"cannot set feature gate {name} to {v}, feature is locked to {d}")


def format_feature_gates(values: Mapping[str, bool]) -> str:
    """The flag's text for `values`, gates sorted (`A=true,B=false`)."""
    return ",".join(f"{k}={str(v).lower()}" for k, v in sorted(values.items()))


class FeatureGates:
    """The gates in force: v1.34's defaults, overridden by what --feature-gates set."""

    __slots__ = ("_known", "_set")

    def __init__(
        self, overrides: Mapping[str, bool] | str | None = None, known: Mapping[str, FeatureSpec] = KUBE_SCHEDULER_V1_34
    ) -> None:
        if overrides is None:
            overrides = {}
        if isinstance(overrides, str):
            overrides = parse_feature_gates(overrides, known)
        else:
            check_feature_gates(overrides, known)
        self._known = known
        self._set = dict(overrides)

    def enabled(self, name: str) -> bool:
        """Whether gate `name` is on; an unknown name raises ValueError."""
        value = self._set.get(name)
        if value is not None:
            return value
        spec = self._known.get(name)
        if spec is None:
            raise ValueError(f"feature gate {name!r} is not known to kubesim")
        return spec.default

    @property
    def overrides(self) -> dict[str, bool]:
        """The gates set explicitly (what --feature-gates said)."""
        return dict(self._set)

    def as_dict(self) -> dict[str, bool]:
        """Every known gate with its value in force, by name."""
        return {name: self.enabled(name) for name in sorted(self._known)}

    def __repr__(self) -> str:
        return f"FeatureGates({format_feature_gates(self._set)!r})"
