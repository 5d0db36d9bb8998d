"""View configuration, one module per resource family."""

from pyramid.config import Configurator


def includeme(config: Configurator) -> None:
    config.scan("shopsvc.views")
    config.include("shopsvc.views.terms")
