"""What the product planner (``shopsvc.writers.product_batch``) makes of one product or
variation before anything is written: a :class:`Plan` (the row as the write leaves it and its
child rows), and the attribute list of a product with the global terms it creates
(:class:`AttributeTerms`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from shopsvc.domain import catalog
from shopsvc.validation.products import MAX_SLUG_BASE, AttributeInput
from shopsvc.writers.attribute_options import find_term

Row = dict[str, Any]


@dataclass
class AttributeRow:
    """One attribute of a product as stored: global (``attribute_id`` and ``term_ids``) or custom
    (``name`` and ``options``)."""

    attribute_id: int | None
    name: str
    position: int
    visible: bool
    variation: bool
    options: list[str] = field(default_factory=list)
    term_ids: list[int] = field(default_factory=list)


@dataclass
class Plan:
    """One product's or variation's write: its row as the write leaves it (a new row's ``id``
    is a placeholder until it is inserted), the columns an edit changes, and the child rows it
    replaces (None: left as they are). ``events`` are ``(plan, event, hooks)`` in the order the
    webhook events are recorded; ``children`` the variations it writes."""

    row: Row
    create: bool
    changed: set[str] = field(default_factory=set)
    terms: dict[str, list[int]] = field(default_factory=dict)
    gallery: list[int] | None = None
    downloads: list[tuple[str, str, str]] | None = None
    attributes: list[AttributeRow] | None = None
    values: dict[str, str] | None = None  # a variation's attribute values
    media_texts: list[tuple[int, str | None, str | None]] = field(default_factory=list)
    children: list[Plan] = field(default_factory=list)
    events: list[tuple[Plan, str | None, list[str]]] = field(default_factory=list)

    @property
    def product_id(self) -> int:
        return int(self.row["id"])

    def family(self) -> list[Plan]:
        """This plan and its variations'."""
        return [self, *(plan for child in self.children for plan in child.family())]


@dataclass(eq=False)
class NewTerm:
    """A global attribute term the write creates (``id`` once inserted)."""

    attribute_id: int
    name: str
    slug: str
    id: int | None = None


@dataclass(eq=False)
class NewMedia:
    """An image the write stores as a new ``media`` row (``values`` by column; ``id`` once
    inserted)."""

    values: dict[str, Any]
    id: int | None = None


def media_id(value: Any) -> Any:
    """A media id as written: a :class:`NewMedia`'s once inserted."""
    return value.id if isinstance(value, NewMedia) else value


class AttributeTerms:
    """The registered attributes a request names, with their terms (loaded once), and the terms
    its products' attribute lists create (seen by the lists planned after them)."""

    def __init__(self, registered: dict[str, Row], terms: list[Row]) -> None:
        self.registered = registered
        self.known: dict[int, list[dict[str, Any]]] = {}
        for term in terms:
            self.known.setdefault(term["attribute_id"], []).append(dict(term))
        self.new: list[NewTerm] = []

    def rows(self, items: list[AttributeInput]) -> list[AttributeRow]:
        """A product's attribute list as stored (reference §2.3, §5): a ``slug``
        naming a registered attribute makes a global attribute (options are term names; missing
        terms are created; dropped when no option remains), otherwise a custom one (needs
        ``options``). Sorted by position. Term ids of created terms are :class:`NewTerm`."""
        chosen: dict[str, AttributeRow] = {}
        for item in items:
            attribute = self.registered.get(item.slug) if item.slug else None
            if attribute is not None:
                term_ids = [self._term(attribute["id"], option) for option in item.options or ()]
                if not term_ids:
                    continue
                chosen[f"pa:{attribute['slug']}"] = AttributeRow(
                    attribute_id=attribute["id"],
                    name=attribute["name"],
                    position=item.position,
                    visible=item.visible,
                    variation=item.variation,
                    term_ids=list(dict.fromkeys(term_ids)),
                )
            elif item.options is not None:
                chosen[catalog.clean_attribute_slug(item.name) or item.name] = AttributeRow(
                    attribute_id=None,
                    name=item.name,
                    position=item.position,
                    visible=item.visible,
                    variation=item.variation,
                    options=list(item.options),
                )
        return sorted(chosen.values(), key=lambda row: row.position)

    def _term(self, attribute_id: int, option: str) -> Any:
        known = self.known.setdefault(attribute_id, [])
        found = find_term(option, known)
        if found is not None:
            return found
        base = (catalog.slugify_name(option) or "term")[:MAX_SLUG_BASE]
        taken = {t["slug"] for t in known if t["slug"] == base or t["slug"].startswith(base + "-")}
        term = NewTerm(attribute_id, option, catalog.unique_slug(base, taken))
        self.new.append(term)
        known.append({"id": term, "name": option, "slug": term.slug})
        return term

    def described(self, rows: list[AttributeRow]) -> list[dict[str, Any]]:
        """``rows`` as ``sql.product_lookups.get_product_attributes`` reads them back once
        written (what variations and ``default_attributes`` are matched against)."""
        slugs = {attribute["id"]: slug for slug, attribute in self.registered.items()}
        described = []
        for row in rows:
            terms: list[dict[str, str]] = []
            if row.attribute_id:
                chosen = set(row.term_ids)
                known = self.known.get(row.attribute_id, [])
                # by term id: the existing terms, then the ones created, in order
                ordered = sorted(
                    (t for t in known if t["id"] in chosen),
                    key=lambda t: (isinstance(t["id"], NewTerm), _order(t["id"], self.new)),
                )
                terms = [{"name": t["name"], "slug": t["slug"]} for t in ordered]
            described.append(
                {
                    "attribute_id": row.attribute_id,
                    "name": row.name,
                    "slug": slugs.get(row.attribute_id, "") if row.attribute_id else "",
                    "variation": row.variation,
                    "options": [] if row.attribute_id else list(row.options),
                    "terms": terms,
                }
            )
        return described


def _order(term_id: Any, new: list[NewTerm]) -> int:
    return new.index(term_id) if isinstance(term_id, NewTerm) else int(term_id)
