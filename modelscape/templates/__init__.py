"""Templates and lexicons: prompts with slots, and the entries that fill them."""

from modelscape.templates.lexicon import Cell, Entry, Lexical, Lexicon, Row, Texts
from modelscape.templates.template import Filling, Reference, Template, Versions

__all__ = [
    "Cell",
    "Entry",
    "Filling",
    "Lexical",
    "Lexicon",
    "Reference",
    "Row",
    "Template",
    "Texts",
    "Versions",
]
