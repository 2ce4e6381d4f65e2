"""Fleet-scale plans: many clusters planned in one run, in-process (default) or on Apache Spark.

``load_fleet`` reads ``fleet.yaml``; ``run_fleet_plan`` reads each cluster's live state, flattens both
sides into one row model (``rows``), joins them per cluster (``planning.hash_join``; the ``local``
engine in this process, the ``spark`` engine in executor tasks of several clusters each), plans each cluster
with the single-cluster planner (``planning``) and writes one plan per cluster plus a fleet summary
(``summary``). ``applying.run_fleet_apply`` applies the plans of one such run, cluster by cluster
through the single-cluster apply path. See docs/fleet.md.
"""

from reconciler.fleet.runner import (
    ClusterResult,
    FleetEvent,
    FleetResult,
    run_fleet_plan,
    select_clusters,
    spark_conf,
)
from reconciler.fleet.spec import ClusterSpec, FleetSpec, load_fleet

__all__ = [
    "ClusterResult",
    "ClusterSpec",
    "FleetEvent",
    "FleetResult",
    "FleetSpec",
    "load_fleet",
    "run_fleet_plan",
    "select_clusters",
    "spark_conf",
]
