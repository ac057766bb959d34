"""The resource-claim controller: ResourceClaims from templates for pods, and their clean-up.

Ports kube-controller-manager's pkg/controller/resourceclaim/controller.go (syncPod,
handleClaim, syncClaim) on simulated time:
- for each pod entry with resourceClaimTemplateName, a claim is created from the template
  (generateName `<pod>-<claim>-`, so the name is `<pod>-<claim>-<5 chars>` from the
  cluster's seeded generator, hence repeatable), owned by the pod (controller,
  blockOwnerDeletion) and annotated `resource.kubernetes.io/pod-claim-name`; an existing
  claim so owned and annotated is reused; pod.status.resourceClaimStatuses records it;
- a claim's status.reservedFor loses pods that are gone or done; a claim reserved for no one
  is deallocated (allocation cleared, delete-protection finalizer removed), and a claim
  generated for a pod that is gone or done is deleted (the garbage collector also deletes it
  with its pod).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from typing import Any, cast

from kubesim import ReconcileController
from kubesim.cluster import WatchEvent, copy_tree
from kubesim.errors import ApiError, NotFound

from .plugins.dynamicresources.claims import API_VERSION, FINALIZER

__all__ = ["ResourceClaimController", "POD_CLAIM_NAME_ANNOTATION"]

POD_CLAIM_NAME_ANNOTATION = "resource.kubernetes.io/pod-claim-name"
_MAX_GENERATE_NAME = 57  # upstream truncates `<pod>-<claim>` so that the random suffix fits a name

Obj = Mapping[str, Any]


def _meta(obj: Obj) -> Obj:
    return obj.get("metadata") or {}


def _done(pod: Obj) -> bool:
    """isPodDone: terminal phase, or deleted before it ever ran (no node)."""
    phase = (pod.get("status") or {}).get("phase")
    deleting = bool(_meta(pod).get("deletionTimestamp")) and not (pod.get("spec") or {}).get("nodeName")
    return phase in ("Succeeded", "Failed") or deleting


def _owner_pod(claim: Obj) -> Obj | None:
    for ref in _meta(claim).get("ownerReferences") or ():
        if ref.get("controller") and ref.get("kind") == "Pod" and ref.get("apiVersion") == "v1":
            return cast(Obj, ref)
    return None


class ResourceClaimController(ReconcileController):
    """Creates the claims of pods' resourceClaimTemplateName entries and cleans up unused claims."""

    name = "resourceclaim"
    watches = (("v1", "Pod"), (API_VERSION, "ResourceClaim"), (API_VERSION, "ResourceClaimTemplate"))

    def keys_for(self, event: WatchEvent) -> Iterable[Hashable]:
        obj = event.object
        ns = _meta(obj).get("namespace") or "default"
        kind = obj.get("kind")
        if kind == "Pod":
            keys: list[Hashable] = []
            claims = (obj.get("spec") or {}).get("resourceClaims") or ()
            # only a pod claim from a template gives syncPod anything to do (spec.resourceClaims
            # is immutable, so a pod without one never will)
            if any(pc.get("resourceClaimTemplateName") for pc in claims):
                keys.append(("Pod", ns, _meta(obj).get("name", "")))
            # a pod that goes away or finishes frees the claims it reserved
            for status in (obj.get("status") or {}).get("resourceClaimStatuses") or ():
                if status.get("resourceClaimName"):
                    keys.append(("ResourceClaim", ns, status["resourceClaimName"]))
            for pc in claims:
                if pc.get("resourceClaimName"):
                    keys.append(("ResourceClaim", ns, pc["resourceClaimName"]))
            return keys
        if kind == "ResourceClaim":
            return [("ResourceClaim", ns, _meta(obj).get("name", ""))]
        # a template that appears may unblock pods waiting for it
        return [("Pod", ns, _meta(p).get("name", "")) for p in self.reader.list("v1", "Pod", ns)
                if any(pc.get("resourceClaimTemplateName") == _meta(obj).get("name")
                       for pc in (p.get("spec") or {}).get("resourceClaims") or ())]

    def initial_keys(self, obj: dict[str, Any]) -> Iterable[Hashable]:
        return self.keys_for(WatchEvent("ADDED", obj, None, "", None))

    def reconcile(self, key: Hashable) -> None:
        if not self.runtime.feature_gates.enabled("DynamicResourceAllocation"):
            return  # kube-controller-manager starts this controller only with the gate on
        kind, namespace, name = cast(tuple[str, str, str], key)
        try:
            if kind == "Pod":
                self._sync_pod(namespace, name)
            else:
                self._sync_claim(namespace, name)
        except NotFound:
            return
        except ApiError as exc:
            self.log.warning("resource claim sync failed", key=f"{kind} {namespace}/{name}", error=exc.message)

    # --- syncPod / handleClaim
    def _sync_pod(self, namespace: str, name: str) -> None:
        pod = self.reader.get("v1", "Pod", name, namespace, copy=False)  # copied below before a write
        if _done(pod) or _meta(pod).get("deletionTimestamp"):
            return
        statuses = {s.get("name"): s for s in (pod.get("status") or {}).get("resourceClaimStatuses") or ()}
        new_statuses: list[dict[str, Any]] = []
        for pc in (pod.get("spec") or {}).get("resourceClaims") or ():
            template_name = pc.get("resourceClaimTemplateName")
            if not template_name or pc.get("name") in statuses:
                continue
            claim = self._existing_claim(pod, str(pc.get("name")))
            if claim is None:
                try:
                    template = self.reader.get(API_VERSION, "ResourceClaimTemplate", template_name, namespace)
                except NotFound:
                    continue  # upstream: an error and a retry; the template's add event brings us back
                claim = self.client.create(self._claim_from_template(pod, str(pc.get("name")), template))
            new_statuses.append({"name": pc.get("name"), "resourceClaimName": _meta(claim).get("name")})
        if new_statuses:
            updated = copy_tree(dict(pod))
            status = updated.setdefault("status", {})
            status["resourceClaimStatuses"] = [*(status.get("resourceClaimStatuses") or ()), *new_statuses]
            self.client.update_status(updated)

    def _existing_claim(self, pod: Obj, pod_claim: str) -> Obj | None:
        """findPodResourceClaim: a claim the pod controls, annotated with this pod claim's name."""
        uid = _meta(pod).get("uid")
        for claim in self.reader.list(API_VERSION, "ResourceClaim", _meta(pod).get("namespace") or "default"):
            owner = _owner_pod(claim)
            if owner is not None and owner.get("uid") == uid and \
                    (_meta(claim).get("annotations") or {}).get(POD_CLAIM_NAME_ANNOTATION) == pod_claim:
                return claim
        return None

    @staticmethod
    def _claim_from_template(pod: Obj, pod_claim: str, template: Obj) -> dict[str, Any]:
        tmeta = ((template.get("spec") or {}).get("metadata") or {})
        pm = _meta(pod)
        annotations = {**(tmeta.get("annotations") or {}), POD_CLAIM_NAME_ANNOTATION: pod_claim}
        meta: dict[str, Any] = {
            "generateName": f"{pm.get('name', '')}-{pod_claim}-"[:_MAX_GENERATE_NAME],
            "namespace": pm.get("namespace") or "default",
            "annotations": annotations,
            "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": pm.get("name"), "uid": pm.get("uid"),
                                 "controller": True, "blockOwnerDeletion": True}],
        }
        if tmeta.get("labels"):
            meta["labels"] = dict(tmeta["labels"])
        return {"apiVersion": API_VERSION, "kind": "ResourceClaim", "metadata": meta,
                "spec": copy_tree(dict((template.get("spec") or {}).get("spec") or {}))}

    # --- syncClaim
    def _sync_claim(self, namespace: str, name: str) -> None:
        claim = self.reader.get(API_VERSION, "ResourceClaim", name, namespace)
        status = claim.get("status") or {}
        reserved = status.get("reservedFor") or []
        valid = [r for r in reserved if self._pod_in_use(namespace, r)]
        if valid != reserved or (not valid and (status.get("allocation") or FINALIZER in (_meta(claim).get("finalizers") or ()))):
            updated = copy_tree(dict(claim))
            st = updated.setdefault("status", {})
            st["reservedFor"] = valid
            if not valid:
                st.pop("reservedFor", None)
                st.pop("allocation", None)
                st.pop("devices", None)
            if st != status:
                updated = self.client.update_status(updated)
            if not valid and FINALIZER in (_meta(updated).get("finalizers") or ()):
                updated = copy_tree(dict(updated))
                updated["metadata"]["finalizers"] = [f for f in updated["metadata"]["finalizers"] if f != FINALIZER]
                updated = self.client.update(updated)
            claim = updated
        owner = _owner_pod(claim)
        if not valid and owner is not None and not _meta(claim).get("deletionTimestamp"):
            try:
                pod = self.reader.get("v1", "Pod", str(owner.get("name")), namespace)
                gone = _meta(pod).get("uid") != owner.get("uid") or _done(pod)
            except NotFound:
                gone = True
            if gone:
                self.client.delete(API_VERSION, "ResourceClaim", name, namespace)

    def _pod_in_use(self, namespace: str, ref: Obj) -> bool:
        if ref.get("resource") != "pods" or ref.get("apiGroup"):
            return True  # reservations by other consumers are theirs to clean up
        try:
            pod = self.reader.get("v1", "Pod", str(ref.get("name")), namespace)
        except NotFound:
            return False
        return _meta(pod).get("uid") == ref.get("uid") and not _done(pod)
