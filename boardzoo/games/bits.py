"""Bit tricks shared by the compiled kernels: population count, lowest set bit, a seeded RNG.

Everything here works on ``numba.uint64`` values; mixing ``uint64`` with a plain integer literal
makes numba promote to ``float64``, so every constant is a ``np.uint64``.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

__all__ = [
    "U0",
    "U1",
    "lowest_bit_index",
    "next_rng",
    "popcount",
    "random_set_bit",
    "rng_output",
    "seed_rng",
]

U0 = np.uint64(0)
U1 = np.uint64(1)

# splitmix64 / xorshift64* constants (Vigna, "An experimental exploration of Marsaglia's
# xorshift generators, scrambled", 2016).
_GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)
_XORSHIFT_STAR = np.uint64(0x2545F4914F6CDD1D)
_S12 = np.uint64(12)
_S25 = np.uint64(25)
_S27 = np.uint64(27)
_S30 = np.uint64(30)
_S31 = np.uint64(31)
_S32 = np.uint64(32)


@njit("u8(u8)", cache=True, nogil=True, inline="always")
def popcount(x):
    """Number of set bits; LLVM turns this loop into one ``popcnt`` instruction."""
    count = U0
    while x:
        x &= x - U1
        count += U1
    return count


@njit("i8(u8)", cache=True, nogil=True, inline="always")
def lowest_bit_index(x):
    """Index of the lowest set bit of a non-zero ``x``."""
    return trailing_zeros(x)


@njit("u8(u8)", cache=True, nogil=True, inline="always")
def seed_rng(seed):
    """Turn any seed (0 included) into a non-zero xorshift state with one splitmix64 step."""
    z = seed + _GOLDEN_GAMMA
    z = (z ^ (z >> _S30)) * _MIX_1
    z = (z ^ (z >> _S27)) * _MIX_2
    z = z ^ (z >> _S31)
    return z if z else _GOLDEN_GAMMA


@njit("u8(u8)", cache=True, nogil=True, inline="always")
def next_rng(state):
    """One xorshift64 step of the state (the caller scrambles the output with ``rng_output``)."""
    state ^= state >> _S12
    state ^= state << _S25
    state ^= state >> _S27
    return state


@njit("u8(u8)", cache=True, nogil=True, inline="always")
def rng_output(state):
    """xorshift64* output: the high 32 bits are good random bits."""
    return (state * _XORSHIFT_STAR) >> _S32


@njit("Tuple((i8, u8))(u8, u8)", cache=True, nogil=True, inline="always")
def random_set_bit(bits, state):
    """Pick one set bit of non-zero ``bits`` uniformly; return its index and the next RNG state."""
    state = next_rng(state)
    k = rng_output(state) % popcount(bits)
    while k:
        bits &= bits - U1
        k -= U1
    return trailing_zeros(bits), state
