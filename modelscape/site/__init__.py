"""The site: a content folder of specs, runs and markdown pages, built into a static website.

- :mod:`~modelscape.site.config`: ``SiteConfig`` (``site.yaml``) and ``SiteError``
- :mod:`~modelscape.site.content`: finding the specs, runs and pages of a content folder
- :mod:`~modelscape.site.catalog`: every run's headline numbers, by scenario and by model
- :mod:`~modelscape.site.theme`: the default theme and a site's own, layered
- :mod:`~modelscape.site.views`, :mod:`~modelscape.site.pagesource`,
  :mod:`~modelscape.site.render`: the pages, how each is made, and the site frame
- :mod:`~modelscape.site.markdown`: markdown pages, raw HTML off
- :mod:`~modelscape.site.manifest`: what a build made, for incremental rebuilds
- :mod:`~modelscape.site.warning`: ``BuildWarning``, a problem at a file and line
- :mod:`~modelscape.site.build`: ``build_site``

A new site project (``init_site``) and the local preview (``serve_site``) are
:mod:`modelscape.scaffold`'s.
"""

from modelscape.site.build import BuildResult, build_site
from modelscape.site.config import SiteConfig, SiteError
from modelscape.site.warning import BuildWarning

__all__ = [
    "BuildResult",
    "BuildWarning",
    "SiteConfig",
    "SiteError",
    "build_site",
]
