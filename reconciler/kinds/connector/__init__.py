"""The Kafka Connect connector kind: written over Connect's REST API, which Kafka's ACLs do not govern.

Its declaration is ``declaration``; its planner's parts are ``plan``; apply's parts live in this package: the write
decoded from a change and the requests it sends (``writes``), the two phases and the read before writing
(``phases``), the read-back's poll (``watch``) and its wait for evidence that a connector's tasks run a new config
(``restart``). Its snapshot section is ``snapshot``, its import ``adopt``.
The plan's and ``snapshot``'s reads over the Connect port that ``reconciler.connect.opening`` opens are
``evidence``, its fleet rows ``rows``."""
