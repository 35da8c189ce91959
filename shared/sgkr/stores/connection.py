"""Where a FalkorDB graph is, and one connection to it: URLs, timeouts, errors.

``falkor://[[user]:password@]host:port/name[?timeout=seconds]`` names a graph on a
FalkorDB server (``falkors://`` over TLS; ``falkordb://`` is the same as
``falkor://``; its Python client: sgkr's ``falkordb`` extra).
:func:`parse_url` reads such a URL; a :class:`Server` is one connection pool
to the server it names, through which every call has a timeout and every
failure is a :class:`~sgkr.errors.StoreError`: one line naming the URL, never
its password.

Examples
--------
>>> parse_url("falkor://reader:s3cret@db:6379/code").url
'falkor://db:6379/code'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from ..errors import InvalidArgumentError, StoreError
from ..extras import missing_extra
from ..masking import mask_secrets, mask_url

__all__ = ["SCHEMES", "DEFAULT_TIMEOUT", "StoreAddress", "parse_url", "Server"]

#: The URL schemes of a FalkorDB graph: FalkorDB's own (``falkors``: TLS) and ``falkordb``.
SCHEMES = ("falkor", "falkors", "falkordb")
#: Seconds any one call to the server may take.
DEFAULT_TIMEOUT = 10.0
_NAME = re.compile(r"[A-Za-z0-9_.-]{1,200}")


@dataclass(frozen=True)
class StoreAddress:
    """A parsed store URL (``falkordb://``, ``falkor://`` or ``falkors://``)."""

    host: str
    port: int
    name: str
    password: str | None = field(repr=False)  # never shown
    timeout: float
    scheme: str = "falkordb"
    username: str | None = None
    ca: str | None = None

    @property
    def tls(self) -> bool:
        """Whether the connection is TLS (``falkors://``)."""
        return self.scheme == "falkors"

    @property
    def url(self) -> str:
        """The URL without its password, for messages."""
        return f"{self.scheme}://{self.host}:{self.port}/{self.name}"


def parse_url(url: str) -> StoreAddress:
    """Parse ``SCHEME://[[user]:password@]host[:port]/name[?timeout=seconds][&ca=file]``.

    The schemes are FalkorDB's own: ``falkor`` (or ``falkordb``) connects in
    the clear, ``falkors`` over TLS, checking the server's certificate and
    host name against the system's certificate authorities, or those of the
    PEM file ``ca``.

    Examples
    --------
    >>> parse_url("falkordb://localhost:6380/stdlib?timeout=2")  # doctest: +NORMALIZE_WHITESPACE
    StoreAddress(host='localhost', port=6380, name='stdlib', timeout=2.0,
                 scheme='falkordb', username=None, ca=None)
    >>> parse_url("falkors://db.example.com/payments").tls
    True

    Raises
    ------
    InvalidArgumentError
        If the URL is not of that form, naming it (less a password).
    """
    if not isinstance(url, str):
        raise InvalidArgumentError(f"store URL must be a string, got {type(url)}")
    parts = urlsplit(url)
    shown = _shown(url)
    name = parts.path.lstrip("/")
    try:
        port = parts.port or 6379
    except ValueError:
        raise InvalidArgumentError(f"store URL {shown!r}: the port is not a number") from None
    if parts.scheme not in SCHEMES or not parts.hostname or not _NAME.fullmatch(name):
        raise InvalidArgumentError(
            f"store URL {shown!r}: expected falkor://host:port/name (or falkors:// for TLS, "
            "falkordb://), the name of letters, digits, '_', '.' or '-'")
    timeout, ca = _query_options(parts.query, shown)
    password = unquote(parts.password) if parts.password else None
    username = unquote(parts.username) if parts.username else None
    return StoreAddress(parts.hostname, port, name, password, timeout, parts.scheme,
                        username, ca)


def _shown(url: str) -> str:
    """``url`` as an error shows it: its secrets masked, at most 200 characters."""
    masked = mask_url(url)
    return masked if len(masked) <= 200 else masked[:200] + "..."


def _query_options(text: str, shown: str) -> tuple[float, str | None]:
    """``timeout`` and ``ca`` of a URL's query, checked."""
    query = parse_qs(text)
    unknown = set(query) - {"timeout", "ca"}
    if unknown:
        raise InvalidArgumentError(f"store URL {shown!r}: unknown option(s) {sorted(unknown)}")
    timeout = DEFAULT_TIMEOUT
    if "timeout" in query:
        try:
            timeout = float(query["timeout"][-1])
        except ValueError:
            timeout = -1.0
        if not 0 < timeout <= 3600:
            raise InvalidArgumentError(
                f"store URL {shown!r}: timeout must be seconds in (0, 3600]")
    ca = query["ca"][-1] if "ca" in query else None
    if ca is not None and not shown.startswith("falkors:"):
        raise InvalidArgumentError(f"store URL {shown!r}: ca is for falkors:// (TLS) only")
    return timeout, ca


class Server:
    """One connection pool to a FalkorDB server; every failure a :class:`StoreError`.

    Raises
    ------
    InvalidArgumentError
        If the FalkorDB client is not installed.
    StoreError
        If the server cannot be reached.
    """

    def __init__(self, address: StoreAddress) -> None:
        try:
            import falkordb
            from redis.backoff import NoBackoff
            from redis.retry import Retry
        except ImportError as exc:
            raise InvalidArgumentError(
                f"{address.url}: {missing_extra('a FalkorDB store', 'falkordb', exc)}") from None
        self.address = address
        self.timeout_ms = max(1, int(address.timeout * 1000))
        # No retries: a call that fails fails at once, within its timeout.
        tls: dict[str, Any] = ({"ssl": True, "ssl_check_hostname": True,
                                "ssl_ca_certs": address.ca} if address.tls else {})
        self.db = self.call(lambda: falkordb.FalkorDB(
            host=address.host, port=address.port, username=address.username,
            password=address.password, socket_timeout=address.timeout,
            socket_connect_timeout=address.timeout, retry=Retry(NoBackoff(), 0), **tls))
        self.redis = self.db.connection
        self.call(self.redis.ping)

    def call(self, work: Callable[[], Any]) -> Any:
        """Run ``work``, turning what the client or the network raise into StoreError."""
        try:
            return work()
        except StoreError:
            raise
        except Exception as exc:  # the client raises redis, OS and its own errors
            raise self.error(mask_secrets(" ".join(str(exc).split()))
                             or type(exc).__name__) from None

    def error(self, reason: str) -> StoreError:
        """A :class:`StoreError` of this store: ``graph store URL: reason``."""
        return StoreError(f"graph store {self.address.url}: {reason}")

    def query(self, graph: str, cypher: str, params: Mapping[str, Any] | None = None, *,
              write: bool = False) -> list[list[Any]]:
        """The rows of one Cypher query on ``graph``."""
        handle = self.db.select_graph(graph)
        run = handle.query if write else handle.ro_query
        result = self.call(lambda: run(cypher, dict(params) if params else None,
                                       timeout=self.timeout_ms))
        return list(result.result_set)

    def get(self, key: str) -> str | None:
        """The string at ``key``, if any."""
        value = self.call(lambda: self.redis.get(key))
        return None if value is None else str(value)

    def graphs(self) -> set[str]:
        """The names of every graph on the server."""
        return {str(g) for g in self.call(self.db.list_graphs)}

    def drop(self, graph: str) -> None:
        """Delete ``graph`` (a graph that is not there is no error)."""
        if graph in self.graphs():
            self.call(self.db.select_graph(graph).delete)

    def now(self) -> float:
        """The server's clock, in seconds (one clock for every pusher)."""
        seconds, micros = self.call(self.redis.time)
        return float(seconds) + float(micros) / 1e6

    def script(self, lua: str, keys: list[str], args: list[Any]) -> Any:
        """Run ``lua`` on the server, atomically."""
        return self.call(lambda: self.redis.eval(lua, len(keys), *keys, *args))
