"""The client quota kind: a quota entity's values set and removed with AlterClientQuotas."""
