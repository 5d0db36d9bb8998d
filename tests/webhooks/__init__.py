"""Webhooks through HTTP."""
