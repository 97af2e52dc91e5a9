"""The few ``typing`` names the engine uses at run time, without importing ``typing``.

Importing ``typing`` costs more than a millisecond and a half, a noticeable part of
the command line's start; the engine only needs ``NamedTuple`` (its record and result
types), ``cast`` and ``TYPE_CHECKING``. Type checkers see the real ``typing`` names.
"""

from __future__ import annotations

from collections import namedtuple

TYPE_CHECKING = False  # mypy treats any name TYPE_CHECKING as true

if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
    from typing import cast as cast
else:

    def cast(kind, value):
        """``typing.cast``: ``value`` itself."""
        return value

    class _NamedTupleMeta(type):
        """Builds a ``collections.namedtuple`` from a class body as ``typing.NamedTuple``
        does: fields from the annotations (not evaluated), defaults from their values,
        and the body's methods, properties and docstring."""

        def __new__(mcls, name, bases, namespace):
            if not bases:
                return super().__new__(mcls, name, bases, namespace)
            fields = tuple(namespace.get("__annotations__", {}))
            defaults = [namespace[field] for field in fields if field in namespace]
            made = namedtuple(name, fields, defaults=defaults, module=namespace["__module__"])
            for key, value in namespace.items():
                if key not in fields and key not in _NOT_COPIED:
                    setattr(made, key, value)
            return made

    _NOT_COPIED = frozenset({"__annotations__", "__module__", "__dict__", "__weakref__"})

    class NamedTuple(metaclass=_NamedTupleMeta):
        """Base class of the engine's named tuples (see ``_NamedTupleMeta``)."""
