"""The HTTP side of the service: the request class, the tweens around every request, the
traversal tree, list parameters, rendering and bulk requests (everything that knows Pyramid but
the views)."""
