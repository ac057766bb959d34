"""The resource-claim controller (pkg/controller/resourceclaim) in a SimEnv, alone and with the
scheduler: claims from templates, reuse, status, clean-up, and claims shared between pods."""

from __future__ import annotations

from typing import Any

from kubesim.testing.env import SimEnv
from kubesim_scheduler import hooks as scheduler_hooks
from kubesim_scheduler.resourceclaim_controller import POD_CLAIM_NAME_ANNOTATION, ResourceClaimController

API = "resource.k8s.io/v1"
NS = "default"


def template(name: str = "gpu", count: int = 1) -> dict[str, Any]:
    return {"apiVersion": API, "kind": "ResourceClaimTemplate", "metadata": {"name": name, "namespace": NS},
            "spec": {"metadata": {"labels": {"team": "ml"}},
                     "spec": {"devices": {"requests": [{"name": "g", "exactly": {"deviceClassName": "gpu", "count": count}}]}}}}


def pod(name: str, *claims: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": NS},
            "spec": {"containers": [{"name": "c", "image": "i", "resources": {"claims": [{"name": c["name"]} for c in claims]}}],
                     "resourceClaims": list(claims)}}


def claims(env: SimEnv) -> dict[str, dict[str, Any]]:
    return {c["metadata"]["name"]: c for c in env.list(API, "ResourceClaim", NS)}


def test_claim_from_template_is_created_owned_and_recorded() -> None:
    with SimEnv([ResourceClaimController], [template()], seed=7) as env:
        env.create(pod("trainer", {"name": "gpus", "resourceClaimTemplateName": "gpu"}))
        env.settle()
        (name, c), = claims(env).items()
        assert name.startswith("trainer-gpus-") and len(name) == len("trainer-gpus-") + 5
        assert c["metadata"]["annotations"] == {POD_CLAIM_NAME_ANNOTATION: "gpus"}
        assert c["metadata"]["labels"] == {"team": "ml"}
        owner = c["metadata"]["ownerReferences"][0]
        p = env.get("v1", "Pod", "trainer", NS)
        assert (owner["kind"], owner["name"], owner["uid"], owner["controller"], owner["blockOwnerDeletion"]) == (
            "Pod", "trainer", p["metadata"]["uid"], True, True)
        assert c["spec"]["devices"]["requests"][0]["exactly"]["count"] == 1
        assert p["status"]["resourceClaimStatuses"] == [{"name": "gpus", "resourceClaimName": name}]


def test_names_repeat_with_the_seed() -> None:
    def run(seed: int) -> list[str]:
        with SimEnv([ResourceClaimController], [template()], seed=seed) as env:
            for i in range(3):
                env.create(pod(f"p{i}", {"name": "gpus", "resourceClaimTemplateName": "gpu"}))
            env.settle()
            return sorted(claims(env))
    assert run(3) == run(3)
    assert run(3) != run(4)


def test_missing_template_waits_and_named_claims_are_left_alone() -> None:
    with SimEnv([ResourceClaimController], seed=0) as env:
        env.create(pod("p", {"name": "a", "resourceClaimTemplateName": "later"}, {"name": "b", "resourceClaimName": "shared"}))
        env.settle()
        assert claims(env) == {}
        assert "resourceClaimStatuses" not in env.get("v1", "Pod", "p", NS)["status"]
        env.create(template("later"))
        env.settle()
        (name,) = claims(env)
        assert env.get("v1", "Pod", "p", NS)["status"]["resourceClaimStatuses"] == [{"name": "a", "resourceClaimName": name}]


def test_existing_claim_of_the_pod_is_reused() -> None:
    """findPodResourceClaim: a claim the pod controls with the pod-claim annotation is taken over."""
    with SimEnv([ResourceClaimController], [template()], seed=0) as env:
        p = env.create(pod("p", {"name": "gpus", "resourceClaimTemplateName": "gpu"}))
        env.create({"apiVersion": API, "kind": "ResourceClaim",
                    "metadata": {"name": "mine", "namespace": NS, "annotations": {POD_CLAIM_NAME_ANNOTATION: "gpus"},
                                 "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "p",
                                                      "uid": p["metadata"]["uid"], "controller": True}]},
                    "spec": template()["spec"]["spec"]})
        env.settle()
        assert list(claims(env)) == ["mine"]
        assert env.get("v1", "Pod", "p", NS)["status"]["resourceClaimStatuses"] == [{"name": "gpus", "resourceClaimName": "mine"}]


def gpu_objects(gpus: int = 2) -> list[dict[str, Any]]:
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {"kubernetes.io/hostname": "n1"}},
            "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "10"}, "capacity": {"cpu": "8", "memory": "8Gi", "pods": "10"}}}
    cls = {"apiVersion": API, "kind": "DeviceClass", "metadata": {"name": "gpu"},
           "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}}
    sl = {"apiVersion": API, "kind": "ResourceSlice", "metadata": {"name": "n1-gpus"},
          "spec": {"driver": "gpu.example.com", "nodeName": "n1", "pool": {"name": "n1", "resourceSliceCount": 1},
                   "devices": [{"name": f"gpu-{i}"} for i in range(gpus)]}}
    return [node, cls, sl, template()]


def sim(gpus: int = 2) -> SimEnv:
    return SimEnv([ResourceClaimController, scheduler_hooks.SchedulerController], gpu_objects(gpus), seed=0,
                  plugins=[scheduler_hooks])


def test_pod_deletion_frees_devices_for_a_pending_pod() -> None:
    with sim(gpus=1) as env:
        env.create(pod("first", {"name": "gpus", "resourceClaimTemplateName": "gpu"}))
        env.create(pod("second", {"name": "gpus", "resourceClaimTemplateName": "gpu"}))
        env.settle()
        assert env.get("v1", "Pod", "first", NS)["spec"].get("nodeName") == "n1"
        assert not env.get("v1", "Pod", "second", NS)["spec"].get("nodeName")
        first_claim = env.get("v1", "Pod", "first", NS)["status"]["resourceClaimStatuses"][0]["resourceClaimName"]
        assert claims(env)[first_claim]["status"]["allocation"]["devices"]["results"][0]["device"] == "gpu-0"
        env.delete("v1", "Pod", "first", NS)
        env.step()
        env.settle()
        assert first_claim not in claims(env)
        assert env.get("v1", "Pod", "second", NS)["spec"].get("nodeName") == "n1"


def test_claim_shared_between_pods() -> None:
    """Two pods name one claim: one allocation, both reserved, on the allocation's node."""
    with sim() as env:
        env.create({"apiVersion": API, "kind": "ResourceClaim", "metadata": {"name": "shared", "namespace": NS},
                    "spec": template()["spec"]["spec"]})
        env.create(pod("a", {"name": "g", "resourceClaimName": "shared"}))
        env.create(pod("b", {"name": "g", "resourceClaimName": "shared"}))
        env.settle()
        c = claims(env)["shared"]
        assert [r["name"] for r in c["status"]["reservedFor"]] == ["a", "b"]
        assert len(c["status"]["allocation"]["devices"]["results"]) == 1
        assert {env.get("v1", "Pod", n, NS)["spec"].get("nodeName") for n in ("a", "b")} == {"n1"}
        env.delete("v1", "Pod", "a", NS)
        env.settle()
        c = claims(env)["shared"]
        assert [r["name"] for r in c["status"]["reservedFor"]] == ["b"] and c["status"]["allocation"]
        env.delete("v1", "Pod", "b", NS)
        env.settle()
        c = claims(env)["shared"]  # not generated for a pod: kept, but deallocated and unprotected
        assert "allocation" not in c["status"] and "reservedFor" not in c["status"]
        assert "resource.kubernetes.io/delete-protection" not in (c["metadata"].get("finalizers") or [])


def test_idle_with_the_gate_off() -> None:
    """kube-controller-manager starts the controller only with DynamicResourceAllocation on."""
    with SimEnv([ResourceClaimController], [template()], seed=0,
                options={"feature_gates": "DynamicResourceAllocation=false"}) as env:
        env.create(pod("p", {"name": "gpus", "resourceClaimTemplateName": "gpu"}))
        env.settle()
        assert claims(env) == {}


def test_only_pods_with_template_claims_are_synced() -> None:
    """A pod without a resourceClaimTemplateName (spec.resourceClaims is immutable) gives syncPod
    nothing to do: no Pod key is queued for it; a named claim's key still is."""
    from kubesim.cluster import WatchEvent

    with SimEnv([ResourceClaimController], seed=0) as env:
        ctl = next(c for c in env.controllers if isinstance(c, ResourceClaimController))
        plain = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": NS},
                 "spec": {"containers": [{"name": "c", "image": "i"}]}}
        assert list(ctl.keys_for(WatchEvent("MODIFIED", plain, None, "", None))) == []
        named = pod("n", {"name": "shared", "resourceClaimName": "shared-claim"})
        assert list(ctl.keys_for(WatchEvent("ADDED", named, None, "", None))) == [("ResourceClaim", NS, "shared-claim")]
        templated = pod("t", {"name": "gpus", "resourceClaimTemplateName": "gpu"})
        assert list(ctl.keys_for(WatchEvent("ADDED", templated, None, "", None))) == [("Pod", NS, "t")]
