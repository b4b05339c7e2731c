"""Reports: the JSON a run leaves for people and CI, and the requirements that gate CI."""

from modelscape.report.provenance import Provenance, TargetProvenance
from modelscape.report.report import FORMAT, Report, build_report
from modelscape.report.requirement import Requirement

__all__ = ["FORMAT", "Provenance", "Report", "Requirement", "TargetProvenance", "build_report"]
