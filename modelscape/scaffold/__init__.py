"""Everything around a site that is not its build: starting a site project and previewing it.

- :mod:`~modelscape.scaffold.project`: ``init_site``, a new site project (settings, a page, a
  spec) with the workflow that publishes it on GitHub Pages
- :mod:`~modelscape.scaffold.runs_workflow`: the optional workflow that runs targets in a
  matrix of shards, merges their stores and publishes the site
- :mod:`~modelscape.scaffold.vendored`: the wheel of the running modelscape, written into the
  project so that its workflows install it without a published release
- :mod:`~modelscape.scaffold.serve`: ``serve_site``, a local preview that rebuilds and reloads

The build itself (:mod:`modelscape.site`) knows nothing of these; they call it.
"""

from modelscape.scaffold.project import init_site
from modelscape.scaffold.serve import serve_site

__all__ = ["init_site", "serve_site"]
