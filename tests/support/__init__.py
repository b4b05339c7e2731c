"""Helpers shared by several test packages (imported as ``tests.support``)."""
