"""Pages: scenarios and reports as self-contained HTML files that work offline.

- :mod:`~modelscape.pages.page`: ``Page``, the base (rendering, policy, inline assets)
- :mod:`~modelscape.pages.scenario`: ``ScenarioPage``, to review a scenario before it runs
- :mod:`~modelscape.pages.report`: ``ReportPage``, a report whose every number opens its outputs
"""

from modelscape.pages.page import Page, write_assets
from modelscape.pages.report import ReportPage
from modelscape.pages.scenario import ScenarioPage

__all__ = ["Page", "ReportPage", "ScenarioPage", "write_assets"]
