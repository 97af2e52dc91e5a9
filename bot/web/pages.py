"""The live protocol's static pages: the Mini App at ``/app/`` (``webapp/index.html``
and ``webapp/static/``) and the public live view at ``/live/{public}``
(``webapp/live.html``), never cached stale (``Cache-Control: no-cache``)."""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

WEBAPP = Path(__file__).resolve().parents[2] / "webapp"


async def to_app(request: web.Request) -> web.StreamResponse:
    raise web.HTTPFound("/app/" + (f"?{request.query_string}" if request.query_string else ""))


def _page(name: str) -> web.StreamResponse:
    path = WEBAPP / name
    if not path.is_file():
        raise web.HTTPNotFound()
    return web.FileResponse(path, headers={"Cache-Control": "no-cache"})


async def index(request: web.Request) -> web.StreamResponse:
    return _page("index.html")


async def public_page(request: web.Request) -> web.StreamResponse:
    return _page("live.html")


def add_pages(app: web.Application) -> None:
    app.router.add_get("/app", to_app)
    app.router.add_get("/app/", index)
    if (WEBAPP / "static").is_dir():
        app.router.add_static("/app/static/", WEBAPP / "static")
    app.router.add_get("/live/{public}", public_page)
