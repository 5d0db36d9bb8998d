"""The routed views, read from the live configuration (the registry's introspector), and the
parameters of their paths, read from the traversal resources."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from pyramid.registry import Registry

from shopsvc.openapi.page import DOCS_FILES
from shopsvc.openapi.schema import Schema
from shopsvc.web import resources
from shopsvc.web.resources import Item, Resource

#: Methods in the order the index lists them.
METHODS = ("HEAD", "GET", "POST", "PUT", "PATCH", "DELETE")
#: The method a view's name stands for when it serves several; the others are aliases.
PRIMARY = ("GET", "PUT", "POST", "DELETE", "PATCH", "HEAD")
PARAMETER = re.compile(r"<([a-z_]+)>")


@dataclass(frozen=True)
class RoutedView:
    context: type[Resource]
    methods: tuple[str, ...]
    view: Callable[..., Any]

    @property
    def name(self) -> str:
        return self.view.__name__

    @property
    def pattern(self) -> str:
        return self.context.pattern

    @property
    def path(self) -> str:
        """The OpenAPI path: ``/webhooks/<id>`` → ``/webhooks/{id}``."""
        return PARAMETER.sub(r"{\1}", self.pattern)

    @property
    def primary(self) -> str:
        return next(method for method in PRIMARY if method in self.methods)

    def operation_id(self, method: str) -> str:
        return self.name if method == self.primary else f"{self.name}_{method.lower()}"

    @property
    def description(self) -> str:
        return inspect.cleandoc(self.view.__doc__ or "")


def _declared(position: int, routed: RoutedView) -> tuple[Any, ...]:
    """Where a view stands among the views of its path: a decorated view (``@view_config``)
    by its module and name, the order a scan finds them in; a view added by a module's
    ``includeme`` after them, in the order it was added. (Not the order of registration:
    ``shopsvc.views`` registers the reads first, which the document need not show.)"""
    if hasattr(routed.view, "__venusian_callbacks__"):
        return (0, routed.view.__module__, routed.name)
    return (1, "", position)


def routed_views(registry: Registry) -> list[RoutedView]:
    """Every view registered for a traversal resource that has a route pattern, by path, then
    in the order of their declaration (:func:`_declared`)."""
    found = []
    for entry in registry.introspector.get_category("views"):
        view = entry["introspectable"]
        context = view["context"]
        if not (isinstance(context, type) and issubclass(context, Resource) and context.pattern):
            continue
        declared = view["request_methods"] or METHODS
        if isinstance(declared, str):
            declared = (declared,)
        methods = tuple(method for method in METHODS if method in declared)
        found.append(RoutedView(context, methods, view["callable"]))
    ordered = sorted(
        enumerate(found),
        key=lambda item: (item[1].pattern != "/", item[1].pattern, _declared(*item)),
    )
    return [routed for _, routed in ordered]


def _resource_classes(base: type[Resource] = Resource) -> Iterator[type[Resource]]:
    for subclass in base.__subclasses__():
        yield subclass
        yield from _resource_classes(subclass)


def _shape(pattern: str) -> str:
    return PARAMETER.sub("<>", pattern.lower())


def segment_schema(resource: type[Resource] | None) -> Schema:
    """What a path segment of ``resource`` may be: an id (digits; 0 is refused by every
    family's ``Loader.check_id``) for an item, a slug for a tax class, one of the page's files
    under ``/docs``, any segment otherwise."""
    if resource is not None and issubclass(resource, Item):
        return {"type": "integer", "minimum": 1}
    if resource is not None and issubclass(resource, resources.TaxClass):
        return {"type": "string", "pattern": f"^{resources.SLUG.pattern}$"}
    if resource is resources.DocsFile:
        return {"type": "string", "enum": list(DOCS_FILES)}
    return {"type": "string"}


def path_parameters(pattern: str) -> list[dict[str, Any]]:
    """The parameters of a route pattern, each typed by the resource its segment addresses."""
    by_shape = {_shape(cls.pattern): cls for cls in _resource_classes() if cls.pattern}
    segments = pattern.split("/")
    found = []
    for index, segment in enumerate(segments):
        match = PARAMETER.fullmatch(segment)
        if match is None:
            continue
        resource = by_shape.get(_shape("/".join(segments[: index + 1])))
        found.append(
            {
                "name": match.group(1),
                "in": "path",
                "required": True,
                "schema": segment_schema(resource),
            }
        )
    return found
