"""CI integration: pull-request plan comments, drift issues, workflow annotations and event payloads.

``client`` talks to the GitHub REST API over the standard library (a handful of endpoints do not
justify a client dependency); ``github`` keeps one plan comment and one drift issue per cluster up to
date; ``publish`` turns a rendered plan into that comment or issue; ``annotations`` turns diagnostics
into workflow-command lines and GitLab code-quality records; ``event`` reads the run's context.
"""
