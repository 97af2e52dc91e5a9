"""Build aiogram's ~400 types lazily, on first use, instead of all of them at import.

`aiogram/types/__init__.py` ends with a loop calling `model_rebuild(_types_namespace=...)` on
every TelegramObject, which makes pydantic build a validator and serializer for each one
(although their config says `defer_build=True`): ~105 MiB and ~3 s per process (measured on
`import bot.app`), mostly for models the bot never sees. `install()` makes that loop only
record the namespace, so pydantic builds each model the first time it is used.

`install_on_import()` (what importing `bot` calls) does the same at the moment aiogram is
first imported, by whatever imports it (the app's wiring, handlers, tests, bench): an
import hook on `sys.meta_path` runs aiogram's package under the patch. Until then aiogram
stays unloaded, so the shell's commands that never talk to Telegram (`python -m bot
check`, `backup`, ...) start without it. Either must come before aiogram's first import;
after it they do nothing (aiogram's eager build stays, and a debug line says so).

A lazily built model must still resolve its string annotations, and aiogram's modules import
the types they refer to under `TYPE_CHECKING` only. In pydantic 2.13 a deferred model rebuilds
with its own `__pydantic_parent_namespace__` (merged over the locals of the frame that first
touched it), and the models nested in it (`User` in `Message`) are resolved with the namespace
of that *root*, never their own (`NsResolver`). So every aiogram model that can be a root gets
the namespace aiogram's loop passes:

- the classes in `aiogram.types.__all__` (done by the patched loop);
- the `TelegramMethod` subclasses: aiogram does not defer them (it would build ~130 at
  import, ~1.4 MiB); `install()` defers them too, so each is built on its first call;
- `Response`: its parametrizations (`Response[Message]`, made by the session for each answer)
  inherit the attribute, as pydantic creates them without a namespace of their own.

Then a lazy build resolves the names aiogram's eager loop resolves, whatever is used first;
tests/test_aiogram_models.py compares every model's JSON schema with the eager build. Not
covered: a pydantic model *outside* aiogram nesting an aiogram type (none in this project);
it resolves only if that type was built before, or if its own module has the names.

Measured on `python -m bot` with a 1,000-game tournament (bench/bot_bench.py's memory run):
peak RSS 89 MiB instead of 185 MiB, start-up 1.4 s instead of 4.8 s. Since it leans on
pydantic's internals, pyproject.toml pins aiogram and pydantic to the minor versions it was
checked with, and `LAZY_MODELS=0` (bot/config.py) leaves aiogram's eager build alone.
"""

from __future__ import annotations

import functools
import importlib.abc
import importlib.util
import logging
import operator
import sys
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from importlib.machinery import ModuleSpec
from types import ModuleType, UnionType
from typing import TYPE_CHECKING, Annotated, Any, Union, cast, get_args, get_origin

from pydantic import BaseModel, GetCoreSchemaHandler
from pydantic._internal._config import ConfigWrapper
from pydantic_core import CoreSchema, core_schema

if TYPE_CHECKING:
    from aiogram.methods import TelegramMethod

log = logging.getLogger(__name__)

# The module whose loop builds every type; the patch acts on calls from there only.
_TYPES_MODULE = "aiogram.types"
# The methods' classes (their modules' names start so): built on first use too; not
# `Response` (its parametrizations are pinned built) nor the methods' base.
_METHODS_PACKAGE = "aiogram.methods."
_METHODS_BASE = "aiogram.methods.base"

_installed = False
# The namespace aiogram's loop passes (all type names plus typing helpers); one dict for all.
_namespace: dict[str, Any] | None = None
# Strong references to `Response[...]`: pydantic's cache of parametrized generics is weak.
_pinned: dict[Any, type[BaseModel]] = {}


def install() -> None:
    """Import aiogram with its types deferred. Must run before aiogram is first imported.

    Idempotent. If aiogram is already imported (its types built eagerly), it does nothing.
    """
    install_on_import()
    if _hooked():
        import aiogram  # noqa: F401  (through the hook: aiogram.types, then aiogram.methods)


def install_on_import() -> None:
    """Make the first import of aiogram, wherever it happens, the deferred one `install()`
    makes; until then aiogram stays unimported (the shell's commands never need it).

    Must run before aiogram is first imported; idempotent, and a no-op (as `install()`)
    when aiogram is already imported.
    """
    if _installed or _hooked():
        return
    if "aiogram" in sys.modules:
        log.debug("aiogram is already imported (types built eagerly): not making them lazy")
        return
    sys.meta_path.insert(0, _FirstImport())


def _hooked() -> bool:
    return any(isinstance(finder, _FirstImport) for finder in sys.meta_path)


class _FirstImport(importlib.abc.MetaPathFinder):
    """Finds aiogram as the finders after it do, with a loader that runs its package's
    code under `_deferring()`. Leaves `sys.meta_path` when that code runs (a mere
    `importlib.util.find_spec("aiogram")` loads nothing, so the hook stays)."""

    def __init__(self) -> None:
        self._finding = False

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname != "aiogram" or _installed or self._finding:
            return None
        self._finding = True  # the finders after this one answer the search below
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            self._finding = False
        if spec is not None and spec.loader is not None:
            spec.loader = _DeferringLoader(spec.loader)
        return spec


class _DeferringLoader(importlib.abc.Loader):
    def __init__(self, loader: importlib.abc.Loader) -> None:
        self._loader = loader

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _FirstImport)]
        # The module keeps the loader that found it, as after a plain import.
        if module.__spec__ is not None:
            module.__spec__.loader = self._loader
        module.__loader__ = self._loader
        with _deferring():
            self._loader.exec_module(module)


@contextmanager
def _deferring() -> Iterator[None]:
    """aiogram's package imported inside it gets its types and methods deferred."""
    global _installed
    _installed = True
    original = BaseModel.__dict__["model_rebuild"]

    def record(
        cls: type[BaseModel],
        *,
        force: bool = False,
        raise_errors: bool = True,
        _parent_namespace_depth: int = 2,
        _types_namespace: dict[str, Any] | None = None,
    ) -> bool | None:
        global _namespace
        if (
            _types_namespace is not None
            and not force
            and sys._getframe(1).f_globals.get("__name__") == _TYPES_MODULE
        ):
            if _namespace is None:
                _namespace = dict(_types_namespace)
            if not cls.__pydantic_complete__:
                # pydantic reads it (through `unpack_lenient_weakvaluedict`, which accepts a
                # plain dict) when it builds the model on first use.
                cls.__pydantic_parent_namespace__ = _namespace
            return None
        # Any other caller (e.g. pydantic parametrizing a generic) gets the real method.
        return original.__func__(  # type: ignore[no-any-return]
            cls,
            force=force,
            raise_errors=raise_errors,
            _parent_namespace_depth=_parent_namespace_depth,
            _types_namespace=_types_namespace,
        )

    original_config = ConfigWrapper.__dict__["for_model"]

    def deferred_methods(
        cls: type[ConfigWrapper],
        bases: tuple[type[Any], ...],
        namespace: dict[str, Any],
        raw_annotations: dict[str, Any],
        kwargs: dict[str, Any],
    ) -> ConfigWrapper:
        wrapper: ConfigWrapper = original_config.__func__(
            cls, bases, namespace, raw_annotations, kwargs
        )
        module = str(namespace.get("__module__", ""))
        if module.startswith(_METHODS_PACKAGE) and module != _METHODS_BASE:
            wrapper.config_dict["defer_build"] = True
        return wrapper

    BaseModel.model_rebuild = classmethod(record)  # type: ignore[method-assign,assignment]
    ConfigWrapper.for_model = classmethod(deferred_methods)  # type: ignore[method-assign,assignment]
    try:
        yield  # aiogram's __init__ imports aiogram.types, then aiogram.methods
    finally:
        BaseModel.model_rebuild = original  # type: ignore[method-assign]
        ConfigWrapper.for_model = original_config  # type: ignore[method-assign]
    if _namespace is None:
        # aiogram no longer builds its types in that loop: they are eager, and correct.
        log.warning("aiogram's types were not deferred: its type loop was not seen")
        return
    from aiogram.methods.base import Response, TelegramMethod

    # Parametrizations (`TelegramMethod[Message]`, `Response[...]`) inherit the attribute.
    roots: list[type[BaseModel]] = [Response, TelegramMethod, *_subclasses(TelegramMethod)]
    for model in roots:
        model.__pydantic_parent_namespace__ = _namespace
    log.debug("aiogram imported with its types deferred")


def _subclasses(cls: type[BaseModel]) -> Iterator[type[BaseModel]]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def project_methods() -> tuple[type[TelegramMethod[Any]], ...]:
    """The Bot API methods this bot calls: its own calls, the Message/CallbackQuery shortcuts
    it uses (answer, reply, edit_text, ...), and polling (getMe, getUpdates:
    bot.telegram.polling)."""
    from aiogram import methods as m

    return (
        m.GetUpdates, m.GetMe, m.SetMyCommands, m.SendMessage, m.SendPhoto, m.SendDocument,
        m.SendMediaGroup, m.EditMessageText, m.EditMessageReplyMarkup, m.AnswerCallbackQuery,
        m.PinChatMessage, m.GetChatMember,
    )


def pin_response_types(methods: Iterable[type[TelegramMethod[Any]]] | None = None) -> None:
    """Build and keep `Response[...]` for the return types of `methods` (default: the bot's).

    aiogram's session parametrizes `Response[method.__returning__]` for every answer, and
    pydantic keeps parametrized generics in a weak cache: after a GC collection the class and
    its validator are built again on the next call. Idempotent.

    Each model in a return type is validated by its own validator (`_OwnValidator`): a
    plain `Response[Message]` would hold a copy of the validators of all ~120 types a
    message can nest (~1.2 MiB each of `Response[Message]`, `Response[list[Message]]`,
    `Response[Message | bool]`, `Response[list[Update]]`). `Response[returning]` gives
    that class from then on.
    """
    from aiogram.methods.base import Response
    from aiogram.types import Message, Update
    from pydantic._internal._generics import set_cached_generic_type

    # Message first: Update's validator then reuses it (built the other way round, the
    # two take ~1.6 MiB more).
    for hub in (Message, Update):
        hub.model_rebuild()
    for method in project_methods() if methods is None else methods:
        returning = method.__returning__
        if returning not in _pinned:
            pinned = cast(type[BaseModel], Response[_own_validators(returning)])  # type: ignore[misc]
            _pinned[returning] = pinned
            set_cached_generic_type(Response, (returning,), pinned)


class _OwnValidator:
    """`Annotated[Model, _OWN]`: validated (and serialized) by the model's own validator.

    pydantic-core reuses a complete model's validator for a "model" schema of its class
    (its "prebuilt" validators) without building the inner schema, so the inner schema
    here is a placeholder. The model is built first, as a model of its own.
    """

    def __get_pydantic_core_schema__(
        self, source: type[BaseModel], handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        source.model_rebuild(raise_errors=True)
        return core_schema.model_schema(source, core_schema.any_schema())


_OWN = _OwnValidator()


def _own_validators(returning: Any) -> Any:
    """``returning`` with each model in it marked `_OWN` (in lists and unions too)."""
    if isinstance(returning, type) and issubclass(returning, BaseModel):
        return Annotated[returning, _OWN]
    args = get_args(returning)
    if not args:
        return returning
    inner = tuple(_own_validators(arg) for arg in args)
    origin = get_origin(returning)
    if origin is list:
        return list[inner[0]]  # type: ignore[valid-type]
    if origin in (Union, UnionType):
        return functools.reduce(operator.or_, inner)
    return returning
