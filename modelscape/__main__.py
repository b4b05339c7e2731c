"""``python -m modelscape``: the same command line as ``modelscape``."""

from modelscape.cli import main

main(prog_name="modelscape")
