"""CI integration: plan comments on pull requests and notes on merge requests, drift issues, annotations, run context.

``client`` talks to the GitHub and GitLab REST APIs over the standard library (a handful of endpoints
do not justify a client dependency); ``github`` keeps one plan comment and one drift issue per cluster
up to date; ``gitlab`` keeps one plan note per cluster on a merge request; ``publish`` turns a
rendered plan into that comment, note or issue; ``annotations`` turns diagnostics into
workflow-command lines and GitLab code-quality records; ``event`` reads the run's context.
"""
