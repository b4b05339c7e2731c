"""Fixtures for the scaffolding tests: the site tests' content folders and built sites."""

from tests.site.conftest import built, content

__all__ = ["built", "content"]
