"""The checks of notebook 00: a first tensor, a slope worked out by hand, a predicted printout.

Each check runs your answer on inputs it draws itself and reports what it saw. It is compared
with what the instructor's solution gives on the same inputs: here, with the answers recorded
for practice; when your notebook is graded, on inputs drawn fresh for the grading run.
"""

import autogradkit as agk
import autogradkit.autograd
from autogradkit.grading.checks import Checks

check = Checks(__file__)


@check.exercise("first_tensor")
def tensor_from_numbers(obs, first_tensor):
    """Exercise 1: your first tensor"""
    whole = [int(v) for v in obs.rng.integers(-9, 10, size=int(obs.rng.integers(2, 6)))]
    decimals = [round(float(v), 1) for v in obs.rng.uniform(-5, 5, size=3)]
    for values in (whole, decimals):
        t = obs.call(first_tensor, list(values))
        call = f"first_tensor({values})"
        obs.require(
            f"{call} returns a tensor",
            isinstance(t, agk.Tensor),
            hint="agk.tensor(...) makes one, as in section 2",
        )
        obs.close(f"{call} holds those numbers", t, hint="the same numbers, in the same order")
        obs.equal(
            f"{call} is a floating-point tensor",
            t.is_floating_point(),
            hint="whole numbers make an integer tensor (section 3): ask for floats",
        )
        obs.equal(
            f"{call} requires grad",
            t.requires_grad,
            hint="ask for gradients, as x does in section 2",
        )


@check.exercise("slope")
def slope_by_hand(obs, slope):
    """Exercise 2: a gradient by hand"""
    hand = obs.by_hand(slope)  # runs where autograd does not exist: by hand, by design
    # near 1e120, x³ overflows (inf) and 3x² does not: a difference quotient there is nan,
    # however it removes its error terms (Richardson's (4 D(h/2) - D(h)) / 3 is exact for x³)
    huge = float(obs.rng.choice([-1.0, 1.0])) * round(float(obs.rng.uniform(1.0, 9.0)), 1) * 1e120
    for x in [*obs.rng.uniform(-4.0, 4.0, size=3).tolist(), huge]:
        obs.close(
            f"slope({x:g})",
            obs.call(hand, x),
            atol=1e-12,  # the formula is exact; a difference quotient is off by far more
            rtol=1e-12,
            hint="differentiate x³ and 2x on paper, one term at a time",
        )


@check.exercise("printed")
def printout_prediction(obs, printed):
    """Exercise 3: predict a printout"""
    obs.require(
        "printed is a string",
        isinstance(printed, str),
        hint='write the printout between quotes: printed = "..."',
    )
    obs.predicted(
        "the printout",
        printed.strip(),
        hint="a result of an operation prints differently from a tensor you made",
    )
