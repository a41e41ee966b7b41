"""Standard output whose reader may leave early (`hookconf list | head -1`): the rest of the output is
dropped quietly and the command still ends with its own exit code."""

from __future__ import annotations

import io
import os
import sys


def emit(text: str) -> None:
    """Write to stdout and flush, so that a closed pipe shows here and not in the interpreter's last flush."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        drop_stdout()


def emit_lines(lines: list[str]) -> None:
    emit("".join(f"{line}\n" for line in lines))


def finish_stdout() -> None:
    """Flush what print() and argparse left in the buffer, while a closed pipe can still be told apart."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        drop_stdout()


def drop_stdout() -> None:
    """The reader has gone: point stdout's descriptor at /dev/null, so that later writes and the interpreter's
    final flush succeed into nothing instead of raising BrokenPipeError again."""
    try:
        descriptor = sys.stdout.fileno()
    except (AttributeError, io.UnsupportedOperation):  # stdout replaced by an object without a descriptor
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, descriptor)
    finally:
        os.close(devnull)
