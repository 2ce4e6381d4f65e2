"""The ``Connector`` manifest model: a Kafka Connect connector (see ``reconciler.manifests.connectors`` for how a
document becomes a ``DesiredConnector``)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from reconciler.manifests.fields import INT32_MAX, Flag, SecretRefSpec, Strict


class ConnectorSpec(Strict):
    """``Connector`` spec: a Kafka Connect connector on the Connect cluster of the Cluster profile."""

    class_name: str = Field(min_length=1, alias="class", description="connector.class (a class or an alias).")
    tasks_max: int = Field(default=1, strict=True, ge=1, le=INT32_MAX, description="tasks.max: most tasks to run.")
    state: Literal["running", "paused", "stopped"] = Field(default="running", description="The connector's state.")
    config: dict[str, str | int | float | bool] = Field(
        default_factory=dict,
        description="Config without connector.class, tasks.max and name; YAML scalars, compared as Connect's strings; "
        "${file:...} placeholders are passed through untouched.",
    )
    secrets: dict[str, SecretRefSpec] = Field(
        default_factory=dict, description="Config keys read from env/file at plan and apply; compared by digest."
    )
    reset_offsets_on_create: Flag = Field(
        default=False, description="On a re-create under a name whose offsets Connect kept, reset them first."
    )
