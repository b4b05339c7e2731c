"""Write the reference tables the statistics tests compare against (run by hand, rarely).

Other libraries are slow to call once per generated example (statsmodels' ``multipletests``
takes tens of milliseconds a call), so their answers for a fixed set of inputs are kept in
``tests/stats/references/``, with the versions that made them; the tests then compare
modelscape with the table in a few milliseconds, and with a direct computation on generated
inputs. Run it again after upgrading the library, from the repository root::

    python tests/stats/make_references.py

and commit the table if its values changed (they should not: the tests say where).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

FOLDER = Path(__file__).resolve().parent / "references"


def holm_inputs() -> list[list[float | None]]:
    """P-value lists that exercise Holm's rule: ties, zeros and ones, tiny values, untested
    transitions (None), every length from 1 to 30, and random draws."""
    fixed: list[list[float | None]] = [
        [0.5],
        [0.0],
        [1.0],
        [0.03, 0.01, 0.5, 0.02],
        [0.01, 0.01, 0.01],
        [0.0, 0.0, 1.0, 1.0],
        [1e-300, 1e-10, 0.04, 0.04, 0.9],
        [0.05] * 20,
        [0.2, None, 0.01, None, 0.3],
        [None, 0.04],
        [0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625],
        [0.999, 0.001, 0.5, 0.0499, 0.05, 0.0501],
    ]
    draw = random.Random(20_261_203)
    for size in range(1, 31):
        values: list[float | None] = []
        for _ in range(size):
            kind = draw.random()
            if kind < 0.1:
                values.append(None)
            elif kind < 0.2:
                values.append(draw.choice([0.0, 1.0, 0.05, 1e-12]))
            elif kind < 0.6:
                values.append(round(draw.random() * 0.1, draw.randint(1, 6)))
            else:
                values.append(draw.random())
        fixed.append(values)
    return fixed


def holm_table() -> dict[str, object]:
    import statsmodels
    from statsmodels.stats.multitest import multipletests

    rows = []
    for values in holm_inputs():
        tested = [v for v in values if v is not None]
        _, adjusted, _, _ = multipletests(tested, method="holm")
        answers = iter(adjusted.tolist())
        rows.append(
            {"p_values": values, "adjusted": [None if v is None else next(answers) for v in values]}
        )
    return {
        "made_by": f"statsmodels {statsmodels.__version__} multipletests(method='holm'), "
        "on the tested values (None: untested, left out, stays None)",
        "rows": rows,
    }


def main() -> None:
    FOLDER.mkdir(exist_ok=True)
    path = FOLDER / "holm.json"
    table = holm_table()
    rows = ",\n".join(json.dumps(row) for row in table.pop("rows"))  # type: ignore[attr-defined]
    header = json.dumps(table)[:-1]
    path.write_text(f'{header}, "rows": [\n{rows}\n]}}\n', encoding="utf-8")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
