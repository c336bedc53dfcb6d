"""Bridges to other evaluation frameworks (lmms-eval)."""
