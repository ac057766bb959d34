"""Pod migration and job-trace replay for kubesim's simulated time (issue 14, docs/pod-migration.md).

The pod-migration fork of k8s-cluster-simulator: its migration controller (request and
migration policies, checkers, short-job filter, node unscheduler) and the submitters that
replay a memory trace or a CSV job trace, loaded by kubesim through the `kubesim` entry point.
"""

from kubesim_pod_migration.checker import CODE_SLOPE, README_SLOPE, BlockingChecker, ConcurrentChecker, migration_seconds
from kubesim_pod_migration.client import FilteredClient, MemoryClient, MetricsClient, NodeMemory, PodMemory
from kubesim_pod_migration.controller import MigrationController, NodeFullError
from kubesim_pod_migration.jobs import Job, Record, job_pod, migrated_pod, sim_spec
from kubesim_pod_migration.policies import BigEnoughMigrator, MaxMigrator, OptimalMigrator, SlopeMigrator
from kubesim_pod_migration.requests import Cluster, MigrationCmd, NodeFreeGbRequest, SlopeRequester, ThresholdPolicy
from kubesim_pod_migration.submitters import JobDeleter, JobSubmitter, MigrationSubmitter, NodeUnscheduler, TraceBook
from kubesim_pod_migration.traces import read_csv_trace, read_json_trace, read_trace

__all__ = [
    "CODE_SLOPE",
    "README_SLOPE",
    "BigEnoughMigrator",
    "BlockingChecker",
    "Cluster",
    "ConcurrentChecker",
    "FilteredClient",
    "Job",
    "JobDeleter",
    "JobSubmitter",
    "MaxMigrator",
    "MemoryClient",
    "MetricsClient",
    "MigrationCmd",
    "MigrationController",
    "MigrationSubmitter",
    "NodeFreeGbRequest",
    "NodeFullError",
    "NodeMemory",
    "NodeUnscheduler",
    "OptimalMigrator",
    "PodMemory",
    "Record",
    "SlopeMigrator",
    "SlopeRequester",
    "ThresholdPolicy",
    "TraceBook",
    "job_pod",
    "migrated_pod",
    "migration_seconds",
    "read_csv_trace",
    "read_json_trace",
    "read_trace",
    "sim_spec",
]
