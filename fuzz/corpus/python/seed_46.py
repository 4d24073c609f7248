"""Kernel package."""
