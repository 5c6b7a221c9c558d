"""PROOF decoder grid (issue 13): `--decoders "temperature=0.2;temperature=1.0,top_p=0.9;seed=7"`
asks a seeded subset of the questions once more under each grid point (`d1`, `d2`, ...)."""

from __future__ import annotations

import math
import random

from evaluation.models import EvalQuestion
from kg.errors import InputError

PARAMS = {"temperature": float, "top_p": float, "seed": int}
DecoderPoint = dict[str, float | int | str]


def parse_grid(value: str | None) -> list[DecoderPoint]:
    """The grid points in order; a bad point is an error naming it."""
    if not value:
        return []
    points: list[DecoderPoint] = []
    for i, raw in enumerate((p for p in value.split(";") if p.strip()), 1):
        point: DecoderPoint = {}
        for item in (x for x in raw.split(",") if x.strip()):
            name, sep, text = (s.strip() for s in item.partition("="))
            if not sep or name not in PARAMS:
                raise InputError(
                    f"--decoders: point {i} {raw.strip()!r}: {item.strip()!r} is not "
                    f"name=value with name one of {', '.join(PARAMS)}"
                )
            try:
                point[name] = PARAMS[name](text)
            except ValueError:
                raise InputError(
                    f"--decoders: point {i} {raw.strip()!r}: {name} {text!r} is not a number"
                ) from None
        if not point:
            raise InputError(f"--decoders: point {i} is empty")
        points.append(point)
    return points


def check_subset(percent: float) -> float:
    if not (0 < percent <= 100) or math.isnan(percent):
        raise InputError(f"--subset-percent: {percent} is outside (0, 100]")
    return percent


def subset(questions: list[EvalQuestion], percent: float, seed: int) -> set[str]:
    """A fixed, seeded subset: ceil(percent% of the questions), at least one."""
    check_subset(percent)
    uids = sorted(q.uid for q in questions)
    n = max(1, math.ceil(len(uids) * percent / 100 - 1e-9)) if uids else 0
    return set(random.Random(f"{seed}:decoder-subset").sample(uids, n))
