"""Sending a journal entry to a webhook: the signature, which addresses may be called, the POST.

The signature is Stripe's scheme: `Kakeibo-Signature: t={unix},v1={hex HMAC-SHA256(secret, "{t}.{body}")}`
over the exact bytes sent, and `Kakeibo-Event-Id: {ledger}:{seq}` identifies the entry (a receiver
drops repeats by it: delivery is at least once).

Server-side request forgery: a webhook URL must be https and every address its host resolves to
must be public (no private, loopback, link-local, multicast, reserved or cloud metadata address);
checked when the webhook is made and again at each delivery, and the connection goes to the very
address that was checked (no second lookup that could answer otherwise). Redirects are not
followed: a 3xx is a failed delivery. Locally `WEBHOOK_ALLOW_LOOPBACK=1` also allows
`http://127.0.0.1:{port}` (a receiver on the same machine), and nothing else.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import http.client
import ipaddress
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from kakeibo.settings import get_settings

USER_AGENT = "kakeibo-webhooks/1"
TIMEOUT_SECONDS = 5.0
# Cloud metadata services answer on these (AWS IMDS v4 and v6, and the ECS task metadata endpoint).
METADATA = {
    ipaddress.ip_address("169.254.169.254"),
    ipaddress.ip_address("169.254.170.2"),
    ipaddress.ip_address("fd00:ec2::254"),
}


INVALID = "the webhook URL is not a valid URL"
NOT_HTTPS = (
    "the webhook URL must use https (only a local server with WEBHOOK_ALLOW_LOOPBACK=1 also allows http://127.0.0.1)"
)
NOT_PUBLIC = "the webhook URL points to a private, loopback, link-local or metadata address: it must reach a public one"
UNRESOLVABLE = "the webhook URL's host does not resolve"
REASONS = {INVALID: "invalid_url", NOT_HTTPS: "not_https", NOT_PUBLIC: "not_public", UNRESOLVABLE: "unresolvable"}


class RefusedUrl(ValueError):
    """A URL a webhook may not call, and why (in English; the catalogue words it)."""

    @property
    def reason(self) -> str:
        """invalid_url, not_https, not_public or unresolvable: what the problem's `reason` says."""
        return REASONS.get(str(self), "invalid_url")


def loopback_allowed() -> bool:
    return get_settings().webhook_allow_loopback


def sign(secret: str, body: bytes, timestamp: int) -> str:
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={mac}"


def verify(secret: str, body: bytes, header: str, *, now: float, tolerance: int = 300) -> bool:
    """What a receiver does with the header (used by the tests, and shown in README)."""
    parts = dict(p.split("=", 1) for p in header.split(",") if "=" in p)
    try:
        timestamp = int(parts["t"])
    except (KeyError, ValueError):
        return False
    expected = sign(secret, body, timestamp).split("v1=", 1)[1]
    return abs(now - timestamp) <= tolerance and hmac.compare_digest(expected, parts.get("v1", ""))


@dataclass(frozen=True)
class Target:
    """A checked URL: where to connect (the address that was checked) and what to ask for."""

    scheme: str
    host: str
    port: int
    path: str
    address: str


def _public(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        address = address.ipv4_mapped
    return address not in METADATA and address.is_global and not address.is_multicast


def check_url(url: str, *, resolve: bool = True) -> Target:
    """The URL as a Target if a webhook may call it; RefusedUrl otherwise."""
    if not isinstance(url, str) or len(url) > 2048 or any(c.isspace() for c in url):
        raise RefusedUrl(INVALID)
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise RefusedUrl(INVALID) from None
    host = parts.hostname or ""
    if parts.scheme and parts.scheme not in ("https", "http"):  # ftp://, ws://, mailto:...: https is the one
        raise RefusedUrl(NOT_HTTPS)
    if not parts.scheme or not host or parts.username or parts.password:
        raise RefusedUrl(INVALID)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    if parts.scheme == "http":
        if not (loopback_allowed() and host == "127.0.0.1"):
            raise RefusedUrl(NOT_HTTPS)
        return Target("http", host, port or 80, path, host)
    if loopback_allowed() and host == "127.0.0.1":
        return Target("https", host, port or 443, path, host)
    try:
        literal = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    if literal is not None:
        if not _public(literal):
            raise RefusedUrl(NOT_PUBLIC)
        return Target("https", host, port or 443, path, host)
    if not resolve:
        return Target("https", host, port or 443, path, "")
    try:
        found = {info[4][0] for info in socket.getaddrinfo(host, port or 443, type=socket.SOCK_STREAM)}
    except (OSError, UnicodeError):
        raise RefusedUrl(UNRESOLVABLE) from None
    addresses = [ipaddress.ip_address(str(a).split("%", 1)[0]) for a in sorted(found)]
    if not addresses or not all(_public(a) for a in addresses):
        raise RefusedUrl(NOT_PUBLIC)
    return Target("https", host, port or 443, path, str(addresses[0]))


class _Pinned(http.client.HTTPSConnection):
    """HTTPS to the checked address, with the URL's host name for TLS (SNI and certificate)."""

    def __init__(self, target: Target, timeout: float) -> None:
        super().__init__(target.host, target.port, timeout=timeout, context=ssl.create_default_context())
        self._address = target.address

    def connect(self) -> None:
        sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Outcome:
    ok: bool
    status: int | None
    error: str | None
    millis: int


def post(url: str, body: bytes, headers: dict[str, str], *, timeout: float = TIMEOUT_SECONDS) -> Outcome:
    """One POST of `body` to a webhook: ok on 2xx; never follows a redirect; never raises. A receiver
    that has not answered in full within `timeout` (one that hangs, or drips its answer) is cut there."""
    started = time.monotonic()

    def done(ok: bool, status: int | None, error: str | None) -> Outcome:
        return Outcome(ok, status, error, int((time.monotonic() - started) * 1000))

    try:
        target = check_url(url)
    except RefusedUrl as exc:
        return done(False, None, str(exc))
    connection: http.client.HTTPConnection
    if target.scheme == "http":
        connection = http.client.HTTPConnection(target.address, target.port, timeout=timeout)
    else:
        connection = _Pinned(target, timeout)
    cut = threading.Event()

    def hang_up() -> None:  # the whole exchange's deadline: a socket timeout only bounds each read
        cut.set()
        if connection.sock is not None:
            with contextlib.suppress(OSError):
                connection.sock.shutdown(socket.SHUT_RDWR)

    watchdog = threading.Timer(timeout, hang_up)
    watchdog.daemon = True
    watchdog.start()
    try:
        connection.request("POST", target.path, body=body, headers={**headers, "Host": target.host,
                                                                    "User-Agent": USER_AGENT})  # fmt: skip
        response = connection.getresponse()
        response.read(65536)
        status = response.status
    except (OSError, http.client.HTTPException) as exc:
        # the socket's own timeout and the watchdog share one deadline: whichever fires first, it is
        # the receiver that did not answer in time
        if cut.is_set() or isinstance(exc, TimeoutError):
            return done(False, None, f"no answer within {timeout:g} s")
        return done(False, None, f"{type(exc).__name__}: {exc}"[:200])
    finally:
        watchdog.cancel()
        connection.close()
    if cut.is_set():
        return done(False, None, f"no answer within {timeout:g} s")
    if 200 <= status < 300:
        return done(True, status, None)
    return done(False, status, "redirects are not followed" if 300 <= status < 400 else f"HTTP {status}")
