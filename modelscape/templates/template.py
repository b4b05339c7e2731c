"""Templates: the no-code task language, a prompt with slots filled from lexicons.

Every slot is an attribute valued by its entry's label; every entry property is an attribute
named ``slot.property``; prompt versions, when the prompt comes in versions, are an attribute
too. Varying a property swaps each entry for its counterpart (``Lexicon.swap``), so varying
``name.gender`` replaces each name with one of the other gender, of the same region and rank.

Rendering has one rule beyond substitution: a line that holds only slots and renders empty is
dropped, so an empty lexicon entry (the first entry of ``pressure``, ``tones``, ...) leaves the
baseline prompt exactly as it would read without that slot.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeAlias

from modelscape._hints import nearest
from modelscape._identity import AxisValue, Identity
from modelscape.errors import TemplateError
from modelscape.task.coordinate import same_value
from modelscape.task.language import Attribute
from modelscape.task.prompt import Message, Prompt
from modelscape.task.space import Axis, Perturbation, Scale, TaskSpace
from modelscape.templates.filling import Filling
from modelscape.templates.lexicon import Lexical, Lexicon
from modelscape.templates.render import case_ids, fill, placeholders

__all__ = ["Filling", "Reference", "Template", "Versions"]

#: A prompt in versions: ``{attribute: {label: text, ...}}``, one attribute name.
Versions: TypeAlias = Mapping[str, Mapping[AxisValue, str]]
#: Computes the correct answer from a filling's attributes (None when there is none).
Reference: TypeAlias = Callable[[Mapping[str, AxisValue]], AxisValue | None]


class Template:
    """A prompt with ``{slot}`` placeholders, each filled from a lexicon.

    ``text`` is one prompt or versions of the whole prompt, such as
    ``{"friendliness": {"neutral": ..., "polite": ...}}``; the version is then an attribute like
    a slot. ``system`` may hold slots too. ``reference`` computes the correct answer from the
    attributes. Bump ``version`` whenever the wording changes.
    """

    def __init__(
        self,
        text: str | Versions,
        slots: Mapping[str, Lexical],
        *,
        name: str = "Template",
        system: str | None = None,
        reference: Reference | None = None,
        version: str = "1",
    ) -> None:
        self.name = name
        self.version = version
        self.system = system
        self.reference = reference
        self.slots: dict[str, Lexicon] = {}
        for slot, values in slots.items():
            if not slot.isidentifier():
                raise TemplateError(f"template {name!r}: slot name {slot!r} is not an identifier")
            try:
                self.slots[slot] = Lexicon.of(values)
            except TemplateError as error:
                raise TemplateError(f"template {name!r}, slot {slot!r}: {error}") from None
        if isinstance(text, str):
            self.versions_attribute: str | None = None
            self.texts: dict[AxisValue, str] = {"": text}
        else:
            if len(text) != 1:
                raise TemplateError(
                    f"template {name!r}: versions of a prompt go under one attribute name, "
                    f"such as {{'tone': {{...}}}}; got {list(text)}"
                )
            ((attribute, versions),) = text.items()
            if attribute in self.slots:
                raise TemplateError(
                    f"template {name!r}: {attribute!r} names both a slot and the versions"
                )
            if not versions:
                raise TemplateError(f"template {name!r}: versions of {attribute!r} are empty")
            self.versions_attribute = attribute
            self.texts = dict(versions)
        self._check_slots()
        for slot, lexicon in self.slots.items():
            if lexicon.versioned:
                missing = [
                    v for v in self.texts if not any(same_value(v, k) for k in lexicon.versions)
                ]
                if self.versions_attribute is None or missing:
                    raise TemplateError(
                        f"template {name!r}, slot {slot!r}: its texts are per version "
                        f"{list(lexicon.versions)}, but the prompt versions are "
                        f"{list(self.texts) if self.versions_attribute else 'not versioned'}"
                    )
        self.attributes: dict[str, Attribute[Filling, Any]] = self._attributes()

    # -- structure -------------------------------------------------------------------------
    def _check_slots(self) -> None:
        used: set[str] = set()
        pieces = [
            (f"prompt version {k!r}" if self.versions_attribute else "prompt", t)
            for k, t in self.texts.items()
        ]
        if self.system is not None:
            pieces.append(("system prompt", self.system))
        for where, text in pieces:
            for slot in placeholders(text, f"template {self.name!r}, {where}"):
                if slot not in self.slots:
                    raise TemplateError(
                        f"template {self.name!r}, {where}: {{{slot}}} has no slot"
                        f"{nearest(slot, sorted(self.slots))}; declare it under slots "
                        f"(declared: {sorted(self.slots)})"
                    )
                used.add(slot)
        unused = sorted(set(self.slots) - used)
        if unused:
            raise TemplateError(
                f"template {self.name!r}: slots {unused} are not used in the prompt"
            )

    def _attributes(self) -> dict[str, Attribute[Filling, Any]]:
        found: dict[str, Attribute[Filling, Any]] = {}
        if self.versions_attribute is not None:
            name = self.versions_attribute
            found[name] = Attribute(_label_of(name), name=name)
        for slot, lexicon in self.slots.items():
            found[slot] = Attribute(_label_of(slot), name=slot)
            for prop in lexicon.properties:
                key = f"{slot}.{prop}"
                found[key] = Attribute(_property_of(slot, prop), name=key)
        return found

    @property
    def identity(self) -> Identity:
        """The template's name and version, as the realizer of its task spaces."""
        return Identity(kind="realizer", name=self.name, version=self.version)

    def values(self, attribute: str) -> tuple[AxisValue, ...]:
        """Every value of ``attribute`` in its lexicon, in order of first appearance."""
        if attribute == self.versions_attribute:
            return tuple(self.texts)
        if attribute in self.slots:
            return self.slots[attribute].values()
        slot, _, prop = attribute.partition(".")
        if slot in self.slots and prop in self.slots[slot].properties:
            return self.slots[slot].values(prop)
        raise TemplateError(self._unknown(attribute))

    def _unknown(self, attribute: str) -> str:
        import difflib

        hint = difflib.get_close_matches(attribute, list(self.attributes), n=1)
        extra = f" (did you mean {hint[0]!r}?)" if hint else ""
        known = list(self.attributes)
        return f"template {self.name!r} has no attribute {attribute!r}{extra}; attributes: {known}"

    # -- fillings ----------------------------------------------------------------------------
    def filling(self, values: Mapping[str, AxisValue]) -> Filling:
        """The task that fills each slot with the entry labelled in ``values``."""
        filling = Filling(template=self.name, values=dict(values)).bound(self)
        self.check_filling(filling)
        return filling

    def check_filling(self, filling: Filling) -> None:
        """Raise when a filling names an unknown slot, entry or version, or misses one."""
        expected = set(self.slots) | (
            {self.versions_attribute} if self.versions_attribute else set()
        )
        if set(filling.values) != expected:
            raise TemplateError(
                f"template {self.name!r}: a filling needs exactly {sorted(expected)}, "
                f"got {sorted(filling.values)}"
            )
        for slot, lexicon in self.slots.items():
            try:
                lexicon.entry(filling.values[slot])
            except TemplateError as error:
                raise TemplateError(f"template {self.name!r}, slot {slot!r}: {error}") from None
        if self.versions_attribute is not None:
            version = filling.values[self.versions_attribute]
            if not any(same_value(version, v) for v in self.texts):
                raise TemplateError(
                    f"template {self.name!r}: no prompt version {version!r}; "
                    f"versions: {list(self.texts)}"
                )

    def reference_of(self, filling: Filling) -> AxisValue | None:
        """The correct answer of a filling, from the template's reference function."""
        if self.reference is None:
            return None
        return self.reference(filling.attribute_values())

    def render(self, filling: Filling) -> Prompt:
        """The prompt of a filling: slots substituted, lines emptied by empty slots dropped."""
        version = filling.values[self.versions_attribute] if self.versions_attribute else None
        key = version if version is not None else ""
        text = next(t for k, t in self.texts.items() if same_value(k, key))
        texts = {slot: filling.entry(slot).text_in(version) for slot in self.slots}
        system = fill(self.system, texts) if self.system is not None else None
        return Prompt(
            system=system or None, messages=(Message(role="user", content=fill(text, texts)),)
        )

    # -- axes and spaces ------------------------------------------------------------------
    def axis(
        self,
        attribute: str,
        scale: Scale,
        values: Iterable[AxisValue] | None = None,
        *,
        baseline: AxisValue | None = None,
    ) -> Axis[Filling, Any]:
        """An axis over a slot, a slot property, or the prompt versions.

        By default it takes every value of the attribute, the first as baseline.
        """
        if attribute not in self.attributes:
            raise TemplateError(self._unknown(attribute))
        known = self.values(attribute)
        chosen = tuple(known if values is None else values)
        keys = {(type(k), k) for k in known}  # as _same compares: one pass, then lookups
        for value in chosen:
            if not isinstance(value, str | int | float | bool) or (type(value), value) not in keys:
                raise TemplateError(
                    f"template {self.name!r}, axis {attribute!r}: {value!r} is not one of its "
                    f"values {list(known)}"
                )
        return Axis(
            self.attributes[attribute],
            chosen,
            self._perturbation(attribute),
            scale=scale,
            baseline=baseline,
        )

    def _perturbation(self, attribute: str) -> Perturbation[Filling, AxisValue]:
        """How an axis moves a filling, with the attributes that move along declared free.

        Setting a slot's label moves its entry's properties too (``who`` -> ``who.gender``);
        swapping a property moves the slot's label (another entry with the other gender) and
        keeps the entry's other properties (:meth:`Lexicon.swap`). A prompt version moves
        nothing else.
        """
        if attribute == self.versions_attribute:
            return Perturbation(_setter(attribute), name=f"set {attribute}")
        if attribute in self.slots:
            properties = [f"{attribute}.{prop}" for prop in self.slots[attribute].properties]
            return Perturbation(_setter(attribute), name=f"set {attribute}", free=properties)
        slot, _, prop = attribute.partition(".")
        lexicon = self.slots[slot]

        def swap(filling: Filling, value: AxisValue) -> Filling:
            counterpart = lexicon.swap(filling.entry(slot), prop, value)
            return filling.with_value(slot, counterpart.label)

        return Perturbation(swap, name=f"swap {attribute}", free=[slot])

    def space(
        self, axes: Sequence[Axis[Filling, Any]], *, cases: int | None = None, seed: int = 0
    ) -> TaskSpace[Filling]:
        """A task space over ``axes`` with up to ``cases`` distinct seeds drawn at the baseline.

        Slots and properties that are not axes vary between seeds; without ``cases`` every
        combination is a seed. The same ``seed`` always draws the same seeds.
        """
        fixed = {axis.name: axis.baseline for axis in axes}
        choices: list[tuple[str, tuple[AxisValue, ...]]] = []
        if self.versions_attribute is not None:
            version = fixed.get(self.versions_attribute, next(iter(self.texts)))
            choices.append((self.versions_attribute, (version,)))
        for slot, lexicon in self.slots.items():
            candidates = [
                entry.label
                for entry in lexicon
                if (slot not in fixed or same_value(entry.label, fixed[slot]))
                and all(
                    same_value(entry.properties.get(name.partition(".")[2]), value)
                    for name, value in fixed.items()
                    if name.partition(".")[0] == slot and "." in name
                )
            ]
            if not candidates:
                raise TemplateError(
                    f"template {self.name!r}: no entry of slot {slot!r} matches the baselines "
                    f"{ {k: v for k, v in fixed.items() if k.partition('.')[0] == slot} }"
                )
            choices.append((slot, tuple(candidates)))
        sizes = [len(c) for _, c in choices]
        total = 1
        for size in sizes:
            total *= size
        if cases is not None and cases < 1:
            raise TemplateError(f"template {self.name!r}: cases must be at least 1, not {cases}")
        count = total if cases is None else min(cases, total)
        indexes = (
            range(total)
            if count == total
            else sorted(random.Random(seed).sample(range(total), count))
        )
        combos: list[dict[str, AxisValue]] = []
        for index in indexes:
            combo: dict[str, AxisValue] = {}
            for (name, options), size in zip(reversed(choices), reversed(sizes), strict=True):
                index, digit = divmod(index, size)
                combo[name] = options[digit]
            combos.append({name: combo[name] for name, _ in choices})
        varying = [name for (name, options) in choices if len(options) > 1]
        ids = case_ids(combos, varying)
        seeds = {case: self.filling(combo) for case, combo in zip(ids, combos, strict=True)}
        return TaskSpace(seeds, axes, _TemplateRealizer(self))


def _setter(name: str) -> Callable[[Filling, AxisValue], Filling]:
    def set_label(filling: Filling, value: AxisValue) -> Filling:
        return filling.with_value(name, value)

    return set_label


def _label_of(name: str) -> Callable[[Filling], AxisValue]:
    def label(filling: Filling) -> AxisValue:
        return filling.values[name]

    return label


def _property_of(slot: str, prop: str) -> Callable[[Filling], AxisValue | None]:
    def value(filling: Filling) -> AxisValue | None:
        return filling.entry(slot).properties.get(prop)

    return value


class _TemplateRealizer:
    """Realizes fillings through their template."""

    def __init__(self, template: Template) -> None:
        self.template = template
        self.identity = template.identity

    def __call__(self, task: Filling) -> Prompt:
        return self.template.render(task)
