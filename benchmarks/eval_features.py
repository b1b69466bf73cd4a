"""Would an extra feature pay beside the n-tuples? Mobility and parity against a net's errors.

    python benchmarks/eval_features.py --data runs/eval8-d6 \
        --net benchmarks/results/fit/net2-relabel-d6.npz --positions 200000

Logistello's and Edax's evaluations add features to their patterns where the patterns miss
something. This measures, before building any into the evaluator, what a feature would add to
a fitted Reversi net: the net's error on labelled positions (in discs, ``label - scale *
sum``), and what is left of it once a least-squares line in the features is added, per band of
empty squares. The line is fitted on the positions of even-numbered games and measured on the
odd ones (a feature must help on games it has not seen). The features, for the player to move:
its mobility (legal moves), the opponent's, and parity (the quadrants with an odd number of
empty squares). ``+ bias`` is the band's mean error alone, the baseline a feature must beat.

Prints one row a band: positions, mean absolute error of the net, with the band's bias removed,
and with the features' line; then the line's coefficients (discs per move, per odd quadrant).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from boardzoo.fit.data import data_game, load_positions
from boardzoo.fit.weights import net_sums
from boardzoo.learned.ntuple import load_net_file, load_net_metadata

BANDS = ((44, 60), (36, 44), (28, 36), (20, 28), (10, 20))
QUADRANTS = tuple(
    sum(1 << (r * 8 + c) for r in rows for c in cols)
    for rows in (range(4), range(4, 8))
    for cols in (range(4), range(4, 8))
)


def features(game, bitboards: np.ndarray, player: np.ndarray) -> np.ndarray:
    """float64 ``[n, 3]``: own mobility, the opponent's, and odd-empty quadrants."""
    placements, params = game.kernels.placements, game.params
    out = np.zeros((len(player), 3))
    for i, ((s0, s1), p) in enumerate(zip(bitboards.tolist(), player.tolist(), strict=True)):
        b0, b1 = np.uint64(s0), np.uint64(s1)
        out[i, 0] = int(placements(b0, b1, p, params)).bit_count()
        out[i, 1] = int(placements(b0, b1, 1 - p, params)).bit_count()
        empty = ~(s0 | s1) & (2**64 - 1)
        out[i, 2] = sum((empty & q).bit_count() % 2 for q in QUADRANTS)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", nargs="+", required=True, help="data directories")
    parser.add_argument("--net", required=True, help="a fitted net file (with its scale)")
    parser.add_argument("--positions", type=int, default=200_000, help="positions sampled")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    game = data_game(*args.data)
    if game.name != "reversi" or game.options.get("board_size") != 8:
        parser.error(f"the features are Reversi 8x8's; the data is {game.label}")
    net, scale = load_net_file(args.net), float(load_net_metadata(args.net)["scale"])
    positions = load_positions(*[Path(d) for d in args.data])
    rng = np.random.default_rng(args.seed)
    keep = np.zeros(len(positions.label), dtype=bool)
    keep[rng.choice(len(keep), min(args.positions, len(keep)), replace=False)] = True
    positions = positions.select(keep)
    error = positions.label - net_sums(net, game, positions.bitboards, positions.player) * scale
    x = features(game, positions.bitboards, positions.player)
    seen = positions.game % 2 == 0
    print(f"{args.net} on {', '.join(args.data)}: {len(error):,} positions, seed {args.seed}")
    print("empties  positions  exact   MAE net  + bias  + features   own    opponent  "
          "odd quadrants")  # fmt: skip
    for low, high in BANDS:
        band = (positions.empties >= low) & (positions.empties < high)
        fit, test = band & seen, band & ~seen
        if fit.sum() < 100 or test.sum() < 100:
            continue
        bias = error[fit].mean()
        design = np.column_stack([x, np.ones(len(x))])
        coef, *_ = np.linalg.lstsq(design[fit], error[fit], rcond=None)
        raw = np.abs(error[test]).mean()
        biased = np.abs(error[test] - bias).mean()
        lined = np.abs(error[test] - design[test] @ coef).mean()
        print(f"{low:2d}-{high - 1:2d}   {band.sum():9,}  {positions.exact[band].mean():5.2f}   "
              f"{raw:7.2f}  {biased:6.2f}  {lined:10.2f}   {coef[0]:+.3f}  {coef[1]:+.3f}    "
              f"{coef[2]:+.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
