"""Pod migration and job-trace replay for kubesim's simulated time (issue 14, docs/pod-migration.md)."""

__all__: list[str] = []
