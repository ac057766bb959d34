"""Feature gates: kube-scheduler's --feature-gates syntax, v1.34 defaults, upstream's errors."""

from __future__ import annotations

import pytest
from kubesim import Runtime
from kubesim.feature_gates import (
    KUBE_SCHEDULER_V1_34,
    FeatureGateError,
    FeatureGates,
    format_feature_gates,
    parse_feature_gates,
)


def test_v1_34_defaults() -> None:
    gates = FeatureGates()
    on = {"SchedulerQueueingHints", "SchedulerAsyncPreemption", "SchedulerPopFromBackoffQ",
          "DynamicResourceAllocation", "PodLevelResources", "InPlacePodVerticalScaling",
          "MatchLabelKeysInPodTopologySpread", "NodeInclusionPolicyInPodTopologySpread", "DRAPrioritizedList"}
    off = {"DRADeviceTaints", "DRAPartitionableDevices", "NominatedNodeNameForExpectation",
           "ClearingNominatedNodeNameAfterBinding", "StorageCapacityScoring", "DRAExtendedResource"}
    assert all(gates.enabled(g) for g in on) and not any(gates.enabled(g) for g in off)
    locked = {n for n, s in KUBE_SCHEDULER_V1_34.items() if s.locked}
    assert locked == {"SchedulerQueueingHints", "SidecarContainers", "NodeInclusionPolicyInPodTopologySpread",
                      "CSIMigrationPortworx"}
    assert gates.overrides == {} and len(gates.as_dict()) == len(KUBE_SCHEDULER_V1_34)


def test_parse_like_the_flag() -> None:
    got = parse_feature_gates(" SchedulerAsyncPreemption = false,,DRADeviceTaints=T,PodLevelResources=0 ")
    assert got == {"SchedulerAsyncPreemption": False, "DRADeviceTaints": True, "PodLevelResources": False}
    # repeated flags merge in order, the last value wins
    assert parse_feature_gates(["DRADeviceTaints=true", "DRADeviceTaints=false"]) == {"DRADeviceTaints": False}
    assert parse_feature_gates("") == {}
    assert format_feature_gates(got) == "DRADeviceTaints=true,PodLevelResources=false,SchedulerAsyncPreemption=false"
    # a locked gate may be set to its locked value
    assert parse_feature_gates("SchedulerQueueingHints=true") == {"SchedulerQueueingHints": True}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("NoSuchGate=true", "unrecognized feature gate: NoSuchGate (kubesim knows"),
        ("SchedulerQueueingHints=false", "cannot set feature gate SchedulerQueueingHints to false, feature is locked to true"),
        ("SidecarContainers=false", "cannot set feature gate SidecarContainers to false, feature is locked to true"),
        ("SchedulerAsyncPreemption=yes", 'invalid value of SchedulerAsyncPreemption=yes, err: strconv.ParseBool: parsing "yes"'),
        ("SchedulerAsyncPreemption", "missing bool value for SchedulerAsyncPreemption"),
        ("A=" + "x" * 5000, "longer than 4096 characters"),
    ],
)
def test_errors_name_the_gate(text: str, message: str) -> None:
    with pytest.raises(FeatureGateError) as exc:
        parse_feature_gates(text)
    assert str(exc.value).startswith(message)


def test_enabled_of_an_unknown_gate_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="'Nope' is not known"):
        FeatureGates().enabled("Nope")
    with pytest.raises(FeatureGateError):
        FeatureGates({"Nope": True})


def test_runtime_exposes_the_gates_of_its_options() -> None:
    rt = Runtime.standalone(options={"feature_gates": "DynamicResourceAllocation=false,DRADeviceTaints=true"})
    assert not rt.feature_gates.enabled("DynamicResourceAllocation")
    assert rt.feature_gates.enabled("DRADeviceTaints") and rt.feature_gates.enabled("SchedulerAsyncPreemption")
    assert rt.feature_gates is rt.feature_gates  # parsed once
    assert Runtime.standalone().feature_gates.overrides == {}
