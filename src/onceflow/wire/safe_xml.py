"""Parsing a request's XML body without a DTD: a document that declares one (`<!DOCTYPE ...>`, and
with it any entity) is refused before anything in it is read, so no entity is ever expanded (no
"billion laughs", no external entity). Only XML's own entities (&amp; ...) and character references
remain. The tree is ElementTree's, with names as `{namespace}local` as ElementTree writes them."""

from __future__ import annotations

from xml.etree import ElementTree
from xml.parsers import expat


class XmlRefused(ValueError):
    """The body is not well-formed XML, or declares a DTD."""


def _name(raw: str) -> str:
    namespace, _, local = raw.rpartition("}")  # expat joins a namespace and a local name with "}"
    return f"{{{namespace}}}{local}" if namespace else local


def parse(body: bytes) -> ElementTree.Element:
    builder = ElementTree.TreeBuilder()
    parser = expat.ParserCreate(namespace_separator="}")

    def refuse_dtd(*_: object) -> None:
        raise XmlRefused("a DTD is not accepted")

    def start(tag: str, attrs: dict[str, str]) -> None:
        builder.start(_name(tag), {_name(k): v for k, v in attrs.items()})

    parser.StartDoctypeDeclHandler = refuse_dtd
    parser.EntityDeclHandler = refuse_dtd  # never reached without a DOCTYPE; kept as a second lock
    parser.StartElementHandler = start
    parser.EndElementHandler = lambda tag: builder.end(_name(tag))
    parser.CharacterDataHandler = builder.data
    try:
        parser.Parse(body, True)
    except expat.ExpatError as exc:
        raise XmlRefused(str(exc)) from None
    return builder.close()
