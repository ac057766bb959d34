"""The API server's per-kind validation of the built-in kinds kubesim models, one module per group.

`podspec` (pods and pod templates, with `affinity`, `topology`, `taints` and `resources`),
`nodes` (nodes and namespaces), `apps`, `batch`, `policy` and `scheduling`; each function takes
the decoded object (after defaulting) and returns the field errors upstream's validation gives,
with upstream's field paths and messages. `kubesim.cluster.strategies` dispatches to them on
create (validate_kind) and update (validate_kind_update); metadata is checked by
`kubesim.k8s.validation.validate_object_meta`.
"""

__all__: list[str] = []
