"""A monotonic clock that compiled code reads: searches keep their own deadline.

:func:`monotonic_ns` is callable from numba-compiled functions (and from Python): the C library's
``clock_gettime(CLOCK_MONOTONIC)``, the clock of Python's :func:`time.monotonic_ns`, called by
name, so the functions that read it stay in numba's on-disk cache (a ctypes function pointer
would not). A search that reads it every thousand nodes or so stops within microseconds of its
deadline, where a node budget worked out from a measured speed can be far off. On Windows, whose
C library has no ``clock_gettime``, it reads ``clock()`` (milliseconds of processor time, which a
single-threaded search spends at the pace of the wall clock).
"""

from __future__ import annotations

import sys

from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

__all__ = ["monotonic_ns"]

# CLOCK_MONOTONIC's number in <time.h>: Linux and the BSDs 1 (FreeBSD 4), macOS 6.
_MONOTONIC = {"darwin": 6, "freebsd": 4}.get(sys.platform.rstrip("0123456789"), 1)
_WINDOWS = sys.platform == "win32"


@intrinsic
def _clock_ns(typingctx):
    """LLVM code calling the C library's clock by name: nanoseconds as an int64."""

    def codegen(context, builder, signature, args):
        i32, i64 = ir.IntType(32), ir.IntType(64)
        module = builder.module
        if _WINDOWS:
            clock = module.globals.get("clock") or ir.Function(
                module, ir.FunctionType(i32, []), "clock"
            )
            millis = builder.sext(builder.call(clock, []), i64)
            return builder.mul(millis, ir.Constant(i64, 1_000_000))
        timespec = ir.LiteralStructType([i64, i64])
        gettime = module.globals.get("clock_gettime") or ir.Function(
            module, ir.FunctionType(i32, [i32, timespec.as_pointer()]), "clock_gettime"
        )
        now = builder.alloca(timespec)
        builder.call(gettime, [ir.Constant(i32, _MONOTONIC), now])
        zero = ir.Constant(i32, 0)
        seconds = builder.load(builder.gep(now, [zero, zero]))
        nanos = builder.load(builder.gep(now, [zero, ir.Constant(i32, 1)]))
        return builder.add(builder.mul(seconds, ir.Constant(i64, 1_000_000_000)), nanos)

    return types.int64(), codegen


@njit("i8()", cache=True, nogil=True)
def monotonic_ns():
    """Nanoseconds of the monotonic clock (:func:`time.monotonic_ns`'s on Linux and macOS)."""
    return _clock_ns()
