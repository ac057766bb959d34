"""kubesim.k8s.decoding: built-in objects decoded as the API server's strict encoding/json would."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from kubesim.k8s import openapi
from kubesim.k8s.decoding import (
    MAX_DEPTH,
    decode_error,
    decoding_message,
    delete_options_message,
    metadata_decoding_message,
    patch_decoding_message,
)

DEPLOY = 'Deployment in version "v1" cannot be handled as a Deployment: '
NODE = 'Node in version "v1" cannot be handled as a Node: '
POD = 'Pod in version "v1" cannot be handled as a Pod: '
CRD = 'CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: '
QUANTITY = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


def deployment(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": spec}


def node(**status: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}, "status": status}


def pod(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec}


def container(**fields: Any) -> dict[str, Any]:
    return {"name": "c", "image": "i", **fields}


def crd_schema(schema: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "gizmos.example.com"},
        "spec": {"versions": [{"name": "v1", "schema": {"openAPIV3Schema": schema}}]},
    }


def message(obj: dict[str, Any]) -> str | None:
    group, _, version = obj["apiVersion"].rpartition("/")
    return decoding_message(group, version, obj["kind"], obj)


VALID = [
    deployment(replicas=3, selector={"matchLabels": {"a": "b"}}),
    deployment(replicas=2.0),  # kubectl sends YAML 2.0 as 2
    deployment(replicas=2**31 - 1),
    deployment(replicas=-(2**31)),
    deployment(replicas=None, progressDeadlineSeconds=None),  # null is the zero value
    {**deployment(), "metadata": {"name": "d", "generation": 2**63 - 1, "labels": {"a": "b"}}},
    node(allocatable={"cpu": "4", "memory": 2**34, "pods": 110.0}, capacity={"cpu": 2**70}),
    pod(containers=[container(ports=[{"containerPort": 80}])], terminationGracePeriodSeconds=-(2**63)),
    {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"},
     "spec": {"ports": [{"port": 80, "targetPort": "http"}, {"port": 81, "targetPort": 8080}]}},
    {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "data": {"a": "YWJj", "b": "YQ=="}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "creationTimestamp": "2024-02-29T23:59:59.5+01:00"}},
    {"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": {"name": "r"}, "revision": 1,
     "data": {"anything": [1, {"goes": True}]}},  # runtime.RawExtension keeps any JSON
    {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "l"},
     "spec": {"renewTime": "2024-01-01T00:00:00.123456Z"}},
    crd_schema({"type": "object", "maximum": 2.5, "x-kubernetes-preserve-unknown-fields": True,
                "properties": {"a": {"type": "string", "default": {"any": "json"}}}}),
]


@pytest.mark.parametrize("obj", VALID)
def test_well_typed_objects_decode(obj: dict[str, Any]) -> None:
    assert message(obj) is None


CASES = [
    # each Go type and each form of the value encoding/json names
    (deployment(replicas=2**70), DEPLOY + "json: cannot unmarshal number 1180591620717411303424 into Go struct "
     "field DeploymentSpec.spec.replicas of type int32"),
    (deployment(replicas=2**31), DEPLOY + "json: cannot unmarshal number 2147483648 into Go struct field "
     "DeploymentSpec.spec.replicas of type int32"),
    (deployment(replicas=-(2**31) - 1), DEPLOY + "json: cannot unmarshal number -2147483649 into Go struct field "
     "DeploymentSpec.spec.replicas of type int32"),
    (deployment(replicas=2.5), DEPLOY + "json: cannot unmarshal number 2.5 into Go struct field "
     "DeploymentSpec.spec.replicas of type int32"),
    (deployment(replicas=1e21), DEPLOY + "json: cannot unmarshal number 1e+21 into Go struct field "
     "DeploymentSpec.spec.replicas of type int32"),
    (deployment(replicas=1e-7), DEPLOY + "json: cannot unmarshal number 1e-7 into Go struct field "
     "DeploymentSpec.spec.replicas of type int32"),
    (deployment(replicas="3"), DEPLOY + "json: cannot unmarshal string into Go struct field "
     "DeploymentSpec.spec.replicas of type int32"),
    (deployment(replicas=True), DEPLOY + "json: cannot unmarshal bool into Go struct field "
     "DeploymentSpec.spec.replicas of type int32"),
    (deployment(paused="yes"), DEPLOY + "json: cannot unmarshal string into Go struct field "
     "DeploymentSpec.spec.paused of type bool"),
    ({**deployment(), "metadata": {"name": "d", "generation": 2**63}}, DEPLOY + "json: cannot unmarshal number "
     "9223372036854775808 into Go struct field ObjectMeta.metadata.generation of type int64"),
    ({**deployment(), "metadata": {"name": 5}}, DEPLOY + "json: cannot unmarshal number into Go struct field "
     "ObjectMeta.metadata.name of type string"),
    ({**deployment(), "metadata": {"name": "d", "uid": 5}}, DEPLOY + "json: cannot unmarshal number into Go "
     "struct field ObjectMeta.metadata.uid of type types.UID"),
    ({**deployment(), "metadata": {"name": "d", "labels": {"a": 1}}}, DEPLOY + "json: cannot unmarshal number "
     "into Go struct field ObjectMeta.metadata.labels of type string"),
    ({**deployment(), "metadata": {"name": "d", "labels": ["a"]}}, DEPLOY + "json: cannot unmarshal array into "
     "Go struct field ObjectMeta.metadata.labels of type map[string]string"),
    ({**deployment(), "metadata": {"name": "d", "finalizers": "a"}}, DEPLOY + "json: cannot unmarshal string "
     "into Go struct field ObjectMeta.metadata.finalizers of type []string"),
    ({**deployment(), "metadata": "d"}, DEPLOY + "json: cannot unmarshal string into Go struct field "
     "Deployment.metadata of type v1.ObjectMeta"),
    (node(allocatable="cpu"), NODE + "json: cannot unmarshal string into Go struct field "
     "NodeStatus.status.allocatable of type v1.ResourceList"),
    ({**node(), "status": []}, NODE + "json: cannot unmarshal array into Go struct field Node.status of type "
     "v1.NodeStatus"),
    ({**node(), "spec": {"taints": "x"}}, NODE + "json: cannot unmarshal string into Go struct field "
     "NodeSpec.spec.taints of type []v1.Taint"),
    ({**node(), "spec": {"taints": [{"key": "k", "effect": 1}]}}, NODE + "json: cannot unmarshal number into Go "
     "struct field Taint.spec.taints.effect of type v1.TaintEffect"),
    (pod(tolerations="x"), POD + "json: cannot unmarshal string into Go struct field PodSpec.spec.tolerations "
     "of type []v1.Toleration"),
    (pod(tolerations=[{"key": "k"}, {"tolerationSeconds": "5"}]), POD + "json: cannot unmarshal string into Go "
     "struct field Toleration.spec.tolerations.tolerationSeconds of type int64"),
    # nested paths: no list indexes or map keys in the Go field path
    (pod(containers=[container(), container(ports=[{"containerPort": "80"}])]), POD + "json: cannot unmarshal "
     "string into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32"),
    (pod(containers=[container(resources={"requests": {"cpu": "1", "memory": "lots"}})]),
     POD + "spec.containers[0].resources.requests[memory]: " + QUANTITY),
    (pod(containers=[container(resources={"limits": {"cpu": {"a": 1}}})]),
     POD + "spec.containers[0].resources.limits[cpu]: " + QUANTITY),
    (pod(containers=[container(resources={"limits": {"cpu": "1e30"}})]), POD + "spec.containers[0].resources.limits[cpu]: invalid quantity '1e30': too "
     "large (kubesim accepts magnitudes below 1e30)"),
    (node(allocatable={"cpu": 1e30}), NODE + "status.allocatable[cpu]: invalid quantity '1e+30': too large (kubesim accepts magnitudes "
     "below 1e30)"),
    (pod(volumes=[{"name": "v", "hostPath": "/x"}]), POD + "json: cannot unmarshal string into Go struct field "
     "Volume.spec.volumes.VolumeSource.hostPath of type v1.HostPathVolumeSource"),
    # IntOrString: a string, else an int32
    ({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"ports": [{"targetPort": 2.5}]}},
     ('Service in version "v1" cannot be handled as a Service: json: cannot unmarshal number 2.5 into Go struct '
     "field ServicePort.spec.ports.targetPort of type int32")),
    (deployment(strategy={"rollingUpdate": {"maxSurge": [1]}}), DEPLOY + "json: cannot unmarshal array into Go "
     "struct field RollingUpdateDeployment.spec.strategy.rollingUpdate.maxSurge of type int32"),
    # Time: a string in RFC 3339
    ({**pod(), "metadata": {"name": "p", "creationTimestamp": 5}}, POD + "json: cannot unmarshal number into Go "
     "struct field ObjectMeta.metadata.creationTimestamp of type string"),
    ({**pod(), "metadata": {"name": "p", "creationTimestamp": "2024-02-30T00:00:00Z"}}, POD + 'metadata.creationTimestamp: '
     'parsing time "2024-02-30T00:00:00Z": day out of range'),
    # []byte: base64
    ({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "data": {"a": "abc"}},
     'Secret in version "v1" cannot be handled as a Secret: data[a]: illegal base64 data at input byte 0'),
    # float64 (JSONSchemaProps.maximum) and maps of structs
    (crd_schema({"maximum": "x"}), CRD + "json: cannot unmarshal string into Go struct field "
     "JSONSchemaProps.spec.versions.schema.openAPIV3Schema.maximum of type float64"),
    (crd_schema({"maximum": 2**1024}), CRD + f"json: cannot unmarshal number {2**1024} into Go struct field "
     "JSONSchemaProps.spec.versions.schema.openAPIV3Schema.maximum of type float64"),
    (crd_schema({"properties": {"a": {"typo": 1}, "b": {"type": "string", "x": 2}}}), CRD + "strict decoding "
     'error: unknown field "spec.versions[0].schema.openAPIV3Schema.properties.a.typo", unknown field '
     '"spec.versions[0].schema.openAPIV3Schema.properties.b.x"'),
    # unknown fields: all of them, in JSON (sorted key) order, with list indexes
    (deployment(replica=3, template={"spec": {"containers": [container(), container(imagee="x")]}}),
     DEPLOY + 'strict decoding error: unknown field "spec.replica", unknown field '
     '"spec.template.spec.containers[1].imagee"'),
    ({**deployment(), "extra": 1}, DEPLOY + 'strict decoding error: unknown field "extra"'),
    # a type error hides unknown fields; the first type error in JSON order wins
    (deployment(replica=3, replicas="3"), DEPLOY + "json: cannot unmarshal string into Go struct field "
     "DeploymentSpec.spec.replicas of type int32"),
    ({**deployment(replicas="3"), "metadata": {"name": "d", "labels": {"a": 1}}}, DEPLOY + "json: cannot "
     "unmarshal number into Go struct field ObjectMeta.metadata.labels of type string"),
    # an UnmarshalJSON error (Quantity) ends decoding and wins over an earlier type error
    ({**node(allocatable={"cpu": "x"}), "metadata": {"name": 5}}, NODE + "status.allocatable[cpu]: " + QUANTITY),
    # JSON cannot hold NaN: kubectl would not send it
    (deployment(replicas=float("nan")), DEPLOY + "json: unsupported value: NaN"),
]


@pytest.mark.parametrize(("obj", "expected"), CASES)
def test_decoding_errors_read_as_upstream(obj: dict[str, Any], expected: str) -> None:
    assert message(obj) == expected


def test_top_level_value_that_is_not_an_object() -> None:
    assert decoding_message("", "v1", "Pod", ["x"]) == (
        POD + "json: cannot unmarshal array into Go value of type v1.Pod"
    )


def test_unknown_fields_are_deduplicated_and_capped_at_100() -> None:
    obj = deployment(**{f"x{i:03d}": i for i in range(150)})
    found = message(obj)
    assert found is not None
    assert found.count("unknown field") == 100
    assert found.endswith('unknown field "spec.x099"')


def test_nesting_is_bounded() -> None:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(MAX_DEPTH):
        schema = {"type": "object", "properties": {"a": schema}}
    assert message(crd_schema(schema)) == CRD + f"json: nesting deeper than {MAX_DEPTH} levels"


def test_update_skips_subtrees_shared_with_the_stored_object() -> None:
    stored = {**node(allocatable={"cpu": "4"}), "spec": {"taints": "x"}}  # as if stored unchecked
    update = {**stored, "status": {"allocatable": {"cpu": "8"}}}
    group_version_kind = ("", "v1", "Node")
    assert decoding_message(*group_version_kind, update, stored) is None
    assert decoding_message(*group_version_kind, update) is not None  # a create checks everything
    fresh = {**update, "spec": {"taints": "y"}}  # a changed value is checked
    assert decoding_message(*group_version_kind, fresh, stored) is not None


def test_decode_error_is_a_bad_request() -> None:
    error = decode_error("apps", "v1", "Deployment", deployment(replicas="3"))
    assert error is not None and error.code == 400
    assert decode_error("apps", "v1", "Deployment", deployment(replicas=3)) is None


def test_metadata_alone_for_custom_resources() -> None:
    gizmo = {"apiVersion": "example.com/v1", "kind": "Gizmo", "metadata": {"name": "g", "labels": {"a": 2}},
             "spec": "anything"}
    assert metadata_decoding_message("v1", "Gizmo", gizmo) == (
        'Gizmo in version "v1" cannot be handled as a Gizmo: json: cannot unmarshal number into Go struct '
        "field ObjectMeta.metadata.labels of type string"
    )
    assert metadata_decoding_message("v1", "Gizmo", {**gizmo, "metadata": {"name": "g"}}) is None


def test_patches_are_decoded_without_strategic_merge_directives() -> None:
    patch = {"spec": {"$setElementOrder/containers": [{"name": "c"}],
                      "containers": [{"name": "c", "$patch": "delete"}], "replicas": "3"}}
    assert patch_decoding_message("apps", "v1", "Deployment", patch) == (
        DEPLOY + "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32"
    )
    assert patch_decoding_message("apps", "v1", "Deployment", {"spec": {"replicas": None, "$retainKeys": []}}) is None


def test_delete_options() -> None:
    assert delete_options_message({"gracePeriodSeconds": 2**70}) == (
        "json: cannot unmarshal number 1180591620717411303424 into Go struct field "
        "DeleteOptions.gracePeriodSeconds of type int64"
    )
    assert delete_options_message({"gracePeriodSeconds": 2**63 - 1}) is None


def test_kinds_without_a_definition_decode_as_anything() -> None:
    assert decoding_message("example.com", "v1", "Gizmo", {"spec": 1}) is None


def test_vendored_document() -> None:
    doc = openapi.document()
    assert "paths" not in doc
    assert openapi.definition_for("apps", "v1", "Deployment") == "io.k8s.api.apps.v1.Deployment"
    assert openapi.definition_for("", "v1", "Pod") == "io.k8s.api.core.v1.Pod"
    assert openapi.definition("io.k8s.api.core.v1.Pod")["description"].startswith("Pod is a collection")
    assert openapi.go_types("io.k8s.api.core.v1.NodeStatus")["allocatable"] == [
        "", ["v1.ResourceList", "resource.Quantity"]
    ]


def test_json_patch_values_are_decoded_where_their_paths_put_them() -> None:
    ops = [{"op": "test", "path": "/spec/taints", "value": "x"},
           {"op": "add", "path": "/metadata/labels/a~1b", "value": "ok"},
           {"op": "replace", "path": "/spec/taints/2/efect", "value": "x"}]
    assert patch_decoding_message("", "v1", "Node", ops, json_patch=True) == (
        NODE + 'strict decoding error: unknown field "spec.taints[2].efect"'
    )
    ops = [{"op": "add", "path": "/status/allocatable", "value": "lots"}]
    assert patch_decoding_message("", "v1", "Node", ops, json_patch=True) == (
        NODE + "json: cannot unmarshal string into Go struct field NodeStatus.status.allocatable of type "
        "v1.ResourceList"
    )
    appended = [{"op": "add", "path": "/spec/taints/-", "value": "x"}]  # its index is known at run time only
    assert patch_decoding_message("", "v1", "Node", appended, json_patch=True) is None


@pytest.mark.parametrize(("key", "shown"), [(1, '1 must be a string (quote it: "1")'),
                                           (True, 'true must be a string (quote it: "true")')])
def test_map_keys_yaml_read_as_numbers_are_named(key: Any, shown: str) -> None:
    obj = {**node(), "metadata": {"name": "n", "labels": {"a": "b", key: "x"}}}
    assert message(obj) == NODE + "metadata.labels: the key " + shown


def test_unquoted_yaml_timestamps_where_strings_belong() -> None:
    stamp = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
    obj = {**pod(), "metadata": {"name": "p", "creationTimestamp": stamp, "annotations": {"a": datetime.date(2024, 1, 2)}}}
    assert message(obj) == POD + "metadata.annotations[a]: YAML read 2024-01-02 as a timestamp: quote it to make it a string"
    obj["metadata"]["annotations"] = {}
    assert message(obj) == (
        POD + "metadata.creationTimestamp: YAML read 2024-01-01T00:00:00+00:00 as a timestamp: quote it to make it a string"
    )


def test_field_validation_ignore_lets_unknown_fields_pass_but_not_wrong_types() -> None:
    assert decoding_message("apps", "v1", "Deployment", deployment(replica=3), strict=False) is None
    assert decoding_message("apps", "v1", "Deployment", deployment(replica=3, replicas="3"), strict=False) == (
        DEPLOY + "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32"
    )


def test_unknown_fields_are_dropped_when_not_strict() -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "colour": "blue"},
           "spec": {"containers": [{"name": "c", "image": "i", "size": 3}]}, "x": [1]}
    assert decoding_message("", "v1", "Pod", pod, strict=False) is None
    assert pod == {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                   "spec": {"containers": [{"name": "c", "image": "i"}]}}
