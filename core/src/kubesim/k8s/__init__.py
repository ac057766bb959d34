"""kubesim.k8s: Kubernetes primitives shared by the core and every plugin.

One implementation each of what apimachinery, client-go and component-helpers provide:
`quantity` (resource.Quantity), `selectors` (label and field selectors), `podrequests`
(PodRequests and the scheduler's non-zero variant), `conditions` (status conditions),
`keys` (object and pod keys) and `validation` (field errors, name and label checks).
Import the modules; this package re-exports nothing so that importing one stays cheap.
"""

__all__: list[str] = []
