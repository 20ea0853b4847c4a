"""A registry of named objects of one kind (advantage estimators, policy losses, ...): register each
name once, look names up with an error that lists the registered ones."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Registry(Generic[T]):
    """Named objects of one ``kind`` (used in error messages, e.g. ``"policy loss"``)."""

    def __init__(self, kind: str):
        self.kind = kind
        self._items: dict[str, T] = {}

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator registering an object under ``name``; another object under a taken name raises."""
        def decorator(item: T) -> T:
            taken = self._items.get(name)
            if taken is not None and taken is not item:
                raise ValueError(f"{self.kind} {name!r} is already registered "
                                 f"({getattr(taken, '__qualname__', taken)!s})")
            self._items[name] = item
            return item
        return decorator

    def get(self, name: str) -> T:
        """The object registered as ``name`` (a ``KeyError`` naming the registered ones)."""
        try:
            return self._items[name]
        except KeyError:
            raise KeyError(f"unknown {self.kind} {name!r}; registered: {self.names()}") from None

    def names(self) -> list[str]:
        """The registered names, sorted."""
        return sorted(self._items)

    def __contains__(self, name: object) -> bool:
        return name in self._items
