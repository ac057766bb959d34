"""Ports of k8s-migration-controller v1 pkg/monitoring/{controller,request,migration_policy,slope}_test.go."""

from __future__ import annotations

import pytest

from fake_client import fake_client
from kubesim_pod_migration.client import FilteredClient
from kubesim_pod_migration.controller import MigrationController, NodeFullError
from kubesim_pod_migration.policies import (
    BigEnoughMigrator,
    MaxMigrator,
    MigrationPolicyError,
    OptimalMigrator,
    SlopeMigrator,
    count_migrations,
    make_migration_policy,
)
from kubesim_pod_migration.requests import (
    Cluster,
    MigrationCmd,
    NodeFreeGbRequest,
    SlopeRequester,
    ThresholdPolicy,
    make_request_policy,
)

NODE_GB = 100.0
CLUSTER = Cluster(NODE_GB)


def controller(threshold: float, client: object, migrator: str = "max") -> MigrationController:
    policy = ThresholdPolicy(threshold, CLUSTER, client)  # type: ignore[arg-type]
    return MigrationController(policy, make_migration_policy(migrator, CLUSTER, client))  # type: ignore[arg-type]


# --- controller_test.go ----------------------------------------------------------------------

def test_migrate_max_pod_on_critical_node_to_the_other_node() -> None:
    client = fake_client(NODE_GB, {"w_z2": 42, "q_z2": 45}, {"w_z1": 10})
    migs = controller(20, client).migrations()
    assert migs == [MigrationCmd("q_z2", 45, "z1")]


def test_do_not_migrate_if_other_node_is_full() -> None:
    client = fake_client(NODE_GB, {"w_z2": 30, "q_z2": 30, "z2_z": 30}, {"w_z1": 80})
    with pytest.raises(NodeFullError) as err:
        controller(20, client).migrations()
    assert err.value.migrations == []
    assert err.value.request == NodeFreeGbRequest("z2", 10.0)


def test_do_not_migrate_if_other_node_is_full_after_migration() -> None:
    client = fake_client(NODE_GB, {"w_z1": 27, "q_z1": 30, "z3_t": 30}, {"w_z2": 30, "q_z2": 30})
    with pytest.raises(NodeFullError) as err:
        controller(20, client).migrations()
    assert err.value.migrations == []


def test_filtered_client_skips_pods_past_95_percent_of_runtime() -> None:
    raw = fake_client(NODE_GB, {"w_z2": 42, "q_z2": 45}, {"w_z1": 10})
    raw.percent = {"q_z2": 90.0, "w_z2": 96.0}
    raw.executed = {"q_z2": 50, "w_z2": 50}
    raw.runtimes = {"q_z2": 5000, "w_z2": 5000}
    migs = controller(20, FilteredClient(raw), "big-enough").migrations()
    assert migs[0].pod == "q_z2"


def test_filtered_client_skips_pods_with_less_than_180_s_left() -> None:
    raw = fake_client(NODE_GB, {"w_z2": 42, "q_z2": 45}, {"w_z1": 10})
    raw.percent = {"q_z2": 90.0, "w_z2": 90.0}
    raw.executed = {"w_z2": 100, "q_z2": 50}
    raw.runtimes = {"w_z2": 180, "q_z2": 1000}
    client = FilteredClient(raw)
    assert client.pod_memories("z2") == {"q_z2": 45}
    assert controller(20, client, "big-enough").migrations()[0].pod == "q_z2"


def test_request_below_min_request_size_ends_the_pass() -> None:
    client = fake_client(NODE_GB, {"w_z2": 42, "q_z2": 40}, {"w_z1": 10})  # 18 % free: request 2 GB < 7
    assert controller(20, client).migrations() == []


def test_count_migrations_and_max_pod() -> None:
    assert count_migrations("mmo10n-worker-l-7qvtp") == 2
    assert count_migrations("default/mo10n-worker") == 1
    assert count_migrations("o10n-worker") == 0
    cmds = MaxMigrator(CLUSTER, fake_client(NODE_GB, {"w_z1": 1000, "q_z1": 5_000_000})).commands(
        NodeFreeGbRequest("z1", 1))
    assert cmds == [MigrationCmd("q_z1", 5_000_000)]


# --- request_test.go -------------------------------------------------------------------------

def test_threshold_requester_validates_as_much_as_possible() -> None:
    client = fake_client(NODE_GB, {"w_z2": 60, "q_z2": 40}, {"w_z1": 1, "q_z1": 30}, {"w_z3": 30, "q_z3": 5})
    cmds = [MigrationCmd("w_z2", 60), MigrationCmd("q_z2", 40)]
    assert ThresholdPolicy(10, CLUSTER, client).validate("z2", cmds) == [MigrationCmd("q_z2", 40, "z1")]
    two = fake_client(NODE_GB, {"w_z2": 60, "q_z2": 40}, {"w_z1": 1, "q_z1": 30})
    assert SlopeRequester(10, CLUSTER, two).validate("z2", cmds) == [MigrationCmd("q_z2", 40, "z1")]


def test_slope_requester_predicts_usage() -> None:
    client = fake_client(NODE_GB, {"w_z2": 40, "q_z2": 45}, {"w_z1": 50, "q_z1": 30})
    client.slopes = {("z1", "w_z1"): 3.0, ("z1", "q_z1"): 0.0, ("z2", "w_z2"): 1.5, ("z2", "q_z2"): 1.0}
    requests = SlopeRequester(10, CLUSTER, client, prediction_time=5).requests()
    assert sorted(requests, key=lambda r: r.node) == [NodeFreeGbRequest("z1", 5.0), NodeFreeGbRequest("z2", 7.5)]


def test_threshold_request_amount() -> None:
    client = fake_client(NODE_GB, {"w_z2": 40, "q_z2": 45}, {"w_z1": 1, "q_z1": 30})
    assert ThresholdPolicy(40, CLUSTER, client).requests() == [NodeFreeGbRequest("z2", 25.0)]


def test_unknown_policies_name_the_choices() -> None:
    client = fake_client(NODE_GB, {"w_z1": 1})
    with pytest.raises(ValueError, match="threshold or slope"):
        make_request_policy("nope", 10, CLUSTER, client)
    with pytest.raises(ValueError, match="optimal, max, big-enough or slope"):
        make_migration_policy("nope", CLUSTER, client)


# --- migration_policy_test.go ----------------------------------------------------------------

def test_max_migrator() -> None:
    sut = MaxMigrator(CLUSTER, fake_client(NODE_GB, {"ow_z2": 40, "oq_z2": 45}, {"ow_z1": 10}))
    assert sut.commands(NodeFreeGbRequest("z2", 41))[0].usage >= 41
    with pytest.raises(MigrationPolicyError):
        sut.commands(NodeFreeGbRequest("z2", 60))


def test_big_enough_migrator_chooses_smallest_pod_that_is_big_enough() -> None:
    sut = BigEnoughMigrator(CLUSTER, fake_client(NODE_GB, {"ow_z2": 20, "oq_z2": 30, "z2_r": 40}, {"ow_z1": 10}))
    assert sut.commands(NodeFreeGbRequest("z2", 26)) == [MigrationCmd("oq_z2", 30)]
    with pytest.raises(MigrationPolicyError):
        sut.commands(NodeFreeGbRequest("z2", 41))


def test_knapsack_migration() -> None:
    sut = OptimalMigrator(CLUSTER, fake_client(NODE_GB, {"ow_z2": 20, "oq_z2": 25, "or_z2": 40}, {"ow_z1": 10}), 0)
    cmds = sut.commands(NodeFreeGbRequest("z2", 50))
    assert sorted(cmds, key=lambda c: c.pod) == [MigrationCmd("oq_z2", 25), MigrationCmd("ow_z2", 20)]


def test_optimal_does_not_migrate_small_jobs() -> None:
    sut = OptimalMigrator(CLUSTER, fake_client(NODE_GB, {"ow_z2": 20, "oq_z2": 25, "or_z2": 1, "oy_z2": 6}), 1)
    cmds = sut.commands(NodeFreeGbRequest("z2", 50))
    assert MigrationCmd("or_z2", 1) not in cmds
    assert sum(c.usage for c in cmds) == 45  # 20 + 25 (the best fit under 50)


def test_optimal_punishes_migrated_jobs() -> None:
    client = fake_client(NODE_GB, {"ow_z2": 20, "oq_z2": 16, "mr_z2": 33, "ot_z2": 17}, {"ow_z1": 10})
    cmds = OptimalMigrator(CLUSTER, client, 0).commands(NodeFreeGbRequest("z2", 50))
    assert cmds == [MigrationCmd("ot_z2", 17), MigrationCmd("ow_z2", 20)]


# --- slope_test.go ---------------------------------------------------------------------------

def _slope_client(free: float, slopes: dict[str, float], extra: dict[str, float] | None = None) -> object:
    pods = {"w_z2": 40.0, "q_z2": 45.0, **(extra or {})}
    client = fake_client(NODE_GB, pods, {"w_z1": 50, "q_z1": 30})
    client.slopes = {("z2", pod): s for pod, s in slopes.items()}
    client.node_free = {"z2": free}
    return client


def test_slope_migrator_migrates_the_pod_with_the_biggest_slope() -> None:
    sut = SlopeMigrator(CLUSTER, _slope_client(10, {"w_z2": 3, "q_z2": 1}), 5)  # type: ignore[arg-type]
    assert [c.pod for c in sut.commands(NodeFreeGbRequest("z2"))] == ["w_z2"]


def test_slope_migrator_no_migration_without_slope_or_when_the_buffer_holds() -> None:
    assert SlopeMigrator(CLUSTER, _slope_client(10, {"w_z2": 0, "q_z2": 0}), 5).commands(  # type: ignore[arg-type]
        NodeFreeGbRequest("z2")) == []
    assert SlopeMigrator(CLUSTER, _slope_client(10, {"w_z2": 1, "q_z2": 0.5}), 5).commands(  # type: ignore[arg-type]
        NodeFreeGbRequest("z2")) == []


def test_slope_migrator_selects_all_pods_when_needed() -> None:
    client = _slope_client(5, {"w_z2": 2, "q_z2": 1.5, "z_z2": 2}, {"z_z2": 10})
    cmds = SlopeMigrator(CLUSTER, client, 5).commands(NodeFreeGbRequest("z2"))  # type: ignore[arg-type]
    assert [c.pod for c in cmds] == ["w_z2", "z_z2", "q_z2"]
