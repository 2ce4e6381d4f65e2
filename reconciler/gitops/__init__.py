"""CI integration: pull-request plan comments, drift issues, workflow annotations and event payloads.

``github`` talks to the GitHub REST API over the standard library (a handful of endpoints do not
justify a client dependency); ``annotations`` turns diagnostics into workflow-command lines and
GitLab code-quality records; ``event`` reads the event payload a workflow run was started with.
"""
