"""Answers to probes that several checks judge, made once per audit and kept under typed keys."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar, cast

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


@dataclass(frozen=True)
class Key(Generic[T_co]):
    """What an entry holds (T_co) and which one it is: `kind` names the code that fills it, `name` the probe."""

    kind: str
    name: str = ""


class ProbeCache:
    """Entries made at most once; an entry that is None (a call that got no answer) still counts as made."""

    def __init__(self) -> None:
        self._entries: dict[Key[object], object] = {}

    def __contains__(self, key: Key[T]) -> bool:
        return key in self._entries

    def __getitem__(self, key: Key[T]) -> T:
        return cast(T, self._entries[key])

    def get(self, key: Key[T], default: T) -> T:
        return cast(T, self._entries.get(key, default))

    def put(self, key: Key[T], value: T) -> T:
        self._entries[key] = value
        return value

    def get_or_make(self, key: Key[T], make: Callable[[], T]) -> T:
        if key not in self._entries:
            return self.put(key, make())
        return self[key]
