"""The task language and task spaces: what a model is asked, and what varies.

- :mod:`~modelscape.task.language`: ``Task``, ``Node``, ``@attribute``, ``TaskSchema``
- :mod:`~modelscape.task.prompt`: ``Message``, ``Prompt``, ``@realizer``
- :mod:`~modelscape.task.coordinate`: ``Coordinate``
- :mod:`~modelscape.task.steps`: ``@perturbation``, ``Step``, ``Change``: the checked step
- :mod:`~modelscape.task.space`: ``Axis``, ``TaskSpace``, ``Variant``
- :mod:`~modelscape.task.design`: ``Sweep``, ``Grid``
- :mod:`~modelscape.task.table`: the variants of a design held compactly, as a run holds them
"""

from modelscape.task.coordinate import Coordinate
from modelscape.task.design import Grid, Sweep
from modelscape.task.language import Attribute, AttributeInfo, Node, Task, TaskSchema, attribute
from modelscape.task.prompt import FunctionRealizer, Message, Prompt, Realizer, realizer
from modelscape.task.space import Axis, Scale, TaskSpace, Variant
from modelscape.task.steps import Change, Perturbation, Step, perturbation

__all__ = [
    "Attribute",
    "AttributeInfo",
    "Axis",
    "Change",
    "Coordinate",
    "FunctionRealizer",
    "Grid",
    "Message",
    "Node",
    "Perturbation",
    "Prompt",
    "Realizer",
    "Scale",
    "Step",
    "Sweep",
    "Task",
    "TaskSchema",
    "TaskSpace",
    "Variant",
    "attribute",
    "perturbation",
    "realizer",
]
