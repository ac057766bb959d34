"""meta.k8s.io/v1 Tables for kubectl get: the printers' columns, -o wide, includeObject, CRD printer
columns, and ages on the simulated clock."""

from __future__ import annotations

import json
import subprocess
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kubesim.serve.tables import human_duration
from kubesim.testing import KubesimServer
from kubesim.testing.watchstream import get

KubectlRun = Callable[..., "subprocess.CompletedProcess[str]"]

_QUICKSTART = Path(__file__).resolve().parents[3] / "examples" / "quickstart" / "scenario.yaml"

_TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
_KUBECTL_ACCEPT = f"{_TABLE},application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"

_OBJECTS = """\
apiVersion: v1
kind: Namespace
metadata: {name: shop}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop}
spec:
  containers: [{name: a, image: nginx}, {name: b, image: proxy}]
  readinessGates: [{conditionType: example.com/ready}]
---
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {node-role.kubernetes.io/control-plane: ""}}
status:
  conditions: [{type: Ready, status: "True"}]
  nodeInfo: {kubeletVersion: v1.34.1}
---
apiVersion: v1
kind: Event
metadata: {name: web.1, namespace: shop}
involvedObject: {kind: Pod, name: web, namespace: shop}
reason: Scheduled
message: assigned shop/web to n1
type: Normal
firstTimestamp: "2024-12-31T23:50:00Z"
lastTimestamp: "2024-12-31T23:55:00Z"
count: 2
"""


def _table(server: KubesimServer, path: str, accept: str = _KUBECTL_ACCEPT) -> tuple[str, dict[str, Any]]:
    content_type, body = get(server.url, path, accept)
    return content_type, json.loads(body)


def _columns(table: dict[str, Any], wide: bool = False) -> list[str]:
    return [c["name"] for c in table["columnDefinitions"] if wide or c["priority"] == 0]


@pytest.fixture
def objects(run_kubectl: KubectlRun, tmp_path: Any) -> None:
    manifest = tmp_path / "objects.yaml"
    manifest.write_text(_OBJECTS)
    run_kubectl("apply", "-f", str(manifest))


@pytest.mark.usefixtures("objects")
def test_a_list_as_a_table(server: KubesimServer) -> None:
    content_type, table = _table(server, "/api/v1/namespaces/shop/pods")
    assert content_type == _TABLE
    assert (table["kind"], table["apiVersion"]) == ("Table", "meta.k8s.io/v1")
    assert _columns(table) == ["Name", "Ready", "Status", "Restarts", "Age"]
    assert _columns(table, wide=True)[5:] == ["IP", "Node", "Nominated Node", "Readiness Gates"]
    assert table["columnDefinitions"][0]["format"] == "name"
    assert int(table["metadata"]["resourceVersion"]) > 0
    [row] = table["rows"]
    assert row["cells"] == ["web", "0/2", "Pending", "0", "0s", "<none>", "<none>", "<none>", "0/1"]
    assert row["object"]["kind"] == "PartialObjectMetadata" and row["object"]["metadata"]["namespace"] == "shop"
    assert "spec" not in row["object"]


@pytest.mark.usefixtures("objects")
def test_include_object_and_single_objects(server: KubesimServer) -> None:
    _, table = _table(server, "/api/v1/namespaces/shop/pods?includeObject=Object")
    assert table["rows"][0]["object"]["spec"]["containers"][0]["image"] == "nginx"
    _, table = _table(server, "/api/v1/namespaces/shop/pods?includeObject=None")
    assert "object" not in table["rows"][0]
    _, table = _table(server, "/api/v1/nodes/n1")
    assert [r["cells"][:5] for r in table["rows"]] == [["n1", "Ready", "control-plane", "0s", "v1.34.1"]]
    assert table["metadata"]["resourceVersion"]
    content_type, plain = _table(server, "/api/v1/nodes/n1", "application/json")
    assert content_type == "application/json" and plain["kind"] == "Node"
    with pytest.raises(urllib.error.HTTPError) as info:
        _table(server, "/api/v1/nodes?includeObject=Everything")
    assert info.value.code == 400 and json.loads(info.value.read())["reason"] == "BadRequest"


@pytest.mark.usefixtures("objects")
def test_partial_object_metadata(server: KubesimServer) -> None:
    wanted = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
    content_type, body = _table(server, "/api/v1/namespaces/shop/pods", wanted)
    assert content_type == "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
    assert (body["kind"], body["apiVersion"]) == ("PartialObjectMetadataList", "meta.k8s.io/v1")
    assert body["metadata"]["resourceVersion"]
    assert [(i["kind"], i["metadata"]["name"]) for i in body["items"]] == [("PartialObjectMetadata", "web")]
    assert "spec" not in body["items"][0]
    one = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
    _, body = _table(server, "/api/v1/nodes/n1", one)
    assert body["kind"] == "PartialObjectMetadata" and body["metadata"]["labels"] == {
        "node-role.kubernetes.io/control-plane": ""}


@pytest.mark.usefixtures("objects")
def test_ages_are_measured_on_the_simulated_clock(server: KubesimServer) -> None:
    _, table = _table(server, "/api/v1/namespaces/shop/events")
    assert _columns(table) == ["Last Seen", "Type", "Reason", "Object", "Message"]
    # the clock starts at 2025-01-01T00:00:00Z: the event was last seen 5 minutes before, first 10
    assert table["rows"][0]["cells"] == ["5m", "Normal", "Scheduled", "pod/web", "", "", "assigned shop/web to n1",
                                         "10m", 2, "web.1"]


@pytest.mark.usefixtures("objects")
def test_kubectl_get_prints_the_default_columns(run_kubectl: KubectlRun) -> None:
    lines = run_kubectl("get", "pods", "-A").stdout.splitlines()
    assert lines[0].split() == ["NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    assert lines[1].split() == ["shop", "web", "0/2", "Pending", "0", "0s"]
    wide = run_kubectl("get", "po", "-n", "shop", "-o", "wide").stdout.splitlines()[0]
    assert wide.split() == ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED", "NODE",
                            "READINESS", "GATES"]
    namespaces = run_kubectl("get", "ns").stdout.splitlines()
    assert namespaces[0].split() == ["NAME", "STATUS", "AGE"] and ["shop", "Active", "0s"] in \
        [line.split() for line in namespaces]
    nodes = run_kubectl("get", "no").stdout.splitlines()
    assert [line.split() for line in nodes] == [["NAME", "STATUS", "ROLES", "AGE", "VERSION"],
                                                ["n1", "Ready", "control-plane", "0s", "v1.34.1"]]


def test_kubectl_get_of_workloads_and_custom_resources(run_kubectl: KubectlRun, tmp_path: Any) -> None:
    manifest = tmp_path / "objects.yaml"
    manifest.write_text("""\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: app, image: nginx}]}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
""")
    run_kubectl("apply", "-f", str(manifest))
    deployments = run_kubectl("get", "deploy", "-o", "wide").stdout.splitlines()
    assert deployments[0].split() == ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "CONTAINERS", "IMAGES",
                                      "SELECTOR"]
    assert deployments[1].split()[1:4] == ["0/3", "0", "0"] and deployments[1].split()[5:] == ["app", "nginx",
                                                                                               "app=web"]
    classes = run_kubectl("get", "pc").stdout.splitlines()
    assert classes[0].split() == ["NAME", "VALUE", "GLOBAL-DEFAULT", "AGE", "PREEMPTIONPOLICY"]
    assert classes[1].split() == ["high", "1000", "false", "0s", "PreemptLowerPriority"]
    crd = tmp_path / "crd.yaml"
    crd.write_text("""\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets}
  versions:
  - name: v1
    served: true
    storage: true
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    - {name: Colors, type: string, jsonPath: ".spec.colors[1]", priority: 1}
    - {name: Ready, type: string, jsonPath: '.status.conditions[?(@.type=="Ready")].status'}
    - {name: All, type: string, jsonPath: .spec.colors}
    - {name: Wrong, type: integer, jsonPath: ".spec.colors[0]"}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
              colors: {type: array, items: {type: string}}
          status:
            type: object
            properties:
              conditions:
                type: array
                items: {type: object, properties: {type: {type: string}, status: {type: string}}}
""")
    run_kubectl("apply", "-f", str(crd))
    widget = tmp_path / "widget.yaml"
    widget.write_text("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1, namespace: default}\n"
                      "spec: {size: 3, colors: [red, blue]}\n"
                      "status: {conditions: [{type: Synced, status: 'False'}, {type: Ready, status: 'True'}]}\n")
    run_kubectl("apply", "-f", str(widget))
    assert [line.split() for line in run_kubectl("get", "widgets", "-o", "wide").stdout.splitlines()] == \
        [["NAME", "SIZE", "COLORS", "READY", "ALL", "WRONG", "AGE"],
         ["w1", "3", "blue", "True", '["red","blue"]', "0s"]]  # WRONG: an empty cell (a string, not an integer)
    crds = run_kubectl("get", "crd", "widgets.example.com").stdout.splitlines()
    assert [line.split() for line in crds] == [["NAME", "CREATED", "AT"],
                                               ["widgets.example.com", "2025-01-01T00:00:00Z"]]


@pytest.mark.needs_plugins
def test_kubectl_get_scenarios(run_kubectl: KubectlRun) -> None:
    assert "No resources found" in run_kubectl("get", "scenarios").stderr
    run_kubectl("apply", "-f", str(_QUICKSTART))
    lines = [line.split() for line in run_kubectl("get", "scenarios").stdout.splitlines()]
    assert lines[0] == ["NAME", "PHASE", "STEP", "MINOR", "STEP", "PHASE", "AGE"] and lines[1][0] == "quickstart"


@pytest.mark.parametrize(("seconds", "shown"), [
    (-5, "<invalid>"), (0, "0s"), (119, "119s"), (150, "2m30s"), (600, "10m"), (3 * 3600 + 60, "3h1m"),
    (30 * 3600, "30h"), (50 * 3600, "2d2h"), (400 * 86400, "400d"), (3 * 365 * 86400 + 86400, "3y1d")])
def test_human_duration_as_kubectl_prints_ages(seconds: int, shown: str) -> None:
    assert human_duration(seconds) == shown


def _pod_with_status(name: str, status: dict[str, Any]) -> tuple[str, str]:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
           "spec": {"nodeName": "n1", "initContainers": [{"name": "init", "image": "busybox"}],
                    "containers": [{"name": "a", "image": "nginx"}, {"name": "b", "image": "proxy"}]}}
    return json.dumps(pod), json.dumps({"status": status})


def test_pod_status_and_restarts_as_printers_go_shows_them(run_kubectl: KubectlRun, tmp_path: Any) -> None:
    init_done = {"name": "init", "image": "busybox", "imageID": "", "ready": False, "restartCount": 0,
                 "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}}
    running = {"phase": "Running", "podIPs": [{"ip": "10.0.0.5"}],
               "conditions": [{"type": "Initialized", "status": "True"}, {"type": "Ready", "status": "True"}],
               "initContainerStatuses": [init_done],
               "containerStatuses": [
                   {"name": "a", "image": "nginx", "imageID": "", "ready": True, "restartCount": 2,
                    "state": {"running": {}},
                    "lastState": {"terminated": {"exitCode": 1, "finishedAt": "2024-12-31T23:57:00Z"}}},
                   {"name": "b", "image": "proxy", "imageID": "", "ready": True, "restartCount": 1,
                    "state": {"running": {}}}]}
    crashing = {"phase": "Running", "initContainerStatuses": [init_done],
                "conditions": [{"type": "Initialized", "status": "True"}],
                "containerStatuses": [
                    {"name": "a", "image": "nginx", "imageID": "", "ready": False, "restartCount": 4,
                     "state": {"waiting": {"reason": "CrashLoopBackOff"}}},
                    {"name": "b", "image": "proxy", "imageID": "", "ready": True, "restartCount": 0,
                     "state": {"running": {}}}]}
    initializing = {"phase": "Pending", "initContainerStatuses": [
        {"name": "init", "image": "busybox", "imageID": "", "ready": False, "restartCount": 0,
         "state": {"running": {}}}]}
    for name, status in (("runner", running), ("crasher", crashing), ("starter", initializing)):
        pod, patch = _pod_with_status(name, status)
        (tmp_path / f"{name}.json").write_text(pod)
        (tmp_path / f"{name}-status.json").write_text(patch)
        run_kubectl("apply", "-f", str(tmp_path / f"{name}.json"))
        run_kubectl("patch", "pod", name, "--subresource=status", "--type=merge", "--patch-file",
                    str(tmp_path / f"{name}-status.json"))
    rows = [line.split() for line in run_kubectl("get", "pods", "-o", "wide").stdout.splitlines()]
    assert rows[1:] == [
        ["crasher", "1/2", "CrashLoopBackOff", "4", "0s", "<none>", "n1", "<none>", "<none>"],
        ["runner", "2/2", "Running", "3", "(3m", "ago)", "0s", "10.0.0.5", "n1", "<none>", "<none>"],
        ["starter", "0/2", "Init:0/1", "0", "0s", "<none>", "n1", "<none>", "<none>"]]


@pytest.mark.parametrize(("path", "found"), [
    (".status.conditions[?(@.type==\"Ready\")].status", ["True"]),
    ("{.status.conditions[*].type}", ["Synced", "Ready"]),
    (".status.conditions[-1].type", ["Ready"]),
    (".spec['size']", [3]),
    (".status.conditions[?(@.weight>2)].type", ["Ready"]),
    (".spec.missing", []),
])
def test_printer_column_json_paths(path: str, found: list[Any]) -> None:
    from kubesim.serve.jsonpath import find

    obj = {"spec": {"size": 3}, "status": {"conditions": [{"type": "Synced", "status": "False", "weight": 1},
                                                          {"type": "Ready", "status": "True", "weight": 5}]}}
    assert find(obj, path) == found


def test_unsupported_json_paths_are_refused() -> None:
    from kubesim.serve.jsonpath import JSONPathError, find

    for path in (".a[", ".a[?(@.b =~ /x/)]", "a.b", "." + "a" * 600):
        with pytest.raises(JSONPathError):
            find({}, path)


_MORE_KINDS = """\
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec: {selector: {app: web}, ports: [{port: 80, protocol: TCP}]}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv1}
spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], persistentVolumeReclaimPolicy: Retain, storageClassName: fast, hostPath: {path: /data}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: default}
spec: {accessModes: [ReadWriteOnce], storageClassName: fast, resources: {requests: {storage: 1Gi}}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: default}
spec: {minAvailable: 1, selector: {matchLabels: {app: web}}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: once, namespace: default}
spec:
  template:
    spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly, namespace: default}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: default}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {nodeSelector: {disk: ssd}, containers: [{name: c, image: agent}]}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: default}
spec:
  replicas: 2
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: c, image: postgres}]}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast, annotations: {storageclass.kubernetes.io/is-default-class: "true"}}
provisioner: example.com/fast
---
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: leader, namespace: default}
spec: {holderIdentity: me}
---
apiVersion: v1
kind: Secret
metadata: {name: s1, namespace: default}
stringData: {a: b}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: robot, namespace: default}
"""


def test_kubectl_get_of_other_built_in_kinds(run_kubectl: KubectlRun, tmp_path: Any) -> None:
    manifest = tmp_path / "kinds.yaml"
    manifest.write_text(_MORE_KINDS)
    run_kubectl("apply", "-f", str(manifest))

    def rows(kind: str) -> list[list[str]]:
        return [line.split() for line in run_kubectl("get", kind, "-o", "wide").stdout.splitlines()]

    assert rows("svc") == [["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"],
                           ["web", "ClusterIP", "<none>", "<none>", "80/TCP", "0s", "app=web"]]
    assert rows("pv")[1][:4] == ["pv1", "1Gi", "RWO", "Retain"] and rows("pv")[1][-1] == "Filesystem"
    assert rows("pdb")[1] == ["web", "1", "N/A", "0", "0s"]
    assert rows("cj")[1][:9] == ["nightly", "0", "3", "*", "*", "*", "<none>", "False", "0"]
    assert rows("ds")[1][:7] == ["agent", "0", "0", "0", "0", "0", "disk=ssd"]
    assert rows("sts")[1] == ["db", "0/2", "0s", "c", "postgres"]
    scale = run_kubectl("get", "sts", "db", "--subresource=scale").stdout.splitlines()
    assert [line.split() for line in scale] == [["NAME", "DESIRED", "AVAILABLE"], ["db", "2", "0"]]
    assert rows("sc")[1] == ["fast", "(default)", "example.com/fast", "Delete", "Immediate", "false", "0s"]
    assert rows("lease")[1] == ["leader", "me", "0s"]
    assert rows("secret")[1] == ["s1", "Opaque", "1", "0s"]
    assert rows("sa")[1] == ["robot", "0", "0s"]
    job = rows("job")
    assert job[0][:5] == ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"] and job[1][:3] == ["once", "Running", "0/1"]


@pytest.mark.parametrize(("kind", "value", "cell"), [
    ("date", "2024-12-31T23:00:00Z", "60m"), ("date", "2024-12-31", "<invalid>"), ("date", 5, None),
    ("integer", 2.0, 2), ("integer", float("inf"), None), ("integer", "2", None), ("number", 1, 1.0),
    ("boolean", True, True), ("string", 2.0, "2"), ("string", True, "true"), ("string", {"b": 1, "a": [1]},
                                                                                 '{"a":[1],"b":1}')])
def test_printer_column_cells_as_the_table_convertor_types_them(kind: str, value: Any, cell: Any) -> None:
    from datetime import datetime, timezone

    from kubesim.serve.tables import _column_cell

    assert _column_cell(kind, value, datetime(2025, 1, 1, tzinfo=timezone.utc)) == cell


def test_watch_events_repeat_no_headers() -> None:
    """What the watch stream calls for each event: headers on the first one only (handlers/watch.go)."""
    from kubesim.serve.state import ServerState
    from kubesim.serve.tables import table_response

    state = ServerState.create(None)
    rt = state.call(lambda c: c.registry.lookup("v1", "Namespace"))
    namespace = state.call(lambda c: c.get("v1", "Namespace", "default"))
    first = table_response(state, rt, namespace, _TABLE)
    later = table_response(state, rt, namespace, _TABLE, no_headers=True)
    assert first is not None and later is not None
    assert [c["name"] for c in first["columnDefinitions"]] == ["Name", "Status", "Age"]
    assert later["columnDefinitions"] is None and later["rows"] == first["rows"]
    assert table_response(state, rt, namespace, "application/json") is None
