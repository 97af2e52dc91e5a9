"""No module of the bot imports one that imports it back, directly or through others.

The import graph is grimp's (import-linter's engine), ``TYPE_CHECKING`` imports
included: a circle drawn only for the type checker still ties the modules together.
A failure names each circle, e.g. ``a -> b -> a``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Mapping

import grimp

PACKAGES = ("bot", "handlers", "scoring", "seating")

def import_graph() -> dict[str, set[str]]:
    """Module -> the modules of ``PACKAGES`` it imports."""
    graph = grimp.build_graph(*PACKAGES, exclude_type_checking_imports=False, cache_dir=None)
    return {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}


def strongly_connected(graph: Mapping[str, set[str]]) -> Iterator[list[str]]:
    """Tarjan's components of more than one module, iteratively."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = len(index)
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph[succ]))))
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        yield sorted(component)


def circle_through(graph: Mapping[str, set[str]], start: str, members: set[str]) -> list[str]:
    """The shortest circle from ``start`` back to it within ``members``."""
    came_from: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for succ in sorted(graph[node] & members):
            if succ == start:
                path = [node]
                while path[-1] != start:
                    path.append(came_from[path[-1]])
                return [start, *reversed(path[:-1]), start]
            if succ not in came_from:
                came_from[succ] = node
                queue.append(succ)
    raise AssertionError(f"{start} is in no circle")


def test_no_module_imports_one_that_imports_it_back() -> None:
    graph = import_graph()
    circles = [
        " -> ".join(circle_through(graph, component[0], set(component)))
        for component in strongly_connected(graph)
    ]
    assert not circles, "import circles:\n" + "\n".join(circles)


def test_a_circle_is_named() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    components = list(strongly_connected(graph))
    assert components == [["a", "b", "c"]]
    assert circle_through(graph, "a", {"a", "b", "c"}) == ["a", "b", "c", "a"]
