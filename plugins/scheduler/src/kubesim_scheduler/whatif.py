"""A Scheduler over a fixed cluster for what-if questions (`kubesim capacity`).

cluster-capacity runs the real kube-scheduler against a fake clientset holding a copy of the
cluster and feeds it one pod at a time (upstream: kubernetes-sigs/cluster-capacity
pkg/framework/simulator.go). Here the same Scheduler the SimulationController runs is fed
directly: one pod in, one ScheduleOne, bound or not. Victims of preemption are never evicted
(the question is what fits without disrupting anyone).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kubesim.capacity import Placement
from kubesim.cluster import copy_tree
from kubesim.feature_gates import FeatureGates
from kubesim.k8s.keys import object_key

from .extender import build_extenders
from .framework.interface import Plugin
from .framework.pod_info import pod_key
from .profiles import load_settings
from .scheduler import Scheduler

__all__ = ["WhatIfScheduler"]

_TERMINAL = ("Succeeded", "Failed")


class WhatIfScheduler:
    """kubesim.capacity.SchedulingSimulator over kubesim-scheduler's Scheduler."""

    def __init__(self, objects: Sequence[Mapping[str, Any]], options: Mapping[str, Any],
                 registry: Mapping[str, type[Plugin]], extenders: Sequence[Any], seed: int) -> None:
        gates = FeatureGates(options.get("feature_gates") or None).as_dict()
        settings = load_settings(options.get("scheduler_config"), registry, gates)
        self._others: dict[tuple[str, str], list[Mapping[str, Any]]] = defaultdict(list)
        self.scheduler = Scheduler(
            settings.profiles,
            registry=registry,
            seed=seed,
            lister=self._list,
            preempt_pod=lambda victim, preemptor, node: False,
            patch_nominated_node=lambda pod, node: None,
            percentage_of_nodes_to_score=settings.percentage_of_nodes_to_score,
            extenders=build_extenders(settings.config.extenders, extenders),
            # every attempt is dropped at once; "all" trims nothing, so a failure's FitError
            # text is read from the attempt (lazily, only for failures)
            detail="all",
            feature_gates=gates,
            writer=self,
        )
        pods = []
        for obj in objects:
            kind = str(obj.get("kind", ""))
            if kind == "Node" and obj.get("apiVersion") == "v1":
                self.scheduler.add_node(obj)
            elif kind == "Pod" and obj.get("apiVersion") == "v1":
                pods.append(obj)
            else:
                self._others[(kind, str((obj.get("metadata") or {}).get("namespace") or ""))].append(obj)
        # nodes first, as the informers' caches would hold them; pods in the order of the
        # API server's list (storage key order), which is each node's pod order in the cache
        for pod in sorted(pods, key=object_key):
            self.add_pod(pod)

    def _list(self, kind: str, namespace: str | None) -> Iterable[Mapping[str, Any]]:
        if kind == "Node":
            return list(self.scheduler.nodes.values())
        if kind == "Pod":
            return [p for p in self.scheduler.pods.values() if namespace is None
                    or (p.get("metadata") or {}).get("namespace") == namespace]
        if namespace is not None:
            return list(self._others.get((kind, namespace), ()))
        return [o for (k, _), objs in sorted(self._others.items()) if k == kind for o in objs]

    # ObjectWriter: plugins' writes (DynamicResources' claims) stay in this what-if's objects
    def update(self, obj: Mapping[str, Any]) -> Mapping[str, Any]:
        meta = obj.get("metadata") or {}
        key = (str(obj.get("kind", "")), str(meta.get("namespace") or ""))
        stored = copy_tree(dict(obj))
        objs = self._others[key]
        for i, old in enumerate(objs):
            if (old.get("metadata") or {}).get("name") == meta.get("name"):
                objs[i] = stored
                return stored
        objs.append(stored)
        return stored

    def update_status(self, obj: Mapping[str, Any]) -> Mapping[str, Any]:
        return self.update(obj)

    def add_node(self, node: Mapping[str, Any]) -> None:
        self.scheduler.add_node(node)

    def remove_node(self, name: str) -> None:
        self.scheduler.remove_node(name)

    def add_pod(self, pod: Mapping[str, Any]) -> None:
        """Account a bound, non-terminal pod; others are not the scheduler's concern here."""
        if (pod.get("status") or {}).get("phase") in _TERMINAL or not (pod.get("spec") or {}).get("nodeName"):
            return
        self.scheduler.add_pod(pod)

    def remove_pod(self, pod: Mapping[str, Any]) -> None:
        self.scheduler.remove_pod(pod_key(pod))

    def schedule(self, pod: Mapping[str, Any], explain: bool = True) -> Placement:
        key = pod_key(pod)
        self.scheduler.add_pod(pod)
        if explain:
            attempt = self.scheduler.schedule_one()
        else:
            # PostFilter only explains here (victims are never evicted) and its dry run over
            # every node is most of a failed attempt's cost
            saved = {name: fw.post_filter_plugins for name, fw in self.scheduler.frameworks.items()}
            try:
                for fw in self.scheduler.frameworks.values():
                    fw.post_filter_plugins = []
                attempt = self.scheduler.schedule_one()
            finally:
                for name, fw in self.scheduler.frameworks.items():
                    fw.post_filter_plugins = saved[name]
        if attempt is not None and attempt.bound and attempt.node is not None:
            return Placement(attempt.node)
        if attempt is None:
            message = "the pod was not handed out by the scheduling queue"
        else:
            message = attempt.message() if explain else ""
        self.scheduler.remove_pod(key)
        return Placement(None, message)

    def node_names(self) -> list[str]:
        return list(self.scheduler.nodes)
