"""kubesim: a deterministic, scenario-based simulator for Kubernetes schedulers and controllers."""
