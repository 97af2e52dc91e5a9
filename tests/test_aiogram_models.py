"""aiogram's models built lazily (bot/telegram/aiogram_models.py) behave exactly as the eager build.

Each check runs in a fresh interpreter, since what is tested is what happens at import: two
children import `bot` first (lazy), one with `LAZY_MODELS=0` (the setting that turns the patch
off: aiogram's eager build, the reference, where a later `install()` must do nothing). The
children run `run_child` below, and print one JSON line.
"""

# The offline session overrides aiogram's methods, `timeout=` parameter included.
# ruff: noqa: ASYNC109

from __future__ import annotations

import asyncio
import fcntl
import gc
import hashlib
import json
import logging
import os
import subprocess
import sys
import weakref
from collections.abc import AsyncGenerator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from aiogram import Bot
    from aiogram.methods import TelegramMethod
    from pydantic import BaseModel

REPO_ROOT = Path(__file__).resolve().parents[1]
RESULT_MARK = "RESULT:"
MAX_IMPORT_HWM_MIB = 110

# The child's first lines: time and peak memory of `import bot.app`, before anything else.
_BOOT = """
import re, sys, time
start = time.perf_counter()
import bot.app
seconds = time.perf_counter() - start
hwm_kb = int(re.search(r"^VmHWM:\\s+(\\d+)", open("/proc/self/status").read(), re.M)[1])
from tests.test_aiogram_models import run_child
run_child({job!r}, seconds, hwm_kb)
"""

CHAT_ID = -1001234567890
CHAT = {"id": CHAT_ID, "type": "supergroup", "title": "Mafia club"}
ALICE = {"id": 111, "is_bot": False, "first_name": "Alice", "username": "alice",
         "language_code": "ru"}
BOT_USER = {"id": 123456, "is_bot": True, "first_name": "Judge", "username": "judge_bot"}
KEYBOARD = {"inline_keyboard": [
    [{"text": "Join", "callback_data": "join:7"}, {"text": "Rules", "url": "https://t.me/x"}],
]}
BOT_MESSAGE = {"message_id": 42, "date": 1767000000, "chat": CHAT, "from": BOT_USER,
               "text": "Game 7 is open", "reply_markup": KEYBOARD,
               "entities": [{"type": "bold", "offset": 0, "length": 6}]}
UPDATES: list[dict[str, Any]] = [
    {"update_id": 1, "message": {
        "message_id": 41, "date": 1767000000, "chat": CHAT, "from": ALICE,
        "text": "/start@judge_bot please, see https://t.me/x",
        "entities": [{"type": "bot_command", "offset": 0, "length": 16},
                     {"type": "url", "offset": 29, "length": 14}],
        "reply_to_message": BOT_MESSAGE, "reply_markup": KEYBOARD}},
    {"update_id": 2, "callback_query": {
        "id": "9001", "from": ALICE, "chat_instance": "-77", "data": "join:7",
        "message": BOT_MESSAGE}},
    {"update_id": 3, "my_chat_member": {
        "chat": {"id": 111, "type": "private", "first_name": "Alice"}, "from": ALICE,
        "date": 1767000001,
        "old_chat_member": {"status": "member", "user": BOT_USER},
        "new_chat_member": {"status": "kicked", "user": BOT_USER, "until_date": 0}}},
]
# The offline session's answers, by Bot API method.
ANSWERS: dict[str, Any] = {
    "sendMessage": BOT_MESSAGE,
    "editMessageText": {**BOT_MESSAGE, "text": "Game 7 is full", "edit_date": 1767000002},
    "answerCallbackQuery": True,
    "getUpdates": UPDATES,
}


# --------------------------------------------------------------------------- the children


def run_child(job: str, import_seconds: float, hwm_kb: int) -> None:
    """Entry point of a child process (see `_BOOT`)."""
    import aiogram.types

    from bot.telegram import aiogram_models

    names = [n for n in aiogram.types.__all__ if _is_model(getattr(aiogram.types, n))]
    result: dict[str, Any] = {
        "import_seconds": import_seconds,
        "hwm_kb": hwm_kb,
        "installed": aiogram_models._installed,
        "types": len(names),
        "types_built_at_import": sum(
            getattr(aiogram.types, n).__pydantic_complete__ for n in names),
    }
    if job in ("eager", "behaviour"):
        result.update(asyncio.run(_behaviour()))
    if job == "eager":
        result["noop"] = _install_after_import()
    if job == "behaviour":
        result["pinned"] = _pinning()
    if job in ("eager", "schemas"):
        result.update(_schemas(reverse=job == "schemas"))
    print(RESULT_MARK + json.dumps(result))


def _is_model(obj: object) -> bool:
    from pydantic import BaseModel

    return isinstance(obj, type) and issubclass(obj, BaseModel)


def _methods() -> Iterator[tuple[str, type[TelegramMethod[Any]]]]:
    import aiogram.methods

    for name in aiogram.methods.__all__:
        cls = getattr(aiogram.methods, name)
        if _is_model(cls) and issubclass(cls, aiogram.methods.TelegramMethod) \
                and cls is not aiogram.methods.TelegramMethod:
            yield name, cls


def _response(returning: Any) -> type[BaseModel]:
    """What aiogram's session parametrizes to parse the answer to a method."""
    from aiogram.methods import Response

    return Response[returning]  # type: ignore[valid-type]


def _built(cls: Any) -> bool:
    """A validator and a serializer exist (not pydantic's "build on first use" mocks)."""
    from pydantic._internal._mock_val_ser import MockValSer

    return bool(cls.__pydantic_complete__) and not any(
        isinstance(cls.__dict__.get(attr), MockValSer)
        for attr in ("__pydantic_validator__", "__pydantic_serializer__"))


def _schemas(*, reverse: bool) -> dict[str, Any]:
    """Digest of every model's JSON schema; the lazy child builds methods first, reversed."""
    import aiogram.types
    from pydantic import json_schema
    from pydantic.json_schema import GenerateJsonSchema, JsonSchemaMode, _DefinitionsRemapping
    from pydantic_core import to_jsonable_python

    # The overrides below give both children the same output as pydantic's own generator,
    # up to the names of `$defs`, ~2x faster (the file must run in ~30 s).
    # Union members are deduplicated by hashing nested tuples; json.dumps does it in C.
    json_schema._deduplicate_schemas = lambda schemas: list(  # type: ignore[attr-defined]
        {json.dumps(s, sort_keys=True): s for s in schemas}.values())

    class Generator(GenerateJsonSchema):
        # Some fields hold arbitrary types (InputFile): compared by name, not an error.
        def handle_invalid_for_json_schema(self, schema: Any, error_info: str) -> Any:
            return {"invalid": error_info}

        def emit_warning(self, kind: Any, detail: str) -> None:
            pass

        # pydantic builds a TypeAdapter per default; aiogram's are plain values or sentinels.
        def encode_default(self, dft: Any) -> Any:
            return to_jsonable_python(dft, fallback=repr)

        # No aiogram model sets `json_schema_mode_override`: no config lookup per node.
        @property
        def mode(self) -> JsonSchemaMode:
            return self._mode

        # Keep the unique `$defs` names pydantic starts with instead of shortening them.
        def _build_definitions_remapping(self) -> _DefinitionsRemapping:
            return _DefinitionsRemapping({}, {})

    models: list[tuple[str, Any]] = [
        (f"types.{n}", getattr(aiogram.types, n)) for n in aiogram.types.__all__
        if _is_model(getattr(aiogram.types, n))]
    models += [(f"methods.{n}", cls) for n, cls in _methods()]
    if reverse:
        models.reverse()
    # What the session parametrizes for each answer; first, before any type is built.
    responses = {f"Response[{n}]": _response(cls.__returning__) for n, cls in _methods()}
    # One pass over all models: every definition is generated once, and a model's digest
    # is its own definition's (nested models are references to theirs, compared too).
    refs, definitions = Generator().generate_definitions(
        [(name, "validation", cls.__pydantic_core_schema__) for name, cls in models])
    digests: dict[str, str] = {}
    for name, _cls in models:
        ref = refs[(name, "validation")]["$ref"].rsplit("/", 1)[-1]
        text = json.dumps([ref, definitions[ref]], sort_keys=True)
        digests[name] = hashlib.sha256(text.encode()).hexdigest()
    not_built = [n for n, cls in [*models, *responses.items()] if not _built(cls)]
    return {"schemas": digests, "not_built": not_built}


def _offline_session() -> Any:
    """An offline session (defined here: the module must not import aiogram at its top)."""
    from aiogram.client.session.base import BaseSession

    class Session(BaseSession):
        """Answers from `ANSWERS`; serializes each request as AiohttpSession does."""

        def __init__(self) -> None:
            super().__init__()
            self.requests: list[tuple[str, dict[str, Any]]] = []

        async def close(self) -> None:
            pass

        async def make_request(self, bot: Bot, method: TelegramMethod[Any],
                               timeout: int | None = None) -> Any:
            files: dict[str, Any] = {}
            form = {key: self.prepare_value(value, bot=bot, files=files)
                    for key, value in method.model_dump(warnings=False).items()}
            self.requests.append((method.__api_method__, {k: v for k, v in form.items() if v}))
            content = json.dumps({"ok": True, "result": ANSWERS[method.__api_method__]})
            return self.check_response(bot, method, 200, content).result

        async def stream_content(self, url: str, headers: dict[str, Any] | None = None,
                                 timeout: int = 30, chunk_size: int = 65536,
                                 raise_for_status: bool = True) -> AsyncGenerator[bytes, None]:
            yield b""

    return Session()


async def _behaviour() -> dict[str, Any]:
    """Calls through a Bot first (methods and `Response[...]` built first), then Updates."""
    from aiogram import Bot
    from aiogram.client.default import DefaultBotProperties
    from aiogram.types import InlineKeyboardMarkup, Message, Update

    session = _offline_session()
    bot = Bot("123456:ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghi", session=session,
              default=DefaultBotProperties(parse_mode="HTML"))
    markup = InlineKeyboardMarkup.model_validate(KEYBOARD)
    sent = await bot.send_message(CHAT_ID, "<b>Game 7</b> is open", reply_markup=markup)
    edited = await bot.edit_message_text("Game 7 is full", chat_id=CHAT_ID,
                                         message_id=sent.message_id, reply_markup=markup)
    answered = await bot.answer_callback_query("9001", text="Joined", show_alert=True)
    polled = await bot.get_updates(offset=1, timeout=0)
    assert isinstance(sent, Message) and isinstance(edited, Message) and answered is True
    results = [sent.model_dump(mode="json"), edited.model_dump(mode="json"), answered,
               [u.model_dump(mode="json") for u in polled]]

    updates = [Update.model_validate(data, context={"bot": bot}) for data in UPDATES]
    kinds = [type(u.event).__name__ for u in updates]
    kinds += [type(updates[0].message.reply_markup).__name__,  # type: ignore[union-attr]
              type(updates[1].callback_query.message).__name__,  # type: ignore[union-attr]
              type(updates[2].my_chat_member.new_chat_member).__name__]  # type: ignore[union-attr]
    reply = updates[0].message.reply_to_message  # type: ignore[union-attr]
    return {
        "requests": session.requests,
        "results": results,
        "updates_json": [u.model_dump(mode="json") for u in updates],
        "updates_python": [repr(u.model_dump()) for u in updates],
        "kinds": kinds,
        "bot_bound": reply is not None and reply.bot is bot,
    }


def _install_after_import() -> dict[str, Any]:
    """In the eager child: aiogram is imported, so install() must change nothing."""
    from aiogram.types import Message
    from pydantic import BaseModel

    from bot.telegram import aiogram_models

    records: list[str] = []
    handler = logging.Handler(logging.DEBUG)
    handler.emit = lambda record: records.append(record.getMessage())  # type: ignore[method-assign]
    logger = logging.getLogger(aiogram_models.__name__)
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    before = BaseModel.__dict__["model_rebuild"]
    aiogram_models.install()
    return {
        "installed": aiogram_models._installed,
        "model_rebuild_untouched": BaseModel.__dict__["model_rebuild"] is before
        and before.__func__.__module__ == "pydantic.main",
        "message_eager": Message.__pydantic_complete__,
        "logged": records,
    }


def _pinning() -> dict[str, Any]:
    """pin_response_types() keeps the bot's `Response[...]` alive through a GC collection,
    and the calls through them answer as before."""
    from aiogram.methods import StopPoll
    from pydantic import BaseModel

    from bot.telegram import aiogram_models

    aiogram_models.install()  # a second call: nothing happens
    aiogram_models.pin_response_types()
    aiogram_models.pin_response_types()  # idempotent
    refs = [(m.__returning__, weakref.ref(_response(m.__returning__)))
            for m in aiogram_models.project_methods()]
    # Control: a parametrization nothing holds is collected (what pinning prevents).
    loose = weakref.ref(_response(StopPoll.__returning__))
    gc.collect()
    again = asyncio.run(_behaviour())
    return {
        "results": again["results"],
        "model_rebuild_restored":
            BaseModel.__dict__["model_rebuild"].__func__.__module__ == "pydantic.main",
        "pinned": len(refs),
        "lost": [repr(t) for t, ref in refs if ref() is None or _response(t) is not ref()],
        "loose_collected": loose() is None,
    }


# --------------------------------------------------------------------------- the tests


@pytest.fixture(scope="module")
def children(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> dict[str, dict[str, Any]]:
    if worker_id == "master":  # no xdist
        return _all_children()
    # The children take ~15 s of CPU: run once for the whole session, whichever
    # pytest-xdist worker gets a test of this module first; the others read its results.
    shared = tmp_path_factory.getbasetemp().parent / "aiogram-models-children.json"
    with shared.with_suffix(".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if shared.exists():
            return json.loads(shared.read_text())  # type: ignore[no-any-return]
        results = _all_children()
        shared.write_text(json.dumps(results))
        return results


def _all_children() -> dict[str, dict[str, Any]]:
    # The small lazy child alone first (its import time is printed), then the two slow ones.
    results = _run_children(["behaviour"])
    return results | _run_children(["eager", "schemas"])


def _run_children(jobs: list[str]) -> dict[str, dict[str, Any]]:
    procs = {
        job: subprocess.Popen(
            [sys.executable, "-c", _BOOT.format(job=job)], cwd=REPO_ROOT,
            env=os.environ | {"LAZY_MODELS": "0" if job == "eager" else "1"},
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for job in jobs
    }
    results: dict[str, dict[str, Any]] = {}
    for job, proc in procs.items():
        out, err = proc.communicate(timeout=120)
        lines = [line for line in out.splitlines() if line.startswith(RESULT_MARK)]
        assert proc.returncode == 0 and lines, f"{job} child failed:\n{out[-3000:]}{err[-5000:]}"
        results[job] = json.loads(lines[-1][len(RESULT_MARK):])
    return results


def test_install_defers_the_types_and_import_stays_small(
        children: dict[str, dict[str, Any]]) -> None:
    lazy, eager = children["behaviour"], children["eager"]
    print(f"\nimport bot.app: lazy {lazy['import_seconds']:.2f}s, VmHWM "
          f"{lazy['hwm_kb'] / 1024:.1f} MiB; eager (LAZY_MODELS=0, alongside another "
          f"child) {eager['import_seconds']:.2f}s, VmHWM {eager['hwm_kb'] / 1024:.1f} MiB")
    assert lazy["installed"] and lazy["types"] > 400
    assert lazy["types_built_at_import"] == 0
    assert eager["types_built_at_import"] == eager["types"]
    assert lazy["hwm_kb"] < MAX_IMPORT_HWM_MIB * 1024


def test_lazy_models_setting_turns_it_off(children: dict[str, dict[str, Any]]) -> None:
    off = children["eager"]
    assert off["installed"] is False
    assert off["types_built_at_import"] == off["types"] > 400


def test_a_bad_lazy_models_value_is_left_to_settings(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from pydantic import ValidationError

    from bot.config import Settings, lazy_models

    monkeypatch.setenv("LAZY_MODELS", "0")
    assert lazy_models() is False
    monkeypatch.setenv("LAZY_MODELS", "maybe")
    assert lazy_models() is True  # at import: on; `python -m bot` reports it
    with pytest.raises(ValidationError, match="lazy_models"):
        Settings()


def test_every_model_builds_lazily_with_the_eager_schema(
        children: dict[str, dict[str, Any]]) -> None:
    lazy, eager = children["schemas"], children["eager"]
    assert lazy["not_built"] == [] and eager["not_built"] == []
    assert set(lazy["schemas"]) == set(eager["schemas"])
    assert len(lazy["schemas"]) > 550  # ~400 types and ~180 methods
    differ = sorted(n for n, digest in lazy["schemas"].items() if eager["schemas"][n] != digest)
    assert differ == [], f"JSON schema differs from the eager build: {differ}"


def test_updates_and_bot_calls_match_the_eager_build(
        children: dict[str, dict[str, Any]]) -> None:
    lazy, eager = children["behaviour"], children["eager"]
    assert lazy["kinds"] == ["Message", "CallbackQuery", "ChatMemberUpdated",
                             "InlineKeyboardMarkup", "Message", "ChatMemberBanned"]
    assert lazy["bot_bound"]
    for key in ("updates_json", "updates_python", "kinds", "requests", "results"):
        assert lazy[key] == eager[key], key
    methods = [method for method, _ in lazy["requests"]]
    assert methods == ["sendMessage", "editMessageText", "answerCallbackQuery", "getUpdates"]
    assert lazy["requests"][0][1]["parse_mode"] == "HTML"
    assert json.loads(lazy["requests"][0][1]["reply_markup"]) == KEYBOARD
    assert lazy["results"][3] == eager["updates_json"]


def test_install_after_aiogram_is_a_harmless_noop(children: dict[str, dict[str, Any]]) -> None:
    noop = children["eager"]["noop"]
    assert noop["installed"] is False
    assert noop["model_rebuild_untouched"] and noop["message_eager"]
    assert any("already imported" in line for line in noop["logged"]), noop["logged"]


def test_pinned_response_types_survive_gc(children: dict[str, dict[str, Any]]) -> None:
    pinned = children["behaviour"]["pinned"]
    assert pinned["model_rebuild_restored"]
    assert pinned["lost"] == [] and pinned["pinned"] >= 10
    assert pinned["loose_collected"]
    assert pinned["results"] == children["eager"]["results"]
