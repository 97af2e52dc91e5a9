"""deploy/ as docs/deploy.md installs it: the systemd unit (``systemd-analyze verify``
where the tool exists, and its restart policy against the bot's exit codes), the HTTPS
fronts (every path the bot's HTTP server serves is passed on, ``/healthz`` is not:
checked on the configs' route lists, and through the real nginx and Caddy where they
are installed), and the ``mafia-bot-cli`` wrapper run as the service's user."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from bot.app import add_live_pages, build_dispatcher, create_bot
from bot.config import Settings
from bot.db.connection import Database
from bot.telegram.startup import EXIT_SETTINGS, EXIT_TOKEN, EXIT_UNREACHABLE
from bot.web.server import add_webhook, create_app
from tests.support import BOT_TOKEN

REPO_ROOT = Path(__file__).resolve().parents[1]
DEPLOY = REPO_ROOT / "deploy"
UNIT = DEPLOY / "mafia-bot.service"
CADDYFILE = DEPLOY / "Caddyfile"
NGINX_CONF = DEPLOY / "nginx.conf"
WRAPPER = DEPLOY / "mafia-bot-cli"
UPSTREAM = "127.0.0.1:8080"
# Keys systemd 254 brought; an older one warns of them and goes on without them.
NEWER_KEYS = ("RestartSteps", "RestartMaxDelaySec")


def systemd_version() -> int:
    done = subprocess.run(["systemd-analyze", "--version"], capture_output=True, text=True,
                          check=False, timeout=30)
    found = re.search(r"systemd (\d+)", done.stdout)
    return int(found.group(1)) if found else 0


# -- the systemd unit ------------------------------------------------------------------------


def unit_settings() -> dict[str, str]:
    return dict(line.split("=", 1) for line in UNIT.read_text().splitlines()
                if "=" in line and not line.startswith("#"))


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze")
def test_the_unit_verifies(tmp_path: Path) -> None:
    # Where the unit expects the installed bot, this checkout: verify checks that
    # ExecStart's program exists.
    text = UNIT.read_text().replace("/opt/mafia-bot/.venv/bin/python", sys.executable)
    unit = tmp_path / UNIT.name
    unit.write_text(text.replace("/opt/mafia-bot", str(REPO_ROOT)))
    done = subprocess.run(["systemd-analyze", "verify", "--man=no", str(unit)],
                          capture_output=True, text=True, timeout=60, check=False)
    said = [line for line in (done.stdout + done.stderr).splitlines() if UNIT.name in line]
    if systemd_version() < 254:
        said = [line for line in said
                if not any(re.search(f"Unknown key (name )?'{key}'", line)
                           for key in NEWER_KEYS)]
    assert done.returncode == 0 and said == [], done.stdout + done.stderr


def test_the_unit_restarts_what_a_restart_can_mend() -> None:
    """Crashes and an unreachable Telegram are restarted with a growing pause; a setting
    to fix or a refused token, which would fail again at once, are not."""
    settings = unit_settings()
    assert settings["Restart"] == "on-failure"
    assert set(settings["RestartPreventExitStatus"].split()) == {str(EXIT_SETTINGS),
                                                                 str(EXIT_TOKEN)}
    assert str(EXIT_UNREACHABLE) not in settings["RestartPreventExitStatus"].split()
    assert int(settings["RestartSec"]) >= 10
    assert int(settings["RestartMaxDelaySec"]) > int(settings["RestartSec"])
    assert int(settings["RestartSteps"]) >= 1
    assert settings["StateDirectory"] == "mafia-bot"
    assert settings["EnvironmentFile"].endswith("/.env")
    assert settings.get("User") or settings.get("DynamicUser") == "yes"


# -- what the bot serves -----------------------------------------------------------------------


def example_setting(config: Path, name: str) -> str:
    """The setting a config's header comment pairs it with (``WEBHOOK_URL=...``)."""
    found = re.search(rf"{name}=(\S+?)[,;)]?(?:\s|$)", config.read_text())
    assert found, f"{config.name} does not say which {name} it serves"
    return found.group(1)


@dataclass(frozen=True)
class Route:
    method: str
    path: str  # a path the route answers, its variables filled in


async def served_routes(db: Database, config: Path) -> list[Route]:
    """Every route of the bot's own HTTP server, in webhook mode with the live protocol
    on, for the settings the config says it goes with."""
    settings = Settings(_env_file=None, bot_token=BOT_TOKEN,  # type: ignore[call-arg]
                        database_path=db.path,
                        webhook_url=example_setting(config, "WEBHOOK_URL"),
                        webapp_url=example_setting(config, "WEBAPP_URL"))
    dp = build_dispatcher(db, settings)
    bot = create_bot(BOT_TOKEN)
    try:
        app = create_app(settings, started=0.0, mode="webhook")
        add_webhook(app, dp, bot, path=settings.webhook_path, secret="s3cret")
        add_live_pages(app, dp, bot, settings, BOT_TOKEN)
        routes = []
        for resource in app.router.resources():
            path = re.sub(r"\{[^}]+\}", "x1", resource.canonical)
            if isinstance(resource, web.StaticResource):
                path += "/app.js"
            routes += [Route(r.method, path) for r in resource if r.method != "HEAD"]
        return routes
    finally:
        await bot.session.close()


# -- the proxies' route lists -----------------------------------------------------------------


def nginx_passes(path: str) -> bool:
    """nginx's choice: an exact ``location =`` first, else the longest prefix."""
    blocks = re.findall(r"location\s+(=\s*)?(\S+)\s*\{(.*?)\}", NGINX_CONF.read_text(), re.S)
    exact = [body for eq, where, body in blocks if eq and where == path]
    prefixes = sorted(((where, body) for eq, where, body in blocks
                       if not eq and path.startswith(where)), key=lambda b: -len(b[0]))
    body = exact[0] if exact else prefixes[0][1] if prefixes else ""
    return f"proxy_pass http://{UPSTREAM}" in body


def caddy_routes() -> list[tuple[list[str] | None, bool]]:
    """(path patterns, None for any; passed to the bot?) in Caddy's order: from
    ``caddy adapt`` when Caddy is installed, else from the Caddyfile's text."""
    if shutil.which("caddy"):
        done = subprocess.run(["caddy", "adapt", "--config", str(CADDYFILE), "--adapter",
                               "caddyfile"], capture_output=True, text=True, check=True,
                              timeout=60)
        [site] = json.loads(done.stdout)["apps"]["http"]["servers"].values()
        [host] = site["routes"]
        found = []
        for route in host["handle"][0]["routes"]:
            paths = [p for m in route.get("match", []) for p in m.get("path", [])] or None
            found.append((paths, f'"dial": "{UPSTREAM}"' in json.dumps(route)))
        return found
    text = CADDYFILE.read_text()
    named = {name: where.split() for name, where in re.findall(r"@(\w+)\s+path\s+(.+)", text)}
    found = []
    for matcher, body in re.findall(r"\n\s*handle\s*(\S*)\s*\{(.*?)\n\s*\}", text, re.S):
        paths = named[matcher[1:]] if matcher.startswith("@") else [matcher] if matcher else None
        found.append((paths, f"reverse_proxy {UPSTREAM}" in body))
    return found


def caddy_passes(path: str) -> bool:
    for paths, passed in caddy_routes():
        if paths is None or any(path == p or (p.endswith("*") and path.startswith(p[:-1]))
                                for p in paths):
            return passed
    return False


NOT_SERVED = ("/healthz", "/", "/apps", "/tg/webhook2", "/.env", "/static/app.js")


@pytest.mark.parametrize(("config", "passes"), [(NGINX_CONF, nginx_passes),
                                                (CADDYFILE, caddy_passes)])
async def test_the_proxies_pass_what_the_bot_serves_and_no_more(
        db: Database, config: Path, passes: Any) -> None:
    routes = await served_routes(db, config)
    paths = {r.path for r in routes}
    # The webhook, the Mini App (its page, files, API) and the public view of a table.
    assert {"/tg/webhook", "/app/", "/app/static/app.js", "/api/live/x1/events",
            "/live/x1", "/healthz"} <= paths, paths
    assert [p for p in sorted(paths - {"/healthz"}) if not passes(p)] == []
    assert [p for p in NOT_SERVED if passes(p)] == []


# -- the proxies themselves ---------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
async def upstream() -> AsyncIterator[tuple[int, list[str]]]:
    """In the bot's place behind the proxy: answers every path, noting it."""
    seen: list[str] = []

    async def anything(request: web.Request) -> web.Response:
        seen.append(request.path)
        return web.Response(text=f"bot {request.path}")

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", anything)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        yield port, seen
    finally:
        await runner.cleanup()


def replaced(text: str, old: str, new: str) -> str:
    assert old in text, f"the shipped config no longer holds {old!r}"
    return text.replace(old, new)


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        pytest.skip("no openssl to make a certificate for the test")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=bot.example.org", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    return cert, key


async def run(*argv: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    """A command's exit code and output (nginx -t, caddy validate)."""
    proc = await asyncio.create_subprocess_exec(*argv, env=env, stdout=asyncio.subprocess.PIPE,
                                                stderr=asyncio.subprocess.STDOUT)
    out, _ = await proc.communicate()
    assert proc.returncode is not None
    return proc.returncode, out.decode(errors="replace")


async def served(argv: list[str], port: int, log: Path,
                 env: dict[str, str] | None = None) -> asyncio.subprocess.Process:
    """The server started, once it listens on ``port``."""
    with log.open("ab") as out:
        proc = await asyncio.create_subprocess_exec(*argv, env=env, stdout=out,
                                                    stderr=asyncio.subprocess.STDOUT)
    for _ in range(1200):
        if proc.returncode is not None:
            break
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.05)
            continue
        writer.close()
        await writer.wait_closed()
        return proc
    await stop(proc)
    said = await asyncio.to_thread(log.read_text)
    raise AssertionError(f"{argv[0]} does not listen on {port} (exit {proc.returncode}): {said}")


async def stop(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is None:
        proc.terminate()
        try:
            await asyncio.wait_for(proc.wait(), 30)
        except TimeoutError:
            proc.kill()
            await proc.wait()


async def through(base: str, seen: list[str], config: Path, db: Database) -> None:
    """Every route of the bot reaches it through the proxy; the rest is 404 there."""
    routes = [r for r in await served_routes(db, config) if r.path != "/healthz"]
    async with aiohttp.ClientSession() as client:
        for route in routes:
            async with client.request(route.method, base + route.path, ssl=False) as answer:
                assert (answer.status, await answer.text()) == (200, f"bot {route.path}")
        for path in NOT_SERVED:
            async with client.get(base + path, ssl=False) as answer:
                assert answer.status == 404, path
    assert sorted(set(seen)) == sorted({r.path for r in routes})


@pytest.mark.skipif(shutil.which("nginx") is None,
                    reason="nginx is not installed (apt-get install nginx): its route list "
                           "is checked above")
async def test_nginx_runs_the_shipped_config(
        db: Database, tmp_path: Path, certificate: tuple[Path, Path],
        upstream: tuple[int, list[str]]) -> None:
    """The site as shipped, but for its port, certificate and the bot's port."""
    bot_port, seen = upstream
    cert, key = certificate
    port = free_port()
    site = NGINX_CONF.read_text()
    site = replaced(site, "listen 443 ssl;", f"listen 127.0.0.1:{port} ssl;")
    site = replaced(site, "/etc/letsencrypt/live/bot.example.org/fullchain.pem", str(cert))
    site = replaced(site, "/etc/letsencrypt/live/bot.example.org/privkey.pem", str(key))
    site = replaced(site, UPSTREAM, f"127.0.0.1:{bot_port}")
    (tmp_path / "site.conf").write_text(site)
    temp = " ".join(f"{kind}_temp_path {tmp_path / kind};"
                    for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    conf = tmp_path / "nginx.conf"
    conf.write_text(f"pid {tmp_path / 'nginx.pid'};\nevents {{}}\n"
                    f"http {{ access_log off; {temp} include {tmp_path / 'site.conf'}; }}\n")
    argv = ["nginx", "-e", str(tmp_path / "error.log"), "-p", str(tmp_path), "-c", str(conf)]
    code, said = await run(*argv, "-t")
    assert code == 0, said
    proc = await served([*argv, "-g", "daemon off;"], port, tmp_path / "error.log")
    try:
        await through(f"https://127.0.0.1:{port}", seen, NGINX_CONF, db)
    finally:
        await stop(proc)


@pytest.fixture
def caddy_env(tmp_path: Path) -> dict[str, str]:
    """Caddy's own files (certificates, autosave) in the test's folder."""
    return {**os.environ, "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data"),
            "XDG_CONFIG_HOME": str(tmp_path / "config")}


@pytest.mark.skipif(shutil.which("caddy") is None,
                    reason="Caddy is not installed (apt-get install caddy): its route list "
                           "is checked above")
async def test_caddy_runs_the_shipped_config(
        db: Database, tmp_path: Path, caddy_env: dict[str, str],
        upstream: tuple[int, list[str]]) -> None:
    """``caddy validate`` as shipped; then served over plain HTTP on a test port (no
    certificate to get), the routes as shipped."""
    code, said = await run("caddy", "validate", "--config", str(CADDYFILE), "--adapter",
                           "caddyfile", env=caddy_env)
    assert code == 0, said
    bot_port, seen = upstream
    port = free_port()
    site = replaced(CADDYFILE.read_text(), "bot.example.org {", f"http://127.0.0.1:{port} {{")
    site = replaced(site, UPSTREAM, f"127.0.0.1:{bot_port}")
    config = tmp_path / "Caddyfile"
    config.write_text("{\n\tadmin off\n}\n" + site)
    proc = await served(["caddy", "run", "--config", str(config), "--adapter", "caddyfile"],
                        port, tmp_path / "caddy.log", env=caddy_env)
    try:
        await through(f"http://127.0.0.1:{port}", seen, CADDYFILE, db)
    finally:
        await stop(proc)


def test_the_configs_read_as_they_should_without_the_servers() -> None:
    """What the tests above rely on, whether or not nginx and Caddy are here."""
    assert example_setting(NGINX_CONF, "WEBHOOK_URL") == example_setting(CADDYFILE,
                                                                        "WEBHOOK_URL")
    assert NGINX_CONF.read_text().count("{") == NGINX_CONF.read_text().count("}")
    assert CADDYFILE.read_text().count("{") == CADDYFILE.read_text().count("}")


# -- the wrapper -----------------------------------------------------------------------------


@pytest.fixture
def service(tmp_path: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    """An install as docs/deploy.md lays it out, under tmp_path: the code's folder with
    its .venv and .env, the service's folder with the database; the service's user is
    the one running the tests."""
    user = subprocess.run(["id", "-un"], capture_output=True, text=True, check=False)
    if user.returncode != 0:
        pytest.skip("this user has no name for the wrapper's MAFIA_BOT_USER")
    home = tmp_path / "opt"
    (home / ".venv" / "bin").mkdir(parents=True)
    shim = home / ".venv" / "bin" / "python"
    shim.write_text(f'#!/bin/sh\nexec {sys.executable} "$@"\n')
    shim.chmod(0o755)
    (home / ".env").write_text(
        "# The service's settings (root's alone: chmod 600).\n"
        "DATABASE_PATH=data/bot.sqlite3\n"
        'OPERATOR_IDS="1, 2"\n'
        "\n"
        "TIMEZONE='Europe/Moscow'\n")
    state = tmp_path / "state"
    (state / "data").mkdir(parents=True)
    asyncio.run(_database(state / "data" / "bot.sqlite3"))
    names = {name.upper() for name in Settings.model_fields}
    env = {k: v for k, v in os.environ.items() if k not in names}
    env.update(MAFIA_BOT_HOME=str(home), MAFIA_BOT_STATE=str(state),
               MAFIA_BOT_USER=user.stdout.strip())
    yield state, env


async def _database(path: Path) -> None:
    await (await Database.open(path)).close()


def test_the_wrapper_runs_commands_as_the_service(service: tuple[Path, dict[str, str]],
                                                  tmp_path: Path) -> None:
    state, env = service

    def cli(*argv: str) -> subprocess.CompletedProcess[str]:
        # From another folder: the wrapper goes to the service's.
        return subprocess.run(["sh", str(WRAPPER), *argv], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=120, check=False)

    done = cli("check")
    report = json.loads(done.stdout)
    assert done.returncode == 1 and report["database_ok"], done.stderr
    assert report["database"] == "data/bot.sqlite3"  # .env's, from the service's folder
    assert done.stderr == "unhealthy: no bot is running on data/bot.sqlite3\n"
    done = cli("backup", "data/backups/")
    [written] = (state / "data" / "backups").iterdir()
    assert done.returncode == 0 and done.stdout == (
        f"backup of data/bot.sqlite3 written to data/backups/{written.name}\n"), done.stderr
    done = cli("export")
    assert done.returncode == 2 and done.stderr.startswith("export: there are no tournaments")


def test_the_wrapper_and_the_unit_agree_on_the_layout() -> None:
    unit = unit_settings()
    text = WRAPPER.read_text()
    defaults = dict(re.findall(r"^(\w+)=\$\{MAFIA_BOT_\w+:-(\S+)\}$", text, re.M))
    assert unit["EnvironmentFile"] == f"{defaults['home']}/.env"
    assert unit["ExecStart"] == f"{defaults['home']}/.venv/bin/python -m bot"
    assert unit["WorkingDirectory"] == defaults["state"]
    assert unit["User"] == defaults["user"]


# -- docs/deploy.md ---------------------------------------------------------------------------


def documented_commands() -> list[str]:
    text = (REPO_ROOT / "docs" / "deploy.md").read_text()
    blocks = re.findall(r"```sh\n(.*?)```", text, re.S)
    return [line.split("#")[0].strip() for block in blocks for line in block.splitlines()
            if line.strip() and not line.startswith("#")]


def test_the_documented_commands_name_what_exists() -> None:
    """Every ``mafia-bot-cli`` line is a command ``python -m bot`` takes; every file of
    the repository a command installs is there."""
    from bot.__main__ import _parser

    commands = documented_commands()
    cli = [c.split("mafia-bot-cli", 1)[1].split(">")[0].split() for c in commands
           if "mafia-bot-cli " in c and "install" not in c]
    assert len(cli) >= 8
    for argv in cli:
        _parser().parse_args(argv)  # exits 2 on a command it does not take
    shipped = {m for c in commands for m in re.findall(r"\bdeploy/[\w.-]+", c)}
    assert shipped == {"deploy/mafia-bot.service", "deploy/mafia-bot-cli",
                       "deploy/Caddyfile", "deploy/nginx.conf"}
    assert all((REPO_ROOT / path).is_file() for path in shipped)
    assert any("sudo -u mafia-bot sh -c 'cd /var/lib/mafia-bot && exec "
               "/opt/mafia-bot/.venv/bin/python -m bot check'" in c for c in commands)
